"""Create Function from Selection, Inline Function and Extract Local Function on the real ShuffleNetV2 export with
functions, checked by onnxruntime: every transform that keeps semantics gives bit-identical outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from dld_jupyter.document import Document, DocumentError, NodesRemoved
from dld_jupyter.transforms import get
from dld_jupyter.transforms.function_create import create_function_from_selection
from dld_jupyter.transforms.function_extract import extract_function_model
from dld_jupyter.transforms.function_inline import inline_function
from tests.function_support import BLOCK, BLOCK_1, IMAGE, SHUFFLENET, run, run_file


@pytest.fixture
def doc() -> Document:
    return Document.open(SHUFFLENET)


def _ops(doc: Document) -> dict[str, str]:
    return {n.id: n.op_type for n in doc.nodes() if n.kind == "op"}


def test_inline_then_create_back_gives_identical_outputs(doc: Document, tmp_path: Path) -> None:
    reference = run(doc, tmp_path)[0]
    info = next(f for f in doc.functions() if (f.name, f.domain) == BLOCK)
    instance = info.instances[1]
    passed = doc.node(instance).attributes["inferred::Conv_group"]
    events: list[object] = []
    doc.subscribe(events.extend)
    body = inline_function(doc, instance)
    assert len(body) == info.node_count
    assert doc.history[-1].startswith("Inline Function") and len(doc.history) == 1
    assert any(isinstance(e, NodesRemoved) and instance in e.node_ids for e in events)
    ops = _ops(doc)
    assert instance not in ops and {ops[i] for i in body} >= {"Conv", "Relu", "Concat", "Reshape", "Transpose"}
    # the references were resolved: the grouped Conv got the group the instance passes, no "@param" is left
    groups = [doc.node(i).attributes["group"] for i in body if ops[i] == "Conv"]
    assert passed in groups and passed != 1 and not any(isinstance(g, str) for g in groups)
    assert np.array_equal(run(doc, tmp_path)[0], reference)

    again = create_function_from_selection(doc, body, "Block", "my.blocks")
    assert doc.node(again).function == "my.blocks::Block"
    assert doc.model.opset_imports["my.blocks"] == 1
    made = next(f for f in doc.functions() if f.name == "Block")
    assert made.node_count == info.node_count and made.instances == [again]
    assert np.array_equal(run(doc, tmp_path)[0], reference)

    doc.save(tmp_path / "block.onnx")
    reloaded = Document.open(tmp_path / "block.onnx")
    assert any(f.name == "Block" for f in reloaded.functions())
    assert np.array_equal(run_file(tmp_path / "block.onnx")[0], reference)

    inline_function(doc, again)
    assert np.array_equal(run(doc, tmp_path)[0], reference)
    for _ in range(3):
        doc.undo()
    assert _ops(doc) == _ops(Document.open(SHUFFLENET)) and not doc.can_undo


def test_selection_of_real_nodes_becomes_a_function_and_inlines_back(doc: Document, tmp_path: Path) -> None:
    reference = run(doc, tmp_path)[0]
    stem = [n.id for n in doc.nodes() if n.kind == "op" and n.op_type in ("Conv", "Relu", "MaxPool")][:3]
    before = _ops(doc)
    instance = create_function_from_selection(doc, stem, "Stem", "my.blocks")
    view = doc.node(instance)
    # cut links: the image, the two Conv weights: initializers became function inputs the instance passes
    assert view.inputs[0].value_name == "input"
    assert [t.state for t in view.inputs[1:]] == ["initializer", "initializer"]
    assert [t.value_name for t in view.outputs] == ["/maxpool/MaxPool_output_0"]
    assert all(s not in _ops(doc) for s in stem)
    assert np.array_equal(run(doc, tmp_path)[0], reference)
    inline_function(doc, instance)
    assert np.array_equal(run(doc, tmp_path)[0], reference)
    doc.undo()
    doc.undo()
    assert _ops(doc) == before


def test_create_function_is_one_undo_step_through_the_registry(doc: Document) -> None:
    relu = next(n.id for n in doc.nodes() if n.op_type == "Relu")
    transform = get("create_function")
    assert transform.unmet(doc, node_ids=[]) and not transform.unmet(doc, node_ids=[relu])
    transform.apply(doc, node_ids=[relu], name="JustRelu", domain="my.blocks")
    assert doc.history == ["Create Function from Selection my.blocks::JustRelu"]
    doc.undo()
    assert all(f.name != "JustRelu" for f in doc.functions()) and "my.blocks" not in doc.model.opset_imports


def test_refusals_say_why_and_change_nothing(doc: Document) -> None:
    ops = [n for n in doc.nodes() if n.kind == "op"]
    conv, relu = next(n.id for n in ops if n.op_type == "Conv"), next(n.id for n in ops if n.op_type == "Relu")
    maxpool = next(n.id for n in ops if n.op_type == "MaxPool")
    cases = [
        (dict(node_ids=[conv, maxpool], name="Gap", domain="my.x"), "on a path between selected"),
        (dict(node_ids=[relu], name="InvertedResidual", domain=BLOCK[1]), "already has a function"),
        (dict(node_ids=[relu], name="Bad name", domain="my.x"), "not a usable function name"),
        (dict(node_ids=[relu], name="Ok", domain=""), "not a usable function domain"),
        (dict(node_ids=[], name="Ok", domain="my.x"), "no operator is selected"),
    ]
    for args, why in cases:
        with pytest.raises(DocumentError, match=why):
            get("create_function").apply(doc, **args)
    with pytest.raises(DocumentError, match="not a local function instance"):
        inline_function(doc, conv)
    assert doc.history == [] and not doc.dirty


def test_extracted_function_model_matches_the_instance_inside_the_model(doc: Document, tmp_path: Path) -> None:
    info = next(f for f in doc.functions() if (f.name, f.domain) == BLOCK_1)
    instance = doc.node(info.instances[0])
    path = extract_function_model(doc, *BLOCK_1, tmp_path / "block1.onnx")
    onnx.checker.check_model(onnx.load(path), full_check=True)
    assert not doc.dirty and doc.history == []
    # the instance's inputs and output, read from the whole model with them exposed as graph outputs
    probe = Document.open(SHUFFLENET)
    probe.add_graph_output(instance.id, 0)
    weights = {v.name: v.const_value.numpy() for v in doc.model.graph.initializers.values() if v.const_value}
    for edge in probe.edges():
        if edge.dst == instance.id:
            probe.add_graph_output(edge.src, edge.src_index)
    seen = dict(zip((v.name for v in probe.model.graph.outputs), run(probe, tmp_path), strict=True))
    seen.update(weights)
    feeds = {formal: seen[str(t.value_name)] for formal, t in zip(info.inputs, instance.inputs, strict=True)}
    # weights are runtime inputs there, constants here: onnxruntime fuses differently, so equal to rounding
    expected = seen[str(instance.outputs[0].value_name)]
    np.testing.assert_allclose(run_file(path, feeds)[0], expected, rtol=1e-5, atol=1e-6)


def test_extract_needs_known_input_types(doc: Document, tmp_path: Path) -> None:
    doc.create_function("Fresh", "my.blocks")
    with pytest.raises(DocumentError, match="type of input 'x' is not known"):
        extract_function_model(doc, "Fresh", "my.blocks", tmp_path / "fresh.onnx")
    assert not (tmp_path / "fresh.onnx").exists() and IMAGE.shape == (1, 3, 64, 64)
