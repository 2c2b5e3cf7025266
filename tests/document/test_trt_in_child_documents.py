"""TensorRT attributes are refused where a confirm would drop them or the build ignore them (issue 26, item 5): a
profile on the scripted GRU's Loop-body input was accepted and gone after the confirm; a layer precision inside
ShuffleNet's local function was saved and never reached the build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dld_jupyter.activities.runtimes.tensorrt.model import read_model_attributes
from dld_jupyter.document import Document
from dld_jupyter.document.model.errors import DocumentError

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def test_loop_body_refuses_profiles_and_batch_and_precisions(tmp_path: Path) -> None:
    doc = Document.open(REAL / "gru_scripted.onnx")
    loop = next(n.id for n in doc.nodes() if n.op_type == "Loop")
    body = doc.subgraphs.open(loop, "body")
    steps = len(body.history)
    with pytest.raises(DocumentError, match="reads profiles, the inferred batch and layer precisions from the main"):
        body.trt.set_optimization_profile("h.31", [1, 16], [2, 16], [4, 16])
    with pytest.raises(DocumentError, match="main model's document"):
        body.trt.set_inferred_batch_size(2)
    node = next(n.id for n in body.nodes() if n.op_type in ("MatMul", "Gemm", "Add"))
    with pytest.raises(DocumentError, match="subgraph document writes back its graph"):
        body.trt.set_layer_precision([node], "fp16")
    assert len(body.history) == steps and body.trt.optimization_profiles() == {}
    body.close()
    doc.trt.set_optimization_profile("h0", [1, 16], [2, 16], [4, 16])  # the main model's input: kept
    doc.save_copy(tmp_path / "gru.onnx")
    assert set(read_model_attributes(str(tmp_path / "gru.onnx")).profiles) == {"h0"}


def test_function_body_refuses_a_precision_the_build_would_ignore(tmp_path: Path) -> None:
    path = tmp_path / "shufflenet.onnx"
    shutil.copy(REAL / "shufflenet_functions_small.onnx", path)
    doc = Document.open(path)
    info = doc.functions.list()[0]
    body = doc.functions.open(info.name, info.domain)
    conv = next(n.id for n in body.nodes() if n.op_type == "Conv")
    with pytest.raises(DocumentError, match="TensorRT inlines a local function") as error:
        body.trt.set_layer_precision([conv], "fp16")
    assert "Inline Function" in str(error.value)
    assert body.trt.set_layer_precision([conv], None) == 0  # releasing stays possible
    body.close()
    main_conv = next(n for n in doc.nodes() if n.op_type == "Conv")
    assert doc.trt.set_layer_precision([main_conv.id], "fp16") == 1


def test_a_precision_stored_inside_a_function_is_said_to_be_ignored(tmp_path: Path) -> None:
    """A file edited before the refusal (or elsewhere) may hold one: the build plan's notes say it is ignored."""
    import onnx

    from dld_jupyter.activities.runtimes.tensorrt.mapping import build_plan
    from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
    from dld_jupyter.formats.trt_metadata import TRT_PRECISION_KEY

    model = onnx.load(str(REAL / "shufflenet_functions_small.onnx"))
    function = model.functions[0]
    conv = next(n for n in function.node if n.op_type == "Conv")
    conv.metadata_props.add(key=TRT_PRECISION_KEY, value="fp16")
    path = tmp_path / "stored.onnx"
    onnx.save(model, str(path))
    attrs = read_model_attributes(str(path))
    assert attrs.unreachable_precisions == [f"function {function.name}/{conv.name}"] and attrs.precisions == {}
    plan = build_plan(TrtSettings(), attrs, None)
    assert any("1 layer precision constraint(s) inside local functions or subgraphs are ignored" in note
               for note in plan.notes), plan.notes
