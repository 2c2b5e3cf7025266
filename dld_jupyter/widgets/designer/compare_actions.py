"""The Designer's comparisons: "Compare with…" (a structural diff drawn on this canvas) and "Check against original"
(the divergence of the edited model against its saved file, drawn on this canvas with its table).

A mixin of Designer (designer.py), so the designer module stays one concept; the overlays themselves live in the
canvas overlays room (widgets/canvas/overlays/diff.py, divergence.py) and are made on first use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from dld_jupyter.compare import Divergence, ModelDiff, diff, diverge
from dld_jupyter.widgets.canvas.overlays.base import Overlay
from dld_jupyter.widgets.canvas.overlays.diff import DiffOverlay
from dld_jupyter.widgets.canvas.overlays.divergence import DivergenceOverlay, Side

if TYPE_CHECKING:
    from dld_jupyter.document import Document
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas

OverlayT = TypeVar("OverlayT", bound=Overlay)


def _model_of(other: Any) -> tuple[Any, str]:
    """(what compare.diff takes, a label for the legend) of a path, a Designer, a Document or a ModelProto."""
    document = getattr(other, "document", other)
    if isinstance(document, (str, os.PathLike)):
        return document, Path(document).name
    path = getattr(document, "path", None)
    return document, Path(path).name if path else "the other model"


class CompareActions:
    """Designer methods for comparing its model with another one or with its saved file."""

    canvas: GraphCanvas  # what the Designer provides
    if TYPE_CHECKING:

        @property
        def document(self) -> Document: ...

    def _overlay(self, kind: type[OverlayT]) -> OverlayT:
        found = self.canvas.overlays.get(kind.name)
        return found if isinstance(found, kind) else kind(self.canvas)

    def compare_with(self, other: Any) -> ModelDiff:
        """Diff `other` (the older model: a path, Designer or Document) against this designer's model and draw it on
        this canvas: added and changed nodes coloured, removed ones listed, next/previous change in the legend."""
        model, source = _model_of(other)
        return self._overlay(DiffOverlay).show(diff(model, self.document), source)

    def show_divergence(self, divergence: Divergence, side: Side = "candidate", source: str = "") -> Divergence:
        """Draw a divergence run (compare.diverge) on this canvas with its table; `side` is the run's side this
        canvas shows."""
        return self._overlay(DivergenceOverlay).show(divergence, side, source)

    def check_against_original(self, **options: Any) -> Divergence:
        """Run the divergence of this (edited) model against its saved file and draw it (options: compare.diverge's,
        e.g. inputs=, metric=, tolerance=, candidate_provider=)."""
        path = self.document.path
        if path is None or not Path(path).is_file():
            raise ValueError("Check against original: this model has no saved file to compare with; save it first, "
                             "then edit it and check again.")
        result = diverge(path, self.document, **options)
        return self.show_divergence(result, "candidate", f"{Path(path).name} (saved) vs. this model")

    def clear_comparison(self) -> None:
        """Hide the diff and the divergence overlays."""
        for kind in (DiffOverlay, DivergenceOverlay):
            found = self.canvas.overlays.get(kind.name)
            if isinstance(found, kind) and found.shown:
                found.clear()
