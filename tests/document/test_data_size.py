"""Issue 31, finding 7: tensor data longer or shorter than its type and shape is an error of `dld check`.

Each crafted model is refused by ONNX Runtime (checked here with a real session) and used to pass the check list with
0 errors, because the ONNX checks run on a weightless skeleton.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from dld_jupyter.cli.main import main
from dld_jupyter.document import Document
from dld_jupyter.document.checks.check_process import CheckProcess


def _model(weights: TensorProto, constant: TensorProto | None = None) -> onnx.ModelProto:
    """y = x + W (+ a Constant's value when given)."""
    nodes = [helper.make_node("Add", ["x", "W"], ["s"], name="add_w")]
    if constant is not None:
        nodes += [
            helper.make_node("Constant", [], ["c"], name="const_c", value=constant),
            helper.make_node("Add", ["s", "c"], ["y"], name="add_c"),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["s"], ["y"], name="out"))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
        [weights],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def _raw(name: str, nbytes: int) -> TensorProto:
    """A float [2, 2] tensor (16 bytes needed) holding ``nbytes`` of raw data (onnx.helper refuses to build it)."""
    tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=[2, 2])
    tensor.raw_data = np.arange(8, dtype=np.float32).tobytes()[:nbytes]
    return tensor


def _ort_refuses(path: Path) -> str:
    with pytest.raises(Exception) as refused:  # onnxruntime raises its own Fail / InvalidGraph types
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return str(refused.value)


def _errors(path: Path) -> list[tuple[str, str | None, str]]:
    """The check list's errors (onnx.checker's own unbound echo of raw data that is too short is left out)."""
    doc = Document.open(path)
    names = {node.id: node.name for node in doc.nodes()}
    return [(d.message, names.get(d.node_id or ""), d.fix_hint) for d in doc.check() if d.severity == "error"]


@pytest.mark.parametrize(("nbytes", "relation"), [(20, "more"), (12, "fewer")])
def test_raw_data_of_the_wrong_length_is_an_error_on_its_consumer(tmp_path: Path, nbytes: int, relation: str) -> None:
    path = tmp_path / "bad.onnx"
    onnx.save(_model(_raw("W", nbytes)), path)
    _ort_refuses(path)
    [(message, node, hint)] = _errors(path)
    assert message.startswith(f"Initializer 'W' holds {nbytes} bytes of raw data, {relation} than the 16")
    assert "float tensor of shape [2, 2]" in message and "ONNX Runtime refuses" in message
    assert node == "add_w" and "Replace from .npy" in hint


def test_a_tensor_attribute_and_typed_values_are_checked_too(tmp_path: Path) -> None:
    weights = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[2, 2], float_data=[1.0, 2.0, 3.0])  # 4 needed
    path = tmp_path / "bad.onnx"
    onnx.save(_model(weights, constant=_raw("c_value", 24)), path)
    _ort_refuses(path)
    errors = _errors(path)
    assert ("Initializer 'W' holds 3 values, but a float tensor of shape [2, 2] needs 4: "
            "ONNX Runtime refuses to load the model.", "add_w") in [(m, n) for m, n, _ in errors]
    assert any(m.startswith("Attribute 'value' of node 'const_c' holds 24 bytes") and n == "const_c"
               for m, n, _ in errors)


def test_an_external_length_that_does_not_match_the_shape_is_an_error(tmp_path: Path) -> None:
    """The declared length is checked, not the file: no weight is read."""
    (tmp_path / "w.bin").write_bytes(np.zeros(5, np.float32).tobytes())  # long enough for the declared 20 bytes
    weights = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[2, 2], data_location=TensorProto.EXTERNAL)
    for key, value in (("location", "w.bin"), ("offset", "0"), ("length", "20")):
        weights.external_data.add(key=key, value=value)
    path = tmp_path / "bad.onnx"
    onnx.save(_model(weights), path)
    _ort_refuses(path)
    [(message, node, hint)] = _errors(path)
    assert message == (
        "Initializer 'W' declares 20 bytes of external data (in 'w.bin'), but a float tensor of shape [2, 2] needs "
        "16: ONNX Runtime refuses to load the model."
    )
    assert node == "add_w" and "external 'length'" in hint


def test_matching_sizes_are_no_error(tmp_path: Path) -> None:
    path = tmp_path / "good.onnx"
    onnx.save(_model(_raw("W", 16), constant=helper.make_tensor("v", TensorProto.FLOAT, [2, 2], [1.0] * 4)), path)
    ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert _errors(path) == []


def test_dld_check_exits_one_and_names_the_node(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.onnx"
    onnx.save(_model(_raw("W", 20)), path)
    assert main(["check", str(path), "--json"]) == 1
    errors = [d for d in json.loads(capsys.readouterr().out) if d["severity"] == "error"]
    assert [(d["node"], d["source"]) for d in errors] == [("add_w", "structure")]
    assert "holds 20 bytes of raw data" in errors[0]["message"] and errors[0]["fix_hint"]


def test_the_background_check_of_big_models_reports_it_too(tmp_path: Path) -> None:
    """Big models are checked in a child process on a weightless skeleton; the sizes are checked in the parent."""
    path = tmp_path / "bad.onnx"
    onnx.save(_model(_raw("W", 20)), path)
    doc = Document.open(path)
    found = CheckProcess(doc.model, doc.node_id).result().diagnostics
    sizes = [d for d in found if d.source == "structure" and d.severity == "error"]
    assert [(d.node_id, d.message[:40]) for d in sizes] == [(doc.node_id(next(iter(doc.model.graph))),
                                                            "Initializer 'W' holds 20 bytes of raw da")]
