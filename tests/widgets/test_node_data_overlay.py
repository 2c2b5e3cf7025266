"""Model Explorer node data into the canvas and out of it, kernel side (widgets/canvas/overlays/node_data.py,
widgets/designer/node_data_actions.py) on a real designer of a real export whose nodes have no names: a file written
by `dld diff --node-data` lands on the changed node (keys are Model Explorer ids, document/layout/explorer_ids.py), a
file of another model is refused saying how many keys matched, and the designer exports what its canvas shows."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from onnx import numpy_helper

from dld_jupyter.cli.main import main
from dld_jupyter.model_compare import read_node_data
from dld_jupyter.widgets.designer.designer import open_designer
from tests.model_compare.test_node_data_keys import unnamed


def _pair(tmp_path: Path) -> tuple[Path, Path, str]:
    model = unnamed()
    onnx.save(model, str(tmp_path / "a.onnx"))
    weight = next(t for t in model.graph.initializer if numpy_helper.to_array(t).ndim == 4)
    weight.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(weight) * 1.5, weight.name))
    onnx.save(model, str(tmp_path / "b.onnx"))
    return tmp_path / "a.onnx", tmp_path / "b.onnx", weight.name


def test_a_diff_node_data_file_colours_the_changed_node_and_exports_back(tmp_path: Path) -> None:
    a, b, weight = _pair(tmp_path)
    assert main(["diff", str(a), str(b), "--node-data", str(tmp_path / "diff.json")]) == 0
    designer = open_designer(b, grouping="none")
    try:
        sent: list[dict[str, object]] = []
        designer.canvas.send = lambda content, buffers=None: sent.append(dict(content))  # type: ignore[method-assign]
        designer.show_node_data(tmp_path / "diff.json")
        message = sent[-1]
        assert message["overlay"] == "node_data" and message["action"] == "set"
        nodes = list(designer.document.model.graph)
        assert message["matched"] == message["keys"] == len(nodes)
        user = next(n for n in nodes if weight in [v.name for v in n.inputs if v is not None])
        changed = [nid for nid, value in message["values"].items() if value == 1.0]  # type: ignore[union-attr]
        assert changed == [designer.document.node_id(user)]
        sent.clear()
        designer.canvas._on_msg(designer.canvas, {"kind": "hello"}, [])  # a view connecting later gets it
        assert any(m.get("overlay") == "node_data" for m in sent)

        designer.compare_with(a)  # the canvas shows a diff: exported as node data, the same keys and values
        out = designer.export_node_data(tmp_path / "again.json")
        assert read_node_data(out) == read_node_data(tmp_path / "diff.json")
        with pytest.raises(ValueError, match="what="):
            designer.export_node_data(tmp_path / "x.json", what="heat")
    finally:
        designer.close()


def test_a_file_of_another_model_is_refused_saying_how_many_keys_matched(tmp_path: Path) -> None:
    _a, b, _ = _pair(tmp_path)
    (tmp_path / "other.json").write_text(json.dumps({"results": {"Conv #48": {"value": 1}, "x": {"value": 2}}}))
    designer = open_designer(b, grouping="none")
    try:
        with pytest.raises(ValueError, match="0 of its 2 keys match a node of this model"):
            designer.show_node_data(tmp_path / "other.json")
        with pytest.raises(ValueError, match="nothing to export"):
            designer.export_node_data(tmp_path / "x.json")
    finally:
        designer.close()
