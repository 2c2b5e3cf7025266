"""Sanitize Graph (seed 000 "Batch Modifications"): the seed's options (constant folding on/off, fold size threshold
in bytes, number of passes, empty meaning "until nothing folds"), output path or this model, then the status:
nodes before and after, what was folded and what removed, the output comparison, and the expandable log.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.document import Document
from dld_jupyter.transforms.progress import CancelToken, Progress
from dld_jupyter.transforms.sanitize import ATOL, Sanitize, SanitizeResult
from dld_jupyter.transforms.transform import Plan
from dld_jupyter.widgets.tools.model_dialog import STYLE, ModelDialog
from dld_jupyter.widgets.tools.status import status_view


def _optional_int(text: str, what: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"Sanitize graph: {what} {text!r} is not a whole number; leave it empty for none.") from None


class SanitizeDialog(ModelDialog):
    title = "Sanitize Graph"
    intro = ("Polygraphy folds constants (onnxruntime computes what needs no input) and removes nodes no output "
             "needs, then sorts the graph.")
    suffix = "sanitized"

    def __init__(self, target: Any, fold: bool = True, size_threshold: int | None = None,
                 passes: int | None = None, **kwargs: Any) -> None:
        self.fold = w.Checkbox(value=fold, description="Enable constant folding", indent=False)
        self.fold.add_class("dld-sanitize-fold")
        self.threshold = w.Text(value="" if size_threshold is None else str(size_threshold),
                                description="Fold size threshold", placeholder="bytes (empty: no limit)",
                                style=STYLE, layout=w.Layout(width="360px"))
        self.threshold.add_class("dld-sanitize-threshold")
        self.passes = w.Text(value="" if passes is None else str(passes), description="Number of passes",
                             placeholder="empty: until nothing folds", style=STYLE, layout=w.Layout(width="360px"))
        self.passes.add_class("dld-sanitize-passes")
        self.fold.observe(lambda c: self._fold_changed(bool(c["new"])), names="value")
        super().__init__(target, **kwargs)
        self._fold_changed(fold)

    def _fold_changed(self, on: bool) -> None:
        self.threshold.disabled = self.passes.disabled = not on

    def options(self) -> list[w.Widget]:
        return [self.fold, self.threshold, self.passes]

    def options_widgets(self) -> list[w.Widget]:
        return self.options()

    def _set_busy(self, busy: bool) -> None:
        super()._set_busy(busy)
        if not busy:
            self._fold_changed(self.fold.value)

    def check_options(self) -> None:
        threshold = _optional_int(self.threshold.value, "fold size threshold")
        passes = _optional_int(self.passes.value, "number of passes")
        if threshold is not None and threshold < 0:
            raise ValueError(f"Sanitize graph: fold size threshold {threshold} is negative; give bytes >= 0.")
        if passes is not None and passes < 1:
            raise ValueError(f"Sanitize graph: {passes} passes cannot fold anything; give 1 or more, or leave empty.")

    def plan(self, doc: Document, path: str | None, progress: Progress, cancel: CancelToken) -> Plan[Any]:
        return Sanitize().plan(
            doc, path=path, fold=self.fold.value,
            size_threshold=_optional_int(self.threshold.value, "fold size threshold"),
            passes=_optional_int(self.passes.value, "number of passes"),
            compare=self.compare.value, progress=progress, cancel=cancel,
        )

    def status(self, result: SanitizeResult, in_place: bool) -> w.Widget:
        where = "this model (Undo reverts it in one step)" if in_place else str(result.output)
        equal = result.outputs_equal
        passes = f"{len(result.pass_counts)} (nodes after each: {result.pass_counts})" if self.fold.value else "off"
        rows = [
            ("Written to", where),
            ("Nodes", f"{result.nodes_before:,} before → {result.nodes_after:,} after "
                      f"({result.nodes_before - result.nodes_after:,} fewer)"),
            ("Constant folding passes", passes),
            ("Folded", f"{len(result.folded):,} nodes" + _names(result.folded)),
            ("Removed as unused", f"{len(result.removed):,} nodes" + _names(result.removed)),
            ("Outputs", "not compared" if equal is None else
             f"{'equal' if equal else 'NOT equal'} within {ATOL:g}"),
            ("Valid model", result.verdict.summary() if result.verdict is not None else "not verified"),
        ]
        valid = result.verdict is not None and result.verdict.ok
        ok = equal is not False and valid
        headline = ("Sanitized" if ok else "Sanitized, but the outputs changed (see below)" if valid
                    else "Sanitized, but the result is not a verified model (see below)")
        return status_view(headline, rows, result.log, result.comparison, ok, ATOL)


def _names(names: list[str], shown: int = 6) -> str:
    if not names:
        return ""
    more = f", … {len(names) - shown:,} more (see the log)" if len(names) > shown else ""
    return ": " + ", ".join(names[:shown]) + more
