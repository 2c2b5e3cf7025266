"""Node data lands on Model Explorer's nodes: keys are the ids its ONNX adapter gives them, unnamed nodes included.

model-explorer-onnx names nodes with onnx-ir's NameFixPass; document/layout/explorer_ids.py runs that pass on a
skeleton. Checked against the pass itself (subgraphs, repeated names, generated names colliding with given ones) and
against the real adapter (its `convert`, key by key) on a real export whose nodes lost their names, for the divergence,
the heat of a real ONNX Runtime profile and the structural diff, each written by its CLI verb. Before the ids, the
divergence wrote `Conv #48` for an unnamed node, which matched none of the adapter's ids. """

from __future__ import annotations

import json
import shutil
from pathlib import Path

import onnx
import onnx_ir as ir
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper
from onnx_ir.passes.common import NameFixPass

from dld_jupyter.cli.main import main
from dld_jupyter.document.layout.explorer_ids import explorer_ids, explorer_node_ids
from dld_jupyter.formats.node_names import name_unnamed_nodes
from dld_jupyter.model_compare import diverge, read_node_data, to_node_data

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


def unnamed(path: Path = MODEL, keep: int = 0) -> onnx.ModelProto:
    """The real export with every node's name dropped but the first `keep`, and one named as the pass would name
    another (ONNX Runtime refuses repeated names; branchy() has them)."""
    model = onnx.load(str(path))
    for i, node in enumerate(model.graph.node):
        node.name = node.name if i < keep else ""
    model.graph.node[9].name = "node_1"  # what the pass would generate for the second unnamed node
    return model


def branchy() -> onnx.ModelProto:
    """Unnamed nodes in an If's branches (they share the pass's counter with the main graph) between main nodes."""
    out = h.make_tensor_value_info
    then = h.make_graph([h.make_node("Identity", ["x"], ["t1"]), h.make_node("Identity", ["t1"], ["t2"], name="node")],
                        "then", [], [out("t2", T.FLOAT, [1])])
    other = h.make_graph([h.make_node("Identity", ["x"], ["e1"])], "else", [], [out("e1", T.FLOAT, [1])])
    graph = h.make_graph([
        h.make_node("Relu", ["x"], ["a"]), h.make_node("Relu", ["a"], ["b"], name="dup"),
        h.make_node("Relu", ["b"], ["c"], name="dup"),
        h.make_node("If", ["cond"], ["d"], then_branch=then, else_branch=other),
        h.make_node("Relu", ["c"], ["e"]), h.make_node("Relu", ["e"], ["f"], name="node_1"),
    ], "g", [out("x", T.FLOAT, [1]), out("cond", T.BOOL, [])], [out("f", T.FLOAT, [1]), out("d", T.FLOAT, [1])])
    return h.make_model(graph)


@pytest.mark.parametrize("make", [branchy, unnamed], ids=["subgraphs", "real-export"])
def test_ids_are_what_name_fix_pass_names_every_node(make: object) -> None:
    model = ir.serde.deserialize_model(make())  # type: ignore[operator]
    ours = explorer_ids(model.graph)
    nodes = list(model.graph.all_nodes())
    before = [node.name for node in nodes]
    assert [ours[id(node)] for node in nodes] and before == [node.name for node in nodes]  # the model is not renamed
    NameFixPass()(model)
    assert [ours[id(node)] for node in nodes] == [node.name for node in nodes]


def adapter_ids(path: Path) -> dict[str, str]:
    """Op node id -> its op type, as Model Explorer's ONNX adapter draws the main graph of the file."""
    from model_explorer_onnx.main import ONNXAdapter

    graphs = ONNXAdapter().convert(str(path), {})["graphs"]
    main_graph = graphs[0]
    return {node.id: node.label for node in main_graph.nodes}


@pytest.fixture(scope="module")
def stripped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("unnamed")
    path = folder / "unnamed.onnx"
    onnx.save(unnamed(), str(path))
    return path, adapter_ids(path)


