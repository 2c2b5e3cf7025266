"""Progress bar, phase and Cancel of one run, whatever runs it: an activity `Run` in a worker process (profile,
engine export) or a `ThreadRun` in the kernel (batch transforms, user tools). The run panel and the Tools dialogs'
job show this same widget, so every kind of run shows progress and cancels the same way.

`follow(run)` binds it to a run (Cancel calls `run.cancel()`), `show(progress)` moves the bar, `ended(result)`
colours it and says how the run ended. Updates arrive from the run's threads; ipykernel sends them from any thread.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.activities.result import ActivityResult, ActivityStatus, Progress
from dld_jupyter.activities.thread_run import RunHandle
from dld_jupyter.formats.html_text import text
from dld_jupyter.widgets.widget_base import DldHBox

SPINNER = '<i class="fa fa-spinner fa-spin" aria-label="working"></i> '
ENDED = {ActivityStatus.SUCCEEDED: "success", ActivityStatus.CANCELLED: "warning", ActivityStatus.FAILED: "danger"}


class RunProgress(DldHBox, css="dld-run-progress"):
    """Cancel + bar + phase; `percent`: the phase shows the fraction too (activities say it, tools do not)."""

    def __init__(self, percent: bool = True, leading: tuple[Any, ...] = ()) -> None:
        self.percent = percent
        self.run: RunHandle | None = None
        self.progress = w.FloatProgress(value=0.0, min=0.0, max=1.0, layout=w.Layout(width="240px"))
        self.phase = w.HTML("", layout=w.Layout(min_width="200px"))
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True, layout=w.Layout(width="auto"))
        self.cancel_button.add_class("dld-run-cancel")
        self.cancel_button.on_click(lambda _b: self.cancel())
        super().__init__([*leading, self.cancel_button, self.progress, self.phase],
                         layout=w.Layout(flex_flow="row wrap", align_items="center"))

    def follow(self, run: RunHandle | None) -> None:
        """A run starts (None: one is about to; Cancel waits for it)."""
        self.run = run
        self.cancel_button.disabled = False
        if run is None:
            self.progress.value = 0.0
            self.progress.bar_style = ""
            self.phase.value = SPINNER + "starting…"

    def show(self, progress: Progress | None, message: str | None = None) -> None:
        if progress is not None:
            self.progress.value = max(0.0, min(1.0, progress.fraction))
            said = f"{progress.phase} {progress.fraction:.0%}" if self.percent else progress.phase
        else:
            said = message or ""
        self.phase.value = SPINNER + text(said)

    def cancel(self) -> None:
        run = self.run
        if run is not None and not run.done:
            self.phase.value = SPINNER + "cancelling…"
            run.cancel()

    def ended(self, result: ActivityResult | None, said: str | None = None) -> None:
        """The run ended: the bar's colour and `said` (default: "done", "cancelled" or the status)."""
        self.cancel_button.disabled = True
        status = result.status if result is not None else ActivityStatus.FAILED
        if status is ActivityStatus.SUCCEEDED:
            self.progress.value = 1.0
        self.progress.bar_style = ENDED.get(status, "")
        default = "done" if status is ActivityStatus.SUCCEEDED else status.value
        self.phase.value = said if said is not None else default
