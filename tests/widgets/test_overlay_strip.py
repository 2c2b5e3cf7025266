"""The overlay manager, kernel side (widgets/canvas/overlays/strip.py, base.py's Overlays; designer.overlays): a real
designer on a small transformer with a real ONNX Runtime CPU profile, a real divergence run and a real structural
diff. Heat, then divergence, then diff: one strip lists the three, the newest owns the node colours; hiding, picking
and clearing (from Python and from the browser's strip) move the ownership; an edit marks the heat of the nodes it
touched stale and clears the comparisons (the strip's note says so), an in-place FP16 conversion clears the heat."""

from __future__ import annotations

import math
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from dld_jupyter.frontdoor.operations import operations
from dld_jupyter.model_compare import diverge
from dld_jupyter.transforms.fp16 import convert_to_fp16
from dld_jupyter.widgets.canvas.overlays.heat_payload import STALE
from dld_jupyter.widgets.designer.designer import Designer, open_designer
from tests import models
from tests.model_compare.test_structural_diff import with_weight
from tests.widgets.test_canvas import Recorder

FEEDS = {"input_ids": np.random.default_rng(0).integers(0, 128, (1, 8))}


@pytest.fixture
def shown(tmp_path: Path) -> Any:
    """Heat, then divergence, then diff on one designer (grouping off: every node on the canvas)."""
    model = models.transformer_like(layers=2)
    onnx.save(model, str(tmp_path / "m.onnx"))
    onnx.save(with_weight(model, "/layers.1/mlp/up.weight", 1.0), str(tmp_path / "other.onnx"))
    designer = open_designer(tmp_path / "m.onnx", grouping="none")
    rec = Recorder(designer.canvas)
    designer.canvas._on_msg(designer.canvas, {"kind": "hello"}, [])
    report = designer.profile(iterations=3, warmup=1, output=str(tmp_path / "m.dld-report.json"))
    designer.show_heat(report)
    designer.show_divergence(diverge(tmp_path / "other.onnx", designer.document, inputs=FEEDS, tolerance=0.0),
                             "candidate", "other.onnx")
    designer.compare_with(tmp_path / "other.onnx")
    yield designer, rec
    designer.close()


def strip(rec: Recorder) -> dict[str, Any]:
    return next(m for m, _ in reversed(rec.messages) if m.get("overlay") == "strip")


def entries(designer: Designer) -> list[tuple[str, bool, bool]]:
    return [(o.name, o.visible, o.owns_colour) for o in designer.overlays.active]


def heat_values(rec: Recorder) -> tuple[dict[str, float], dict[str, str]]:
    message, buffers = next((m, b) for m, b in reversed(rec.messages) if m.get("overlay") == "heat")
    values = array("d")
    values.frombytes(buffers[0])
    ids = message["ids"].split("\x1f")
    codes = message["reasons"].split("\x1f")
    reasons = {i: message["reason_texts"][int(c)] if c else "" for i, c in zip(ids, codes, strict=True)}
    return dict(zip(ids, values[: len(ids)], strict=True)), reasons


