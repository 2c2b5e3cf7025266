"""Unnamed nodes get a unique name on opening (seed 000: "automatically generated … if not present in the ONNX model"),
the name Model Explorer's ONNX adapter gives them (onnx-ir's NameFixPass), in the main graph, its subgraphs and local
function bodies; a given name is never changed, the document opens clean, a save writes the names. Every consumer
that keyed unnamed nodes (the profiler's report, heat, report links, node data, the analysis debugger, the diff)
agrees with those names. Before, two unnamed Relu both stayed `''` (their node-data keys and report names differed).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import onnx
import onnx_ir as ir
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx_ir.passes.common import NameFixPass

from dld_jupyter.document import Document
from dld_jupyter.document.layout.explorer_ids import explorer_node_ids
from dld_jupyter.document.layout.metadata import POSITIONS_KEY
from dld_jupyter.formats.node_names import NameNode, names_for_unnamed, pass_names, proto_tree

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def stripped(name: str) -> onnx.ModelProto:
    """A real export with every node's name dropped: main graph, subgraphs and local function bodies."""
    model = onnx.load(str(REAL / name))

    def strip(nodes: object) -> None:
        for node in nodes:  # type: ignore[attr-defined]
            node.name = ""
            for attr in node.attribute:
                for graph in [attr.g] if attr.type == onnx.AttributeProto.GRAPH else attr.graphs:
                    strip(graph.node)

    strip(model.graph.node)
    for function in model.functions:
        strip(function.node)
    return model


def saved(model: onnx.ModelProto, path: Path) -> Path:
    onnx.save(model, str(path))
    return path


def pass_names_of(path: Path) -> list[str]:
    """What NameFixPass (Model Explorer's naming) names every node of the file, main graph and subgraphs, in order."""
    model = ir.load(path)
    NameFixPass()(model)
    return [node.name for node in ir.traversal.RecursiveGraphIterator(model.graph)]


def test_two_unnamed_relu_get_model_explorers_names_and_open_clean(tmp_path: Path) -> None:
    graph = h.make_graph([h.make_node("Relu", ["x"], ["a"]), h.make_node("Relu", ["a"], ["y"])], "g",
                         [h.make_tensor_value_info("x", T.FLOAT, [2])], [h.make_tensor_value_info("y", T.FLOAT, [2])])
    path = saved(h.make_model(graph), tmp_path / "relu.onnx")
    doc = Document.open(path)
    assert [node.name for node in doc.model.graph] == ["node", "node_1"] == pass_names_of(path)
    assert explorer_node_ids(doc.model.graph) == ["node", "node_1"]  # the node-data keys are the names
    assert not doc.dirty  # opening made no edit: closing asks nothing, the next opening names them the same
    info = [d for d in doc.check() if "named on opening" in d.message]
    assert len(info) == 1 and "2 nodes had no name" in info[0].message and info[0].severity == "info"
    doc.save()
    assert [node.name for node in onnx.load(str(path)).graph.node] == ["node", "node_1"]  # a save writes them
    assert not [d for d in doc.check() if "named on opening" in d.message]
    assert not [d for d in Document.open(path).check() if "named on opening" in d.message]


def test_a_real_export_without_names_is_named_as_model_explorer_names_it(tmp_path: Path) -> None:
    path = saved(stripped("mobilenet_v3_small_w05.onnx"), tmp_path / "unnamed.onnx")
    doc = Document.open(path)
    names = [node.name for node in doc.model.graph]
    assert names == pass_names_of(path) and len(set(names)) == len(names) == 164
    assert [view.name for view in doc.nodes() if view.kind == "op"] == names  # what the canvas and explorer show
    from model_explorer_onnx.main import ONNXAdapter

    adapter = {node.id for node in ONNXAdapter().convert(str(path), {})["graphs"][0].nodes}
    assert set(names) <= adapter


def test_given_names_are_kept_and_generated_ones_never_take_them(tmp_path: Path) -> None:
    model = stripped("mobilenet_v3_small_w05.onnx")
    model.graph.node[0].name = "node_1"  # what the pass would generate for the second unnamed node
    model.graph.node[5].name = model.graph.node[6].name = "twice"  # a repeated name stays repeated
    path = saved(model, tmp_path / "clash.onnx")
    doc = Document.open(path)
    names = [node.name for node in doc.model.graph]
    assert names[0] == "node_1" and names[5] == names[6] == "twice"
    counts = Counter(names)
    assert all(count == 1 for name, count in counts.items() if name != "twice")
    # Model Explorer sees the file as it is on disk until a save: the clashing node keeps the pass's id there
    ids = explorer_node_ids(doc.model.graph)
    assert ids == [node.name for node in ir.traversal.RecursiveGraphIterator(_passed(path).graph)]
    doc.save()
    assert explorer_node_ids(doc.model.graph) == [node.name for node in _passed(path).graph]


def _passed(path: Path) -> ir.Model:
    model = ir.load(path)
    NameFixPass()(model)
    return model


def test_subgraph_and_function_bodies_are_named(tmp_path: Path) -> None:
    path = saved(stripped("gru_scripted.onnx"), tmp_path / "gru.onnx")  # a scripted GRU: a Loop body
    doc = Document.open(path)
    every = [node.name for node in ir.traversal.RecursiveGraphIterator(doc.model.graph)]
    assert all(every) and every == pass_names_of(path)  # subgraphs share the pass's counter with the main graph
    loop = next(view.id for view in doc.nodes() if view.op_type == "Loop")
    body = doc.subgraphs.open(loop, "body")
    assert all(view.name for view in body.nodes() if view.kind == "op")

    path = saved(stripped("shufflenet_functions_small.onnx"), tmp_path / "functions.onnx")
    doc = Document.open(path)
    original = onnx.load(str(path))
    model = ir.load(path)
    NameFixPass()(model)  # the pass names each function apart from the graph
    for function in doc.model.functions.values():
        names = [node.name for node in function]
        assert all(names) and names == [node.name for node in model.functions[function.identifier()]]
    assert not any(node.name for f in original.functions for node in f.node)
    info = next(d for d in doc.check() if "named on opening" in d.message)
    total = len(doc.model.graph) + sum(len(f) for f in doc.model.functions.values())
    assert info.message.startswith(f"{total} nodes had no name")


