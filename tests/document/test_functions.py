"""The parent document's local functions on the real ShuffleNetV2 export: the list, create, delete (instances become
custom operators, seed 000 "Local Functions"), each one undo step with events for every instance."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.document import Document, DocumentError, ModelInfoChanged, NodesChanged
from tests.function_support import BLOCK, BLOCK_1, IMAGE, SHUFFLENET, run


def test_functions_lists_the_real_exports_functions() -> None:
    doc = Document.open(SHUFFLENET)
    infos = {(f.name, f.domain): f for f in doc.functions.list()}
    assert set(infos) == {BLOCK, BLOCK_1}
    block = infos[BLOCK]
    assert block.overload == "" and block.outputs == ["onnx::Shape_580"] and len(block.inputs) == 11
    assert block.node_count == 14 and len(block.instances) == 3 and len(infos[BLOCK_1].instances) == 13
    first = block.parameters[0]
    assert (first.name, first.type, first.default) == ("inferred::Constant_value", "UNDEFINED", None)
    for node_id in block.instances:
        assert doc.node(node_id).function == f"{BLOCK[1]}::{BLOCK[0]}"


def test_create_function_is_valid_saved_and_undoable(tmp_path: Path) -> None:
    doc = Document.open(SHUFFLENET)
    events: list[object] = []
    doc.subscribe(events.extend)
    doc.functions.create("Scale", "my.ops", inputs=("a", "b"), outputs=("y", "z"))
    info = next(f for f in doc.functions.list() if f.name == "Scale")
    assert (info.inputs, info.outputs, info.node_count, info.instances) == (["a", "b"], ["y", "z"], 2, [])
    assert doc.model.opset_imports["my.ops"] == 1 and doc.history == ["Create function my.ops::Scale"]
    assert any(isinstance(e, ModelInfoChanged) for e in events)
    # an instance of the new (pass-through) function runs in onnxruntime
    node = doc.add_node("Scale", "my.ops")
    doc.add_graph_input(node, 0, "p", "float", [2])
    doc.add_graph_input(node, 1, "q", "float", [2])
    doc.add_graph_output(node, 1, "z_out")
    doc.save(tmp_path / "scale.onnx")
    session = ort.InferenceSession(str(tmp_path / "scale.onnx"), providers=["CPUExecutionProvider"])
    p = np.array([1.5, 2.5], np.float32)
    outputs = session.run(["z_out"], {"input": IMAGE, "p": p, "q": 2 * p})
    assert np.array_equal(outputs[0], 2 * p)
    assert any(f.name == "Scale" for f in Document.open(tmp_path / "scale.onnx").functions.list())
    for _ in range(5):
        doc.undo()
    assert "my.ops" not in doc.model.opset_imports and len(doc.functions.list()) == 2


@pytest.mark.parametrize(
    ("name", "domain", "inputs", "outputs", "why"),
    [
        ("InvertedResidual", BLOCK[1], ("x",), ("y",), "already has a function"),
        ("1abc", "my.ops", ("x",), ("y",), "not a usable function name"),
        ("Ok", "", ("x",), ("y",), "operators of the runtimes live there"),
        ("Ok", "com.microsoft", ("x",), ("y",), "operators of the runtimes live there"),
        ("Ok", "my ops", ("x",), ("y",), "not a usable function domain"),
        ("Ok", "my.ops", (), ("y",), "at least one input and one output"),
        ("Ok", "my.ops", ("x",), ("x",), "must all differ"),
        ("Ok", "my.ops", ("x", ""), ("y",), "not a usable input/output name"),
    ],
)
def test_create_function_refuses_bad_names(
    name: str, domain: str, inputs: tuple[str, ...], outputs: tuple[str, ...], why: str
) -> None:
    doc = Document.open(SHUFFLENET)
    with pytest.raises(DocumentError, match=why):
        doc.functions.create(name, domain, inputs, outputs)
    assert doc.history == [] and len(doc.functions.list()) == 2


def test_delete_function_leaves_custom_operators_and_undo_restores(tmp_path: Path) -> None:
    doc = Document.open(SHUFFLENET)
    reference = run(doc, tmp_path)[0]
    instances = next(f for f in doc.functions.list() if (f.name, f.domain) == BLOCK).instances
    events: list[object] = []
    doc.subscribe(events.extend)
    doc.functions.delete(*BLOCK)
    changed = {n for e in events if isinstance(e, NodesChanged) for n in e.node_ids}
    assert set(instances) <= changed
    for node_id in instances:
        view = doc.node(node_id)
        assert (view.op_type, view.domain, view.function, view.is_composite) == (BLOCK[0], BLOCK[1], None, False)
        assert [t.name for t in view.inputs][:2] == ["input_0", "input_1"]  # no schema: a custom operator
    doc.save(tmp_path / "custom.onnx")
    saved = onnx.load(tmp_path / "custom.onnx")
    assert [f.name for f in saved.functions] == [BLOCK_1[0]]
    assert {o.domain for o in saved.opset_import} >= {BLOCK[1]}
    with pytest.raises(Exception, match="InvertedResidual"):
        ort.InferenceSession(str(tmp_path / "custom.onnx"), providers=["CPUExecutionProvider"])
    doc.undo()
    assert doc.node(instances[0]).function == f"{BLOCK[1]}::{BLOCK[0]}"
    assert [f.name for f in doc.functions.list()] == [BLOCK_1[0], BLOCK[0]]
    assert np.array_equal(run(doc, tmp_path)[0], reference)
    with pytest.raises(DocumentError, match=r"no local function my\.ops::Nope"):
        doc.functions.delete("Nope", "my.ops")
