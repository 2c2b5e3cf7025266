"""Create Function from Selection, Inline Function and Extract Local Function on the real ShuffleNetV2 export with
functions, checked by onnxruntime: every transform that keeps semantics gives bit-identical outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
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
    info = next(f for f in doc.functions.list() if (f.name, f.domain) == BLOCK)
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
    made = next(f for f in doc.functions.list() if f.name == "Block")
    assert made.node_count == info.node_count and made.instances == [again]
    assert np.array_equal(run(doc, tmp_path)[0], reference)

    doc.save(tmp_path / "block.onnx")
    reloaded = Document.open(tmp_path / "block.onnx")
    assert any(f.name == "Block" for f in reloaded.functions.list())
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
    assert all(f.name != "JustRelu" for f in doc.functions.list()) and "my.blocks" not in doc.model.opset_imports


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
    info = next(f for f in doc.functions.list() if (f.name, f.domain) == BLOCK_1)
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
    doc.functions.create("Fresh", "my.blocks")
    with pytest.raises(DocumentError, match="type of input 'x' is not known"):
        extract_function_model(doc, "Fresh", "my.blocks", tmp_path / "fresh.onnx")
    assert not (tmp_path / "fresh.onnx").exists() and IMAGE.shape == (1, 3, 64, 64)


@pytest.mark.parametrize("model", ["bert_tiny", "gpt2_tiny", "mobilenet_v3_small_w05"])
def test_windows_of_real_exports_become_functions_and_inline_back_bit_identical(model: str, tmp_path: Path) -> None:
    path = SHUFFLENET.parent / f"{model}.onnx"
    doc = Document.open(path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    feeds = {
        i.name: np.ones([d if isinstance(d, int) else 2 for d in i.shape], np.int64)
        if "int" in i.type
        else rng.standard_normal([d if isinstance(d, int) else 2 for d in i.shape]).astype(np.float32)
        for i in session.get_inputs()
    }
    reference = session.run(None, feeds)
    ops = [n.id for n in doc.nodes() if n.kind == "op"]
    for trial, (start, size) in enumerate([(len(ops) // 5, 3), (len(ops) // 2, 6), (2 * len(ops) // 3, 8)]):
        instance = create_function_from_selection(doc, ops[start : start + size], f"Window{trial}", "my.windows")
        assert doc.node(instance).function == f"my.windows::Window{trial}"
        for got, want in zip(run(doc, tmp_path, feeds), reference, strict=True):
            assert np.array_equal(got, want)
        inline_function(doc, instance)
        for got, want in zip(run(doc, tmp_path, feeds), reference, strict=True):
            assert np.array_equal(got, want)
        doc.undo()
        doc.undo()
    assert not doc.can_undo


def _odd_function_model(path: Path) -> None:
    """A function with a pass-through output, a parameter with a default and one without."""
    from onnx import TensorProto, helper

    leaky = helper.make_node("LeakyRelu", ["x"], ["y"], name="Leaky")
    leaky.attribute.append(helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT))
    scale = helper.make_node("Mul", ["y", "s"], ["z"], name="Scale")
    gain = helper.make_node("Constant", [], ["s"], name="Gain")
    gain.attribute.append(helper.make_attribute_ref("value_float", onnx.AttributeProto.FLOAT))
    gain.attribute[0].ref_attr_name = "gain"  # the parameter's name differs from the attribute's
    function = helper.make_function(
        "my.odd",
        "Odd",
        ["x"],
        ["x", "z"],
        [leaky, gain, scale],
        [helper.make_opsetid("", 17)],
        attributes=["alpha"],
        attribute_protos=[helper.make_attribute("gain", 3.0)],
    )
    call = helper.make_node("Odd", ["a"], ["p", "q"], domain="my.odd", name="call", alpha=0.5)
    call2 = helper.make_node("Odd", ["a"], ["p2", "q2"], domain="my.odd", name="call2")
    graph = helper.make_graph(
        [call, call2],
        "odd",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("p", "q", "q2")],
    )
    model = helper.make_model(
        graph, functions=[function], opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("my.odd", 1)]
    )
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)


def test_inline_handles_pass_through_outputs_and_parameter_defaults(tmp_path: Path) -> None:
    _odd_function_model(tmp_path / "odd.onnx")
    a = np.array([-2.0, -1.0, 0.5, 3.0], np.float32)
    feeds = {"a": a}
    # what ONNX says the calls compute (onnxruntime 1.31 refuses to load a function whose output is its input)
    reference = [a, np.where(a > 0, a, np.float32(0.5) * a) * 3, np.where(a > 0, a, np.float32(0.01) * a) * 3]
    doc = Document.open(tmp_path / "odd.onnx")
    calls = [n.id for n in doc.nodes() if n.op_type == "Odd"]
    for call in calls:
        inline_function(doc, call)
    assert not [n for n in doc.nodes() if n.op_type == "Odd"]
    leaky = [n.attributes.get("alpha") for n in doc.nodes() if n.op_type == "LeakyRelu"]
    assert sorted(leaky, key=str) == [0.5, None]  # passed by call; dropped for call2 (no default): LeakyRelu's 0.01
    assert [n.attributes["value_float"] for n in doc.nodes() if n.op_type == "Constant"] == [3.0, 3.0]
    assert sum(n.op_type == "Identity" for n in doc.nodes()) == 2  # the pass-through output, per call
    assert [v.name for v in doc.model.graph.outputs] == ["p", "q", "q2"]
    doc.functions.delete("Odd", "my.odd")  # no instance left; onnxruntime would still validate the definition
    for got, want in zip(run(doc, tmp_path, feeds), reference, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
