"""The canvas's TensorRT intents on a real export (BERT-tiny, inputs [batch, sequence]): one undo step each, refusals
carry the Document's reason (the dialogs show it), and the precision lists of the browser and the format agree."""

from __future__ import annotations

import re
from pathlib import Path

from dld_jupyter.document import Document
from dld_jupyter.formats.trt_metadata import LAYER_PRECISIONS
from dld_jupyter.widgets.canvas.canvas import GraphCanvas

ROOT = Path(__file__).resolve().parents[2]
BERT = ROOT / "tests" / "data" / "real" / "bert_tiny.onnx"


def canvas() -> tuple[Document, GraphCanvas]:
    document = Document.open(BERT)
    return document, GraphCanvas(document, grouping="none")


def test_precision_on_three_layers_is_one_undo_step_and_reaches_the_badge() -> None:
    document, c = canvas()
    ops = [document.node_id(n) for n in document.model.graph if n.op_type == "MatMul"][:3]
    reply = c.handle_intent({"action": "set_precision", "args": {"nodes": [*ops, "iv0"], "precision": "fp16"}})
    assert reply["ok"] and reply["data"] == {"changed": 3, "layers": 3}
    sent = [n for p in reply["patches"] for op in p["ops"] for n in op.get("nodes", [])]
    assert {n["id"]: n["precision"] for n in sent if n["id"] in ops} == dict.fromkeys(ops, "fp16")
    document.undo()
    assert [document.trt.layer_precision(n) for n in ops] == [None, None, None]
    refused = c.handle_intent({"action": "set_precision", "args": {"nodes": ops, "precision": "fp64"}})
    assert not refused["ok"] and "not a TensorRT layer precision" in refused["error"]


def test_profile_dialog_data_validation_and_inferred_batch() -> None:
    document, c = canvas()
    info = c.handle_intent({"action": "trt_inputs", "args": {"node": "iv0"}})["data"]
    assert info["input"] == "input_ids" and info["inputs"][0]["dims"] == ["batch", "sequence"]
    assert info["inputs"][0]["dynamic"] and not info["inputs"][0]["single_leading"]
    bad = {"input": "input_ids", "mode": "profile", "min": [1, 1], "opt": [8, 64], "max": [4, 128]}
    reply = c.handle_intent({"action": "set_trt_profile", "args": bad})
    assert not reply["ok"] and "min 1 <= opt 8 <= max 4 does not hold" in reply["error"]
    good = {**bad, "max": [16, 128]}
    assert c.handle_intent({"action": "set_trt_profile", "args": good})["ok"]
    assert document.trt.optimization_profiles()["input_ids"].max == (16, 128)
    inferred = c.handle_intent({"action": "set_trt_profile", "args": {"input": "input_ids", "mode": "inferred",
                                                                         "batch": 4}})
    assert not inferred["ok"] and "exactly one wildcard" in inferred["error"]
    assert c.handle_intent({"action": "set_trt_profile", "args": {"input": "input_ids", "mode": "clear"}})["ok"]
    assert document.trt.optimization_profiles() == {}


def test_browser_precision_list_is_the_formats() -> None:
    source = (ROOT / "js" / "src" / "widgets" / "canvas" / "overlays" / "tensorrt" / "precision.ts").read_text()
    lists = re.findall(r"PRECISIONS = \[([^\]]*)\]", source)
    names = tuple(name for group in lists for name in re.findall(r'"([^"]+)"', group))
    assert names == LAYER_PRECISIONS
