"""The Designer's comparisons: "Compare with…" (a structural diff drawn on this canvas) and "Check against original"
(the divergence of the edited model against its saved file, drawn on this canvas; its per-node table in a tab
beside the designer or below it, widgets/results/divergence_table.py).

A mixin of Designer (designer.py), so the designer module stays one concept; the overlays themselves live in the
canvas overlays room (widgets/canvas/overlays/diff.py, divergence.py) and are made on first use.

The divergence is a run of the activity worker (frontdoor/compare_runs.py) shown by the designer's `compare_job`, the
progress/cancel widget of the Tools dialogs: the toolbar button and the JupyterLab command start it and return
(`start_check_against_original`: the kernel stays free, so Cancel is heard; the overlay is drawn when it ends);
`check_against_original()` in a cell waits for it and returns the Divergence, its progress shown by the same widget (a
kernel interrupt cancels it). The edited model runs as it is on screen, from a private copy of the document.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from dld_jupyter.activities.model_ref import ShowsDocument, document_of
from dld_jupyter.activities.thread_run import RunHandle
from dld_jupyter.document import Document
from dld_jupyter.frontdoor.results_tab import ResultsTab
from dld_jupyter.widgets.canvas.overlays.base import Overlay

if TYPE_CHECKING:  # the overlays, tables and job load when a comparison is first made (a first view: issue 42)
    from dld_jupyter.model_compare import Divergence, ModelDiff
    from dld_jupyter.model_compare.structural_diff import ModelLike
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas
    from dld_jupyter.widgets.canvas.overlays.divergence import Side
    from dld_jupyter.widgets.results.results_table import ResultsTable
    from dld_jupyter.widgets.tools.job import Job

OverlayT = TypeVar("OverlayT", bound=Overlay)


def _model_of(other: ModelLike | ShowsDocument) -> tuple[ModelLike, str]:
    """(what compare.diff takes, a label for the legend) of a path, a Designer, a Document or a ModelProto."""
    model = document_of(other)
    if isinstance(model, (str, os.PathLike)):
        return model, Path(model).name
    path = model.path if isinstance(model, Document) else None
    return model, Path(path).name if path else "the other model"


class CompareActions:
    """Designer methods for comparing its model with another one or with its saved file."""

    canvas: GraphCanvas  # what the Designer provides
    divergence_table: ResultsTable | None = None  # the table of the last divergence shown
    diff_table: ResultsTable | None = None  # the table of the last diff shown
    if TYPE_CHECKING:

        @property
        def document(self) -> Document: ...

        def show_results(self, results: ResultsTab) -> str: ...

        def select(self, names: list[str] | str, reveal: bool = False) -> list[str]: ...

        def _show_parts(self) -> None: ...

    _compare_job: Job | None = None

    @property
    def compare_job(self) -> Job:
        """Check against original's progress, Cancel and error line: made when first used, then placed under the
        toolbar (a first view showed its 11 hidden widgets, a tenth of a designer's, each sent and made in the
        page before the canvas could draw: issue 42)."""
        if self._compare_job is None:
            from dld_jupyter.widgets.tools.job import Job

            self._compare_job = Job()
            self._show_parts()
        return self._compare_job

    @property
    def comparing(self) -> list[Any]:
        """The widgets of the comparisons' job, which the designer places under its toolbar (none before its first
        use)."""
        job = self._compare_job
        return [] if job is None else [job, job.error]

    def _overlay(self, kind: type[OverlayT]) -> OverlayT:
        found = self.canvas.overlays.get(kind.name)
        return found if isinstance(found, kind) else kind(self.canvas)

    def compare_with(self, other: ModelLike | ShowsDocument) -> ModelDiff:
        """Diff `other` (the older model: a path, Designer or Document) against this designer's model and draw it on
        this canvas: added and changed nodes coloured, next/previous change in the legend; every change listed in a
        table beside the designer (a JupyterLab tab) or below it (a notebook)."""
        from dld_jupyter.model_compare.structural_diff import diff  # imported when used: not on a first view
        from dld_jupyter.widgets.canvas.overlays.diff import DiffOverlay
        from dld_jupyter.widgets.results.diff_table import diff_table

        model, source = _model_of(other)
        found = self._overlay(DiffOverlay).show(diff(model, self.document), source)
        table = diff_table(found, self.document, source, on_focus=lambda node: self.select([node], reveal=True))
        self.diff_table = table
        self.show_results(ResultsTab("diff", table.title, "", table))
        return found

    def show_divergence(self, divergence: Divergence, side: Side = "candidate", source: str = "") -> Divergence:
        """Draw a divergence run (compare.diverge) on this canvas, and show its per-node table beside the designer
        (a JupyterLab tab) or below it (a notebook); `side` is the run's side this canvas shows. A row's click
        focuses its node here."""
        from dld_jupyter.widgets.canvas.overlays.divergence import DivergenceOverlay
        from dld_jupyter.widgets.results.divergence_table import divergence_table

        self._overlay(DivergenceOverlay).show(divergence, side, source)
        table = divergence_table(divergence, side, source, on_focus=lambda node: self.select([node], reveal=True))
        self.divergence_table = table
        self.show_results(ResultsTab("divergence", table.title, "", table))
        return divergence

    def _original(self) -> tuple[Path, str]:
        path = self.document.path
        if path is None or not Path(path).is_file():
            raise ValueError("Check against original: this model has no saved file to compare with; save it first, "
                             "then edit it and check again.")
        if self.compare_job.running:
            raise ValueError("Check against original is already running: wait for it or press its Cancel.")
        return Path(path), f"{Path(path).name} (saved) vs. this model"

    def check_against_original(self, **options: Any) -> Divergence:
        """Run the divergence of this (edited) model against its saved file, wait for it and draw it (options:
        compare.diverge's, e.g. inputs=, metric=, tolerance=, candidate_provider=, window=)."""
        from dld_jupyter.frontdoor.compare_runs import start_divergence, wait_for  # the runner: imported when used

        path, source = self._original()
        job = self.compare_job
        run = start_divergence(path, self.document, on_progress=job.show, **options)
        job.show_error("")
        job.layout.display = ""
        job.follow(run)
        try:
            result = wait_for(run)
        except BaseException as error:  # a failure, a cancel, a kernel interrupt: said under the job, then raised
            job.ended(run.result)
            job.show_error(str(error))
            raise
        job.ended(run.result)
        return self.show_divergence(result, "candidate", source)

    def start_check_against_original(self, **options: Any) -> RunHandle | None:
        """`check_against_original` without waiting: the run on this designer's job (progress, Cancel), the
        overlay drawn when it ends, a failure shown under the job; the run (None if the job refused to start)."""
        from dld_jupyter.frontdoor.compare_runs import divergence_of, start_divergence  # imported when used

        path, source = self._original()
        job = self.compare_job
        revision = self.canvas.overlays.revision

        def finish(result: Divergence) -> None:
            self.canvas.overlays.check_revision(revision, "Check against original")  # not edited while it ran
            self.show_divergence(result, "candidate", source)

        job.watch("Check against original", lambda heard: start_divergence(path, self.document, on_progress=heard,
                                                                            **options), divergence_of, finish)
        return job.current

    def clear_comparison(self) -> None:
        """Hide the diff and the divergence overlays."""
        from dld_jupyter.widgets.canvas.overlays.diff import DiffOverlay
        from dld_jupyter.widgets.canvas.overlays.divergence import DivergenceOverlay

        for kind in (DiffOverlay, DivergenceOverlay):
            found = self.canvas.overlays.get(kind.name)
            if isinstance(found, kind) and found.shown:
                found.clear()
