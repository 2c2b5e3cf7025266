"""A model swapped in place keeps the layout the user saw (issue 26, item 4): Sanitize and FP16 in place replace every
node object, and so does their Undo; the canvas places each new node where the removed node of the same kind and
name was. Before, every swapped node arrived without a position and landed on (0, 0): a blank canvas after Sanitize,
the I/O diamonds on one spot after Undo."""

from __future__ import annotations

import shutil
from pathlib import Path

from dld_jupyter.widgets.designer.designer import Designer, open_designer
from dld_jupyter.widgets.tools.model_dialog import IN_PLACE

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def shown(designer: Designer) -> dict[tuple[str, str], tuple[float, float]]:
    """What the browser was sent: (kind, node name) -> position."""
    view = designer.canvas.view
    named = {n.id: n.name for n in designer.document.nodes()}
    return {(d["kind"], named.get(n, d["name"])): view.sent_pos[n] for n, d in view.sent_nodes.items()}


def sanitize_in_place(designer: Designer) -> None:
    dialog = designer.tools_panel("sanitize")
    dialog.destination.value = IN_PLACE
    dialog.run()
    assert dialog.wait(300).nodes_after < dialog.wait(300).nodes_before


def test_sanitize_then_undo_keeps_the_layout(tmp_path: Path) -> None:
    shutil.copy(REAL / "gru_scripted.onnx", tmp_path / "gru.onnx")
    designer = open_designer(tmp_path / "gru.onnx", grouping="none")
    designer.canvas.view.snapshot()
    before = shown(designer)
    assert len(set(before.values())) == len(before), "the first layout gives each node its own place"

    sanitize_in_place(designer)
    after = shown(designer)
    kept = set(after) & set(before)
    assert {k for k in before if k[0] in ("input", "output")} <= kept
    assert {k: after[k] for k in kept} == {k: before[k] for k in kept}, "nodes the rewrite kept stay in place"
    assert len(set(after.values())) == len(after), "no two nodes on one spot"

    designer.undo()
    assert shown(designer) == before, "Undo brings every node back where it was"


def test_fp16_in_place_places_its_new_casts_beside_their_neighbours(tmp_path: Path) -> None:
    """Nodes the rewrite added (FP16's Casts) have no removed twin: each appears next to a node it is linked to."""
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", tmp_path / "mobile.onnx")
    designer = open_designer(tmp_path / "mobile.onnx", grouping="none")
    designer.canvas.view.snapshot()
    before = shown(designer)
    dialog = designer.tools_panel("convert_fp16")
    dialog.destination.value = IN_PLACE
    dialog.run()
    dialog.wait(300)
    after = shown(designer)
    added = set(after) - set(before)
    assert added and all(k[0] == "op" for k in added)
    assert {k: after[k] for k in set(after) & set(before)} == {k: before[k] for k in set(after) & set(before)}
    assert (0.0, 0.0) not in {after[k] for k in added}
    designer.undo()
    assert shown(designer) == before
