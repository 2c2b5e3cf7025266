"""The read-only engine-graph designer (`dld.open_engine`) on every real TensorRT layer-information sample:
layers as glyphs with type, precision and tactic, tensors as links with shape and format, the engine's inputs and
outputs as I/O nodes laid out above and below, each layer's full record in the side panel, every edit refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import dld_jupyter as dld
from dld_jupyter.lab import document_tabs
from dld_jupyter.lab.document_tabs import TabLink
from dld_jupyter.report_format.engine_graph import EngineGraphError, load_engine_graph
from dld_jupyter.widgets.engine.engine_designer import EngineDesigner, record_html
from dld_jupyter.widgets.engine.engine_view import engine_view, short_format
from tests.reports.conftest import COPY, shared_samples

RESNET = COPY / "tf-resnet50-rtx3090-fp16.engine.graph.json"


def _layer_info_files() -> list[Path]:
    folders = [f for f in (COPY, shared_samples()) if f is not None]  # the shared folder only where it exists
    # the FP16 engine in both folders (the QAT engine beside it has other layers: its own test below)
    names = ("fp16.engine.graph.json", ".trt.json")
    files = [p for f in folders for p in sorted(f.iterdir()) if p.name.endswith(names)]
    assert files and files[0].parent == COPY
    return files


@pytest.mark.parametrize("path", _layer_info_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_becomes_a_laid_out_graph(path: Path) -> None:
    graph = load_engine_graph(path)
    raw = json.loads(path.read_text())
    view = engine_view(graph)
    layers = [n for n in view.nodes if n["kind"] == "op"]
    assert [n["name"] for n in layers] == [layer["Name"] for layer in raw["Layers"]]
    assert [n["op_type"] for n in layers] == [layer["LayerType"] for layer in raw["Layers"]]
    # the precision badge and the second line: each layer's precision (of its first input, as the report says)
    for node, layer in zip(layers, graph.layers, strict=True):
        assert node["precision"] == (layer.precision if layer.precision != "N/A" else None)
        if node["precision"]:
            assert node["subtitle"].startswith(node["precision"])
    assert {n["precision"] for n in layers} == {"FP16", "FP32"}
    conv = next(n for n in layers if n["name"] == "Conv__435 + resnet50/conv1_relu/Relu")
    assert conv["subtitle"] == "FP16 · trt_turing_cutlass_image_ne…"  # precision + tactic (shortened)
    assert conv["detail"] == "Conv__435, Relu" and conv["category"] == "Convolution"
    # I/O nodes for the engine's bindings; links from producers to consumers, labelled with shape and format
    assert [n["id"] for n in view.nodes if n["kind"] == "input"] == ["in:input_1"]
    assert [n["id"] for n in view.nodes if n["kind"] == "output"] == ["out:predictions"]
    ids = {n["id"] for n in view.nodes}
    consumed = sum(len(layer["Inputs"]) for layer in raw["Layers"])
    assert len(view.edges) == consumed + 1  # every layer input, and the engine output
    for edge in view.edges:
        assert edge["source"] in ids and edge["target"] in ids
        assert view.positions[edge["source"]][1] < view.positions[edge["target"]][1]  # producers above consumers
        assert edge["label"] and "×" in edge["label"]
    first = next(e for e in view.edges if e["source"] == "in:input_1")
    assert first["label"] == "32×224×224×3 FP32 linear" and first["value"] == "input_1"
    assert any(e["label"] == "32×64×112×112 FP16 HWC8" for e in view.edges)
    # nothing overlaps: the layout keeps every glyph apart
    boxes = [(view.positions[n["id"]], n["width"], n["height"]) for n in view.nodes]
    for i, ((x1, y1), w1, h1) in enumerate(boxes):
        for (x2, y2), w2, h2 in boxes[i + 1 :]:
            assert abs(x1 - x2) * 2 >= w1 + w2 or abs(y1 - y2) * 2 >= h1 + h2


def test_the_record_of_a_layer_names_what_it_fuses() -> None:
    view = engine_view(load_engine_graph(RESNET))
    conv = view.record("L2")
    assert conv is not None and conv["type"] == "CaskConvolution" and conv["precision"] == "FP16"
    assert conv["onnx_nodes"] == ["Conv__435", "resnet50/conv1_relu/Relu"]
    assert conv["tactic"].startswith("trt_turing_cutlass") and not conv["overhead"]
    assert conv["inputs"][0]["format"] == "Channel major FP16 format where channel % 4 == 0"
    assert conv["parameters"]["Kernel"] == [7, 7]
    text = record_html(conv)
    assert "Conv__435" in text and "resnet50/conv1_relu/Relu" in text and "Kernel" in text and "[7, 7]" in text
    reformat = view.record("L1")
    assert reformat is not None and reformat["overhead"] and "overhead" in record_html(reformat)
    assert view.record("in:input_1") == {
        "kind": "input",
        "name": "input_1",
        "dims": [32, 224, 224, 3],
        "format": "Row major linear FP32",
        "precision": "FP32",
    }
    assert view.record("L999") is None


def test_short_formats() -> None:
    tensors = load_engine_graph(RESNET).tensors
    assert short_format(tensors["input_1"]) == "FP32 linear"
    assert {short_format(t) for t in tensors.values()} >= {"FP16 HWC8", "FP16 HWC16", "FP32 linear"}


def test_open_engine_shows_the_selected_layer_and_refuses_every_edit() -> None:
    designer = dld.open_engine(str(RESNET))
    assert isinstance(designer, EngineDesigner) and not hasattr(designer, "save")
    assert "86 layers (FP16 83, FP32 3)" in designer.header.value and "read-only" in designer.header.value
    assert designer.canvas.read_only and designer.canvas.title == RESNET.name
    labels = [child.description for child in designer.toolbar.children if hasattr(child, "description")]
    assert "Save" not in labels and "Undo" not in labels and "Arrange" in labels
    assert "Select a layer" in designer.panel.value
    node = designer.select("Conv__435 + resnet50/conv1_relu/Relu")
    assert node == "L2" and "Conv__435" in designer.panel.value and "trt_turing_cutlass" in designer.panel.value
    designer.canvas._on_msg(designer.canvas, {"kind": "hover", "id": "L3"}, [])  # the browser's hover
    assert "resnet50/pool1_pad/Pad" in designer.panel.value and "Conv__435" not in designer.panel.value
    designer.canvas._on_msg(designer.canvas, {"kind": "hover", "id": None}, [])  # pointer gone: the selection again
    assert "Conv__435" in designer.panel.value
    for action, args in (
        ("delete", {"ids": ["L2"]}),
        ("connect", {}),
        ("add_node", {"op_type": "Relu"}),
        ("set_attr", {}),
        ("rename", {}),
        ("undo", {}),
        ("save", {}),
        ("paste", {}),
    ):
        reply = designer.canvas.handle_intent({"action": action, "request": 7, "args": args})
        assert reply["ok"] is False and "read-only" in reply["error"] and "Export Engine" in reply["error"]
    assert len(designer.canvas.refusals) == 8
    moved = designer.canvas.handle_intent({"action": "move", "request": 8, "args": {"ids": ["L2", "nope"]}})
    assert moved["ok"] is False and moved["patches"][0]["ops"] == [{"op": "move", "ids": ["L2"]}]  # put back
    assert designer.canvas.handle_intent({"action": "ping", "request": 9})["ok"] is True
    arranged = designer.canvas.handle_intent({"action": "arrange", "request": 10})
    assert arranged["ok"] is True and len(arranged["patches"][0]["ops"][0]["ids"]) == len(designer.view.nodes)
    designer.close()


def test_open_engine_says_what_is_wrong_with_other_files(tmp_path: Path) -> None:
    profile = COPY / "tf-resnet50-rtx3090-fp16.engine.profile.json"
    with pytest.raises(
        EngineGraphError, match=r'expected an object with a "Layers" list.*--exportLayerInfo.*report viewer'
    ):
        dld.open_engine(str(profile))
    with pytest.raises(EngineGraphError, match="no such layer information file"):
        dld.open_engine(str(tmp_path / "missing.trt.json"))
    with pytest.raises(TypeError, match="grouping"):
        dld.open_engine(str(RESNET), grouping="none")


def test_an_engine_tab_has_nothing_to_save(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_tabs, "register", lambda: None)  # no kernel comm manager in a test
    document_tabs.show("e.trt.json", lambda: dld.open_engine(str(RESNET)))
    sent: list[dict[str, Any]] = []
    link = TabLink("e.trt.json", sent.append)
    assert sent[-1] == {"kind": "state", "name": "", "path": "", "dirty": False, "document": False}
    link.handle({"kind": "save", "request": 2, "path": None})
    assert sent[-1]["ok"] is False and "no model to save" in sent[-1]["error"]
    document_tabs.forget("e.trt.json")


def test_dld_export_engine_then_open_its_layer_information(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`dld.export_engine` (top-level, like dld.profile) on a Designer writes the engine and its .trt.json, which
    `dld.open_engine` shows (the TensorRT runtime replays recorded real outputs: tests/activities/trt_standin.py)."""
    from tests.activities.test_trt_pipeline import STANDIN, _sample_model
    from tests.activities.trt_standin import ENGINE_MAGIC

    assert {"export_engine", "open_engine"} <= set(dld.__all__)
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    designer = dld.open(str(_sample_model(tmp_path)))
    exported = dld.export_engine(designer, metadata=str(tmp_path / "resnet50.trt.json"), fp16=True)
    assert Path(exported.engine).read_bytes() == ENGINE_MAGIC and exported.metadata
    engine = dld.open_engine(exported.metadata)
    assert len(engine.graph.layers) == 86 and engine.canvas.title == "resnet50.trt.json"
    designer.close()
    engine.close()


def test_a_browser_error_of_the_engine_canvas_shows_in_the_widget() -> None:
    engine = dld.open_engine(str(RESNET))
    engine.canvas._on_msg(engine.canvas, {"kind": "js_error", "message": "TypeError: boom"}, [])
    assert any("TypeError: boom" in e for e in engine.canvas.js_errors)
    assert any("TypeError: boom" in o.get("text", "") for o in engine.output.outputs)


def test_the_qat_engine_becomes_a_graph_with_int8_badges() -> None:
    path = COPY / "tf-resnet50-rtx3090-qat.engine.graph.json"
    raw = json.loads(path.read_text())
    view = engine_view(load_engine_graph(path))
    layers = [n for n in view.nodes if n["kind"] == "op"]
    assert [n["name"] for n in layers] == [layer["Name"] for layer in raw["Layers"]]
    assert {n["precision"] for n in layers} == {"INT8", "FP32"}
    assert [n["id"] for n in view.nodes if n["kind"] == "output"] == ["out:quant_predictions"]
