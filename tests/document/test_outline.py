"""The outline read from a protobuf hands out the Document's ids and draws the Document's node views; a big model
opens in two halves (document/files/loading.py) and its document is the one Document.open gives."""

from __future__ import annotations

import pathlib
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.files.loading import DocumentLoad, open_for_view
from dld_jupyter.document.layout.outline import Outline
from tests.models import generated_graph, resnet_like, transformer_like


def varied_model() -> onnx.ModelProto:
    """Every kind of terminal an outline must get right: Constant-fed, initializer-fed (one also a graph input),
    an omitted optional input, a variadic Concat, an unused output, an If with subgraphs, a local function, and a
    graph output that is a graph input."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    w_in = helper.make_tensor_value_info("w", TensorProto.FLOAT, [3])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    then_out = helper.make_tensor_value_info("t", TensorProto.FLOAT, [2, 3])
    else_out = helper.make_tensor_value_info("e", TensorProto.FLOAT, [2, 3])
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"], name="then_id")], "then", [], [then_out])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="else_neg")], "else", [], [else_out])
    fn = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 17)])
    nodes = [
        helper.make_node("Constant", [], ["c"], name="/scope/c",
                         value=numpy_helper.from_array(np.ones(3, np.float32))),
        helper.make_node("Add", ["x", "c"], ["a1"], name="/scope/add"),
        helper.make_node("Mul", ["a1", "w"], ["m1"], name="/scope/inner/mul"),
        helper.make_node("Clip", ["m1", "", "hi"], ["k1"], name="clip"),
        helper.make_node("Concat", ["k1", "a1", "m1"], ["cat"], name="cat", axis=0),
        helper.make_node("Split", ["cat"], ["s0", "s1"], name="split", axis=0, num_outputs=2),
        helper.make_node("If", ["cond"], ["iff"], name="branch", then_branch=then_g, else_branch=else_g),
        helper.make_node("Twice", ["s0"], ["tw"], name="fn", domain="local"),
    ]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("iff", "tw", "x")]
    graph = helper.make_graph(nodes, "varied", [x, w_in, cond], outputs, initializer=[
        numpy_helper.from_array(np.full(3, 2, np.float32), "w"),
        numpy_helper.from_array(np.array(6, np.float32), "hi"),
    ])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
                             functions=[fn], ir_version=9)


MODELS = {
    "varied": varied_model,
    "resnet": resnet_like,
    "transformer": lambda: transformer_like(layers=2),
    "generated": lambda: generated_graph(500),
}


def _terminals(terminals: list) -> list[tuple]:
    return [(t.index, t.name, t.value_name, t.optional, t.variadic, t.state) for t in terminals]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_outline_ids_links_and_views_are_the_documents(tmp_path: pathlib.Path, name: str) -> None:
    path = tmp_path / f"{name}.onnx"
    onnx.save(MODELS[name](), path)
    doc = Document.open(path)
    outline = Outline(onnx.load(path))
    views = doc.nodes()
    assert outline.order == [v.id for v in views]
    assert set(outline.edges) == {e.id for e in doc.edges()}
    for edge in doc.edges():
        raw = outline.edges[edge.id]
        assert (raw.src, raw.si, raw.dst, raw.di, raw.value) == (
            edge.src, edge.src_index, edge.dst, edge.dst_index, edge.value_name)
    for view in views:
        mine = outline.node_view(view.id)
        assert (mine.name, mine.kind, mine.op_type, mine.domain, mine.group) == (
            view.name, view.kind, view.op_type, view.domain, view.group), view.id
        assert (mine.is_composite, mine.subgraphs, mine.function) == (
            view.is_composite, view.subgraphs, view.function), view.id
        assert _terminals(mine.inputs) == _terminals(view.inputs), view.id
        assert _terminals(mine.outputs) == _terminals(view.outputs), view.id
        assert outline.op_type[view.id] == view.op_type


def test_big_sorted_models_load_in_two_halves(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "g.onnx"
    onnx.save(generated_graph(600), path)
    assert isinstance(open_for_view(path, min_nodes=10_000), Document)  # small: opened whole
    load = open_for_view(path, min_nodes=500)
    assert isinstance(load, DocumentLoad)
    assert (load.name, load.node_count, load.done()) == ("g", 600, False)
    called = threading.Event()
    seen: list[DocumentLoad] = []
    load.on_done(lambda done: (seen.append(done), called.set()))
    assert load.outline.order[1] == "n0"  # read before the document is built
    doc = load.result(timeout=60)
    assert called.wait(10) and seen == [load] and load.done() and load.seconds is not None
    whole = Document.open(path)
    assert [v.id for v in doc.nodes()] == [v.id for v in whole.nodes()]
    assert doc.path == path and not doc.dirty
    late: list[DocumentLoad] = []
    load.on_done(late.append)  # after the end: called at once
    assert late == [load]
    unread = open_for_view(path, min_nodes=500)
    assert isinstance(unread, DocumentLoad)
    unread.result(timeout=60)
    with pytest.raises(DocumentError, match="loaded already"):
        unread.outline  # noqa: B018 (its protobuf was released with the build)


def test_unsorted_files_are_opened_whole_and_broken_files_refused_at_once(tmp_path: pathlib.Path) -> None:
    model = generated_graph(600)
    nodes = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(reversed(nodes))  # acyclic but not sorted: the document renumbers it when sorting
    path = tmp_path / "unsorted.onnx"
    onnx.save(model, path)
    assert isinstance(open_for_view(path, min_nodes=10), Document)
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(path.read_bytes()[:200])
    with pytest.raises(DocumentError, match="truncated or corrupt"):
        open_for_view(broken, min_nodes=10)


def test_a_failed_build_is_raised_by_result(tmp_path: pathlib.Path) -> None:
    model = generated_graph(600)
    model.graph.input[0].type.tensor_type.elem_type = 999  # no such element type: the checks pass, ir refuses
    path = tmp_path / "bad.onnx"
    onnx.save(model, path)
    load = open_for_view(path, min_nodes=10)
    assert isinstance(load, DocumentLoad)
    with pytest.raises(DocumentError, match=r"bad\.onnx.*not a valid DataType"):
        load.result(timeout=60)


def test_unsorted_files_get_every_link_too() -> None:
    """The outline links values in one pass when producers come first; a file that uses a value before the node
    that makes it is linked in a second pass, with the same links as a sorted copy."""
    model = generated_graph(40)
    links = Outline(model).links
    reversed_model = onnx.ModelProto()
    reversed_model.CopyFrom(model)
    nodes = list(reversed_model.graph.node)[::-1]
    del reversed_model.graph.node[:]
    reversed_model.graph.node.extend(nodes)
    unsorted = Outline(reversed_model)
    last = len(nodes) - 1  # node k of the reversed file is node last - k of the sorted one
    renamed = {(s if s[0] != "n" else f"n{last - int(s[1:])}", si, d if d[0] != "n" else f"n{last - int(d[1:])}",
                di, v) for s, si, d, di, v in unsorted.links}
    assert renamed == set(links) and len(unsorted.links) == len(links)