def test_positions_saved_before_names_are_kept(tmp_path: Path) -> None:
    """A file saved by an earlier version keyed an unnamed node's canvas position `#<index>`."""
    model = stripped("mobilenet_v3_small_w05.onnx")
    positions = {"version": 1, "nodes": {"#0": [10.0, 20.0], "#7": [30.0, 40.0]}}
    model.metadata_props.add(key=POSITIONS_KEY, value=json.dumps(positions))
    doc = Document.open(saved(model, tmp_path / "placed.onnx"))
    by_name = {view.name: view.position for view in doc.nodes() if view.kind == "op"}
    assert by_name["node"] == (10.0, 20.0) and by_name["node_7"] == (30.0, 40.0)


def test_the_rule_is_name_fix_pass_on_random_trees() -> None:
    """formats/node_names.py (plain Python: the profiler's worker has no onnx-ir) against the pass itself, on
    random graphs of If nodes whose branches hold nodes named like the pass's own names, repeated and empty."""
    rng = random.Random(7)
    choices = ["", "", "", "node", "node_1", "node_2", "x", "x_1"]
    count = 0

    def graph(depth: int) -> onnx.GraphProto:
        nonlocal count
        nodes, last = [], "x_in"
        for _ in range(rng.randint(1, 6)):
            count += 1
            out, name = f"t{count}", rng.choice(choices)
            if depth < 2 and rng.random() < 0.3:
                branches = {"then_branch": graph(depth + 1), "else_branch": graph(depth + 1)}
                nodes.append(h.make_node("If", ["c"], [out], name=name, **branches))
            else:
                nodes.append(h.make_node("Identity", [last], [out], name=name))
            last = out
        return h.make_graph(nodes, f"g{count}", [], [h.make_tensor_value_info(last, T.FLOAT, [1])])

    for _ in range(300):
        proto = h.make_model(graph(0))
        tree = proto_tree(proto.graph.node)
        model = ir.serde.deserialize_model(proto)
        NameFixPass()(model)
        passed = [node.name for node in ir.traversal.RecursiveGraphIterator(model.graph)]
        assert [name for _key, name in pass_names(tree)] == passed
        walk = _walk(tree)  # (given name, graph number) in the pass's order
        generated = {position: name for position, _key, name in names_for_unnamed(tree)}
        assert set(generated) == {p for p, (given, _g) in enumerate(walk) if not given}  # a given name is kept
        for position, name in generated.items():
            graph_of = walk[position][1]
            given = {g for g, number in walk if number == graph_of and g}
            fresh = [generated[p] for p, (_n, number) in enumerate(walk) if number == graph_of and p in generated]
            assert name not in given and fresh.count(name) == 1  # unique in its graph
            assert name == passed[position] or passed[position] in given  # the pass's name unless a given one


def _walk(tree: list[NameNode[Any]], out: list[tuple[str, int]] | None = None,
          graphs: list[int] | None = None) -> list[tuple[str, int]]:
    """(given name, number of its graph) of each node of the tree, in the pass's order."""
    out = [] if out is None else out
    graphs = [0] if graphs is None else graphs
    mine = graphs[0]
    graphs[0] += 1
    for node in tree:
        out.append((node.name, mine))
        for sub in node.subgraphs:
            _walk(sub, out, graphs)
    return out


@pytest.mark.parametrize("optimize", [False, True])
def test_the_profile_names_unnamed_nodes_as_the_designer_does(tmp_path: Path, optimize: bool) -> None:
    from dld_jupyter.activities.api import profile
    from dld_jupyter.reports.heat import heat_of
    from dld_jupyter.widgets.canvas.overlays.heat_payload import node_names
    from dld_jupyter.widgets.report.report_links import ModelGraph

    path = saved(stripped("mobilenet_v3_small_w05.onnx"), tmp_path / "unnamed.onnx")
    report = profile(str(path), iterations=2, warmup=1, optimize=optimize, output=str(tmp_path / "r.json"))
    doc = Document.open(path)
    names = {node.name for node in doc.model.graph}
    reported = {name for layer in report.layers for name in layer.onnx_nodes}
    assert reported and reported <= names  # every layer maps back to the designer's nodes
    heat = heat_of(report)
    hot = [nid for nid, name in node_names(doc).items() if heat.layers_of.get(name)]
    assert len(hot) >= 0.9 * len(reported)
    assert set(ModelGraph.load(str(path)).inputs) == names  # report links resolve the same names


def test_the_diff_and_the_debugger_know_the_generated_names(tmp_path: Path) -> None:
    from dld_jupyter.activities.analysis.graph import MainGraph
    from dld_jupyter.model_compare import diff

    path = saved(stripped("mobilenet_v3_small_w05.onnx"), tmp_path / "unnamed.onnx")
    doc = Document.open(path)
    doc.save(tmp_path / "named.onnx")  # the same model with its names written
    result = diff(path, tmp_path / "named.onnx")
    assert result.identical and result.graph.renamed == 0  # the file without names is the one with them
    keys = MainGraph(onnx.load(str(path)).graph).keys  # a breakpoint on `node_3` is the designer's node_3
    assert keys == [node.name for node in doc.model.graph]
