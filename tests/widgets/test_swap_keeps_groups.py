"""A model swapped in place (Sanitize "Apply to this model", FP16 in place) and its Undo/Redo keep the canvas's
groups as the model opened with them (issue 42: a sanitized BERT lost its first-view grouping, and Undo did not
bring it back). The real torch.export Llama export: its scopes are in node metadata, not in names."""

from __future__ import annotations

import shutil
from pathlib import Path

import onnx

from dld_jupyter.transforms.sanitize import sanitize_proto
from dld_jupyter.widgets.canvas.scope_paths import NAME_SCOPES
from dld_jupyter.widgets.designer.designer import open_designer

LLAMA = Path(__file__).resolve().parents[1] / "data" / "real" / "llama_tiny_dynamic.onnx"


def _groups(designer: object) -> list[tuple[str, bool]]:
    nodes, _edges, _points = designer.canvas.view.snapshot(relayout=False)  # type: ignore[attr-defined]
    return sorted((n["id"], bool(n.get("collapsed"))) for n in nodes if n.get("kind") == "group")


def test_sanitize_in_place_undo_and_redo_keep_the_groups(tmp_path: Path) -> None:
    shutil.copy(LLAMA, tmp_path / "llama.onnx")
    designer = open_designer(tmp_path / "llama.onnx")
    try:
        opened = _groups(designer)
        assert len(opened) >= 5 and any(gid.startswith("g:layers.") for gid, _ in opened)
        dialog = designer.tools_panel("sanitize", in_place=True)
        dialog.run()
        assert dialog.wait(300) is not None
        assert _groups(designer) == opened
        designer.undo()
        assert _groups(designer) == opened
        designer.redo()
        assert _groups(designer) == opened
    finally:
        designer.close()


def test_sanitize_keeps_the_exporters_scopes_on_the_nodes_it_keeps() -> None:
    original = onnx.load(str(LLAMA))
    sanitized, _result = sanitize_proto(original, compare=False)
    scoped = {n.name for n in original.graph.node if any(p.key == NAME_SCOPES for p in n.metadata_props)}
    kept = [n for n in sanitized.graph.node if n.name in scoped]
    assert kept and all(any(p.key == NAME_SCOPES for p in n.metadata_props) for n in kept)