def test_the_onnx_adapter_shows_every_node_under_our_id(stripped: tuple[Path, dict[str, str]]) -> None:
    path, adapter = stripped
    model = onnx.load(str(path), load_external_data=False)
    ours = explorer_node_ids(ir.serde.deserialize_model(model).graph)
    assert len(set(ours)) == len(ours) == len(model.graph.node)
    for key, node in zip(ours, model.graph.node, strict=True):
        assert adapter.get(key) == node.op_type, key


def test_divergence_node_data_of_an_unnamed_model_keys_every_paired_node(
        stripped: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, adapter = stripped
    candidate = onnx.load(str(path))
    weight = next(t for t in candidate.graph.initializer if numpy_helper.to_array(t).ndim == 4)
    weight.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(weight) * 1.5, weight.name))
    onnx.save(candidate, str(tmp_path / "candidate.onnx"))
    result = diverge(path, tmp_path / "candidate.onnx", tolerance=0.0)  # random inputs of the model's shape
    data = to_node_data(result)
    assert data["results"] and set(data["results"]) <= set(adapter)
    assert len(data["results"]) == len({row.order for row in result.rows})  # one key per compared node
    assert not any("#" in key for key in data["results"])


def test_cli_report_node_data_keys_the_heat_by_adapter_id(stripped: tuple[Path, dict[str, str]], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from dld_jupyter.activities.api import profile
    from dld_jupyter.reports.heat import heat_of

    path, adapter = stripped
    model = tmp_path / "m.onnx"
    shutil.copy(path, model)
    report = profile(str(model), iterations=3, warmup=1, output=str(tmp_path / "m.dld-report.json"))
    assert main(["report", "node-data", str(tmp_path / "m.dld-report.json"), "-o", str(tmp_path / "heat.json")]) == 0
    values = read_node_data(tmp_path / "heat.json")
    assert values and set(values) <= set(adapter)
    heat = heat_of(report)
    named = onnx.load(str(model), load_external_data=False)
    name_unnamed_nodes(named)  # the report names unnamed nodes as opening does
    ids = explorer_node_ids(ir.serde.deserialize_model(onnx.load(str(model), load_external_data=False)).graph)
    for key, node in zip(ids, named.graph.node, strict=True):
        time = heat.node_value(node.name)
        assert values.get(key) == (pytest.approx(time) if time is not None else None)
    model.rename(tmp_path / "moved.onnx")  # the report's model is gone: said, and --model given instead works
    assert main(["report", "node-data", str(tmp_path / "m.dld-report.json"), "-o", str(tmp_path / "h2.json")]) == 2
    assert "--model" in capsys.readouterr().err
    assert main(["report", "node-data", str(tmp_path / "m.dld-report.json"), "-o", str(tmp_path / "h2.json"),
                 "--model", str(tmp_path / "moved.onnx"), "--metric", "share"]) == 0
    assert set(read_node_data(tmp_path / "h2.json")) == set(values)


def test_cli_diff_node_data_marks_b_by_adapter_id(stripped: tuple[Path, dict[str, str]], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path, adapter = stripped
    b = onnx.load(str(path))
    weight = next(t for t in b.graph.initializer if numpy_helper.to_array(t).ndim == 4)
    weight.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(weight) * 1.5, weight.name))
    onnx.save(b, str(tmp_path / "b.onnx"))
    out = tmp_path / "diff.json"
    assert main(["diff", str(path), str(tmp_path / "b.onnx"), "--node-data", str(out)]) == 0
    data = json.loads(out.read_text())["results"]
    assert set(data) == set(adapter) & set(data) and len(data) == len(b.graph.node)  # every node of B, by its id
    changed = [key for key, result in data.items() if result["value"] == 1.0]
    user = next(i for i, node in enumerate(b.graph.node) if weight.name in node.input)
    ids = explorer_node_ids(ir.serde.deserialize_model(onnx.load(str(tmp_path / "b.onnx"))).graph)
    assert changed == [ids[user]] and data[ids[user]]["bgColor"].startswith("#")
    capsys.readouterr()
    assert main(["diff", str(path), str(tmp_path / "b.onnx"), "--node-data", str(path)]) == 2  # the output guard
    assert "--node-data" in capsys.readouterr().err and onnx.load(str(path)).graph.node  # the model left whole