def test_heat_divergence_diff_one_strip_the_newest_owns_the_colours(shown: Any) -> None:
    designer, rec = shown
    assert entries(designer) == [("heat", True, False), ("divergence", True, False), ("diff", True, True)]
    assert repr(designer.overlays) == "<Overlays: heat, divergence, diff (owns the colours)>"
    message = strip(rec)
    assert message["owner"] == "diff" and [e["label"] for e in message["entries"]] == ["Heat", "Divergence", "Changes"]
    designer.overlays.hide("diff")  # the divergence, shown before it, takes the colours
    assert designer.overlays.owner == "divergence" and strip(rec)["owner"] == "divergence"
    designer.overlays.show("heat")  # picked
    assert entries(designer) == [("heat", True, True), ("divergence", True, False), ("diff", False, False)]
    assert repr(designer.overlays) == "<Overlays: heat (owns the colours), divergence, diff (hidden)>"
    canvas = designer.canvas
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "strip", "action": "show", "name": "diff"}, [])
    assert designer.overlays.owner == "diff"
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "strip", "action": "clear", "name": "diff"}, [])
    assert designer.overlays.owner == "heat" and not canvas.overlays.get("diff").shown  # type: ignore[union-attr]
    assert [m for m, _ in rec.messages if m.get("overlay") == "diff"][-1]["action"] == "clear"
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "divergence", "action": "closed"}, [])  # legend's X
    assert entries(designer) == [("heat", True, True)]
    # A view that connects late gets the strip before the overlays' states.
    before = len(rec.messages)
    canvas._on_msg(canvas, {"kind": "hello", "view": "late"}, [])
    kinds = [m.get("overlay") or m["kind"] for m, _ in rec.messages[before:] if m["kind"] in ("snapshot", "overlay")]
    assert kinds == ["snapshot", "strip", "heat"]
    with pytest.raises(ValueError, match=r"'diff' is not shown on this canvas.*shown: heat"):
        designer.overlays.hide("diff")
    designer.overlays.clear()
    assert designer.overlays.active == [] and designer.heat is None and strip(rec)["entries"] == []


def test_an_edit_makes_the_heat_of_the_nodes_it_touched_stale_and_clears_the_comparisons(shown: Any) -> None:
    designer, rec = shown
    doc = designer.document
    renamed = next(n for n in doc.nodes() if n.op_type == "MatMul")
    untouched = next(n for n in doc.nodes() if n.op_type == "Softmax")
    before, _ = heat_values(rec)
    assert math.isfinite(before[renamed.id]) and math.isfinite(before[untouched.id])
    doc.rename_node(renamed.id, "renamed_after_profile")
    assert entries(designer) == [("heat", True, True)]  # the heat took the colours back
    assert designer.overlays.note.startswith("Divergence and Changes cleared: the model changed after they were")
    assert "Compare with… again" in strip(rec)["note"]
    after, reasons = heat_values(rec)
    assert math.isnan(after[renamed.id]) and reasons[renamed.id] == STALE
    assert after[untouched.id] == before[untouched.id]
    doc.move_nodes({untouched.id: (5.0, 5.0)})  # a move describes the same model: nothing cleared
    sent = len(rec.messages)
    doc.add_node("Relu", name="added_after_profile")  # untimed: the browser says "not in this report" by itself
    assert entries(designer) == [("heat", True, True)]
    assert not [m for m, _ in rec.messages[sent:] if m.get("overlay") == "heat"]  # no heat sent again
    convert_to_fp16(doc, compare=False)  # every node replaced: no time left to show
    assert designer.overlays.active == [] and designer.heat is None
    assert designer.overlays.note.startswith("Heat cleared: the model changed after it was drawn (profile")
    assert [m for m, _ in rec.messages if m.get("overlay") == "heat"][-1]["action"] == "clear"
    designer.canvas._on_msg(designer.canvas, {"kind": "overlay", "overlay": "strip", "action": "dismiss"}, [])
    assert designer.overlays.note == "" and strip(rec) == {"kind": "overlay", "overlay": "strip", "action": "set",
                                                           "entries": [], "owner": None, "note": ""}


def test_the_divergence_table_opens_at_the_first_node_past_the_tolerance(shown: Any) -> None:
    designer, rec = shown
    message = next(m for m, _ in reversed(rec.messages) if m.get("overlay") == "divergence" and m["action"] == "set")
    result = designer.canvas.overlays.get("divergence").divergence  # type: ignore[union-attr]
    first = message["first_row"]
    assert first is not None and first > 0  # rows before it: within the tolerance
    assert message["rows"][first]["node"] == result.first.candidate_node and message["rows"][first]["over"]
    assert not any(row["over"] for row in message["rows"][:first])
    assert [row["order"] for row in message["rows"]] == sorted(row["order"] for row in message["rows"])
    operations.get("dld:clear-overlays")(designer)  # the JupyterLab command: every overlay at once
    assert designer.overlays.active == [] and designer.heat is None and strip(rec)["entries"] == []
