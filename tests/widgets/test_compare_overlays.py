"""The comparison overlays, kernel side (widgets/canvas/overlays/diff.py, divergence.py, marks.py) on a real
GraphCanvas grouped by name scope: collapsed groups summarise what changed or diverged inside them, a view that
connects late gets the state after its snapshot, the browser's focus and close reach the kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx

from dld_jupyter.model_compare import diff, diverge
from dld_jupyter.widgets.canvas.grouping import group_id
from dld_jupyter.widgets.canvas.overlays.diff import DiffOverlay
from dld_jupyter.widgets.canvas.overlays.divergence import DivergenceOverlay
from tests import models
from tests.model_compare.test_structural_diff import with_weight
from tests.widgets.test_canvas import make

FEEDS = {"input_ids": np.random.default_rng(0).integers(0, 128, (1, 8))}


def _models(tmp_path: Path) -> tuple[Path, Path]:
    model = models.transformer_like(layers=2)
    onnx.save(model, str(tmp_path / "old.onnx"))
    onnx.save(with_weight(model, "/layers.1/mlp/up.weight", 1.0), str(tmp_path / "new.onnx"))
    return tmp_path / "old.onnx", tmp_path / "new.onnx"


def test_diff_groups_count_the_changes_inside_them_and_a_late_view_gets_them(tmp_path: Path) -> None:
    old, new = _models(tmp_path)
    canvas, rec = make(new, grouping="scopes")
    overlay = DiffOverlay(canvas)
    overlay.show(diff(old, canvas.document), "old.onnx")
    message = rec.sent[-1]
    assert message["overlay"] == "diff" and message["action"] == "set"
    [(node, mark)] = message["marks"].items()
    assert mark == "changed" and message["order"] == [node]
    assert message["groups"][group_id(("layers.1",))] == {"changed": 1}
    assert message["groups"][group_id(("layers.1", "mlp"))] == {"changed": 1}
    assert group_id(("layers.0",)) not in message["groups"]
    rec.sent.clear()
    canvas._on_msg(canvas, {"kind": "hello"}, [])  # a view connecting later
    assert any(m.get("overlay") == "diff" and m["action"] == "set" for m in rec.sent)
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "diff", "action": "focus", "id": node}, [])
    assert canvas.selection == [node]
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "diff", "action": "closed"}, [])
    rec.sent.clear()
    canvas._on_msg(canvas, {"kind": "hello"}, [])
    assert not any(m.get("overlay") == "diff" for m in rec.sent)


def test_divergence_marks_the_first_node_and_groups_past_the_tolerance(tmp_path: Path) -> None:
    old, new = _models(tmp_path)
    canvas, rec = make(new, grouping="scopes")
    overlay = DivergenceOverlay(canvas)
    result = diverge(old, canvas.document, inputs=FEEDS, tolerance=0.0)
    overlay.show(result, "candidate", "old.onnx vs. new")
    message = rec.sent[-1]
    by_name = {n.name: n.id for n in canvas.document.nodes()}
    assert message["first"] == by_name["/layers.1/mlp/up/MatMul_57"]
    assert len(message["rows"]) == len(result.rows) and all(r["id"] for r in message["rows"])
    assert message["groups"][group_id(("layers.0",))] == {"within": 33}
    assert message["groups"][group_id(("layers.1",))]["over"] >= 1
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "divergence", "action": "focus", "id": message["first"]}, [])
    assert canvas.selection == [message["first"]]


def test_check_against_original_after_a_confirmed_subgraph_edit(tmp_path: Path) -> None:
    """A Constant changed inside an If branch, confirmed into the parent: the parent's check against its saved file
    reports the If node (the only main-graph node whose values moved) first, and the diff nests the change."""
    from dld_jupyter.frontdoor.children import CONFIRM_EDITS
    from dld_jupyter.widgets.designer.designer import open_designer
    from tests.model_compare.test_structural_diff import _if_model

    onnx.save(_if_model(1.0), str(tmp_path / "branchy.onnx"))
    designer = open_designer(tmp_path / "branchy.onnx")
    try:
        child = designer.open_subgraph("branch", "then_branch")
        constant = next(n for n in child.document.nodes() if n.op_type == "Constant")
        child.document.set_attribute(constant.id, "value", np.array([5.0], np.float32))
        CONFIRM_EDITS(child)
        child.close()
        feeds = {"cond": np.array(True), "x": np.array([1.0], np.float32)}
        result = designer.check_against_original(inputs=feeds, tolerance=0.0)
        assert result.first is not None and result.first.node == "branch" and result.first.metrics.max_abs == 4.0
        [changed] = designer.compare_with(tmp_path / "branchy.onnx").graph.changed
        assert changed.a.label == "branch" and changed.changes[0].what.startswith("subgraph then_branch")
    finally:
        designer.close()
