"""The one run panel: a form slot, a target chooser, Run/Cancel, progress, the log and the run's artifacts.

Why: the Profile panel and the Export TensorRT Engine panel each had the same run loop (start the activity, stream
progress and log lines, wait on a thread, show the outcome, act on what it wrote). A form plugs in by subclassing
and saying what differs: `make_spec()` (the spec, raising what the user must fix), `refused()` (why it cannot run
here, e.g. TensorRT missing), `disable_form(running)`, `done_text(result)` and `skip(result)` (the artifacts not to
open, e.g. layer information when "open as an engine graph" is off). Artifacts are acted on through the one policy
(frontdoor/artifacts.py): a report opens the viewer and heats the designer the run came from, layer information
opens the engine graph. Errors are shown in the panel, never raised into the notebook.

Slots: `form_slot` holds the form's widgets; `target_slot` holds the target chooser (target_chooser.py, the
choices of targets.py; `target` is its drop-down, `chosen_target()` reads it). The run's callbacks arrive on the
engine's reader threads; ipykernel sends updates from any thread.

Those threads update the panel in the context of the request that started the run (`_as_reply`): ipykernel routes a
widget's next message from the browser to the subshell of the request it last published under, and a thread of
ours has none of its own, so it published under the kernel's latest request, often the Lab sidebar's message on that
sidebar's subshell; JupyterLab deletes that subshell when the sidebar follows another tab, and the kernel then
dropped every later click on Profile and change of the target ("Unknown subshell_id" in the server log).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.errors import ActivityError
from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.activities.result import ActivityResult, ActivityStatus, LogLine, Progress
from dld_jupyter.activities.scheduler import SCHEDULER
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.activities.thread_run import RunHandle
from dld_jupyter.formats.html_text import tag, text
from dld_jupyter.frontdoor.artifacts import ARTIFACTS, Opened, Tab
from dld_jupyter.frontdoor.results_tab import ResultsOpener
from dld_jupyter.frontdoor.run_source import RunInput, RunSource, run_source
from dld_jupyter.frontdoor.runs import track
from dld_jupyter.widgets.runs.progress import RunProgress
from dld_jupyter.widgets.runs.target_chooser import TargetChooser
from dld_jupyter.widgets.tools.log_view import LogView
from dld_jupyter.widgets.widget_base import DldVBox

STARTING = (ActivityError, OSError, ValueError, TypeError)  # what a form's spec raises for the user to fix


class RunPanel(DldVBox, css="dld-run-panel"):
    """See the module docstring. `what` names the run in messages ("Profiling", "Export")."""

    what = "Run"
    error_class = "dld-run-error"
    model_ref: ModelRef | None = None  # what the run reads (set by `make_spec`): its copy of edits goes at the end
    tab: Tab | None = None  # opens an artifact in a tab of its own (a JupyterLab tab's host; None: shown here)
    results_tab: ResultsOpener | None = None  # opens wide results (a sweep's) in a tab of its own (Start Activity)

    def __init__(self, source: RunInput, title: w.Widget, form: Sequence[w.Widget], run_label: str, run_icon: str,
                 buttons: Sequence[w.Widget] = (), below: Sequence[w.Widget] = ()) -> None:
        self.source = source  # a path, a Document or a Designer: what the run came from
        self.origin: RunSource | None = run_source(source)  # the designer, for heat, links and its dock
        self.handle: RunHandle | None = None
        self.result: ActivityResult | None = None
        self.opened: list[Opened] = []
        self._done = threading.Event()
        self._context = contextvars.copy_context()  # replaced by each run's (`_as_reply`)
        self.title = title
        self.form_slot = w.VBox(list(form))
        self.targets = TargetChooser(self.origin)  # the target drop-down, shared with the designer's Analysis panel
        self.target, self.target_slot = self.targets.dropdown, self.targets.slot
        self.run_button = w.Button(description=run_label, icon=run_icon, button_style="primary")
        self.run_button.on_click(lambda _b: self.run())
        self.controls = RunProgress(leading=(*buttons, self.run_button))
        self.cancel_button, self.progress, self.phase = (self.controls.cancel_button, self.controls.progress,
                                                         self.controls.phase)
        self.error = w.HTML("")
        self.log_box = LogView(height="120px", layout=w.Layout(width="100%", display="none"))
        self.artifacts_area = w.VBox([])
        super().__init__([title, self.form_slot, self.target_slot, self.controls, self.error, *below, self.log_box,
                          self.artifacts_area])

    # -- what a form says ------------------------------------------------------------------------------------------
    def make_spec(self) -> ActivitySpec:
        raise NotImplementedError(f"{type(self).__name__} plugs a form into the run panel: define make_spec()")

    def refused(self) -> str | None:
        """Why the run cannot start here (shown as "unavailable: …"); None when it can."""
        return None

    def disable_form(self, running: bool) -> None:
        """Lock the form while the run is under way."""

    def done_text(self, result: ActivityResult) -> str:
        return ", ".join(result.artifacts.values())

    def ended_text(self, result: ActivityResult) -> str:
        """What the panel says once the run has succeeded (default: its time and `done_text`)."""
        return f"done in {result.duration_s:.1f} s: {self.done_text(result)}"

    def launch(self, target: Target) -> RunHandle:
        """Start the run on `target` and return it: the form's spec through the process's scheduler, its progress
        and log shown here. Raises what the user must fix (STARTING); a form whose run is a group overrides it."""
        spec = self.make_spec()
        return SCHEDULER.start(spec, on_progress=self._on_progress, on_log=self._on_log, target=target)

    def skip(self, result: ActivityResult) -> Collection[str]:
        """Artifacts of `result` not to act on."""
        return ()

    def chosen_target(self) -> Target:
        return self.targets.chosen_target()

    @property
    def connections(self) -> w.Widget | None:
        """The Remote Connections panel "+ New connection…" opened (None before)."""
        return self.targets.connections

    def new_connection(self) -> w.Widget | None:
        """Open Manage Remote Connections (target_chooser.py): a connection saved there is chosen here at once."""
        return self.targets.new_connection()

    def refresh_targets(self, chosen: str = "") -> None:
        """List the targets again (after a save or a removal); `chosen`: select that one."""
        self.targets.refresh(chosen)

    # -- running ---------------------------------------------------------------------------------------------------
    def run(self) -> RunHandle | None:
        """Start with the form's settings; the running run, or None when it could not start (said why)."""
        reason = self.refused()
        if reason is not None:
            self.show_error(f"unavailable: {reason}")
            return None
        if self.handle is not None and not self.handle.done:
            self.show_error(f"{self.what} is already running: cancel it first.")
            return None
        self.show_error("")
        self.artifacts_area.children = []
        self.opened = []
        self.log_box.clear()
        self._done = threading.Event()
        self._context = contextvars.copy_context()  # the request that started the run: its threads answer it
        track()  # the live runs registry lists this run
        try:
            handle = self.launch(self.chosen_target())
        except STARTING as error:
            self._release()
            self.show_error(f"Cannot start: {error}")
            return None
        except BaseException:
            self._release()
            raise
        self.handle = handle
        self._set_running(True)
        self.controls.follow(handle)
        threading.Thread(target=self._as_reply, args=(self._wait, handle), name="dld-run-panel", daemon=True).start()
        return handle

    def cancel(self) -> None:
        self.controls.cancel()

    def wait(self, timeout: float | None = None) -> ActivityResult | None:
        """Block until the run and what it opened are done (for scripts and tests)."""
        if self.handle is None:
            return None
        self.handle.wait(timeout)
        self._done.wait(timeout)
        return self.result

    def _as_reply(self, call: Callable[..., None], *args: Any) -> None:
        """`call(*args)` from any thread, in the context of the request that started the run (module docstring)."""
        self._context.copy().run(call, *args)

    def _on_progress(self, progress: Progress) -> None:
        self._as_reply(self.controls.show, progress)

    def _on_log(self, line: LogLine) -> None:
        self._as_reply(self.log_box.append, f"[{line.level}] {line.message}")

    def _release(self) -> None:
        """Remove the temporary copy of unsaved edits the run read (`model_ref`, set by `make_spec`)."""
        model_ref, self.model_ref = self.model_ref, None
        if model_ref is not None:
            model_ref.release()

    def _wait(self, handle: RunHandle) -> None:
        try:
            result = handle.wait()
        finally:
            self._release()  # the run has ended: its copy goes before the panel says it is done
        try:
            self.result = result
            if result is not None:
                self._finish(result)
        finally:
            self.log_box.flush()
            self._set_running(False)
            self._done.set()

    def _finish(self, result: ActivityResult) -> None:
        if result.ok:
            self.controls.ended(result, text(self.ended_text(result)))
            self.opened = ARTIFACTS.act(result.artifacts, self.origin, skip=self.skip(result), tab=self.tab)
            self.show_opened(self.opened)
        elif result.status is ActivityStatus.CANCELLED or result.error_kind == "cancelled":
            self.controls.ended(result, "cancelled")
        else:
            self.controls.ended(result)
            self.show_error(f"{self.what} {result.status.value} ({result.error_kind}): {result.error}")
            self.log_box.layout.display = ""

    def show_opened(self, opened: list[Opened]) -> None:
        """What the artifact policy opened: in the artifacts area, or where it went, or why it could not."""
        shown: list[w.Widget] = []
        errors = [entry.error for entry in opened if entry.error]
        for entry in opened:
            if entry.note and entry.shown is None:
                self.phase.value += text(f" ({entry.name.replace('_', ' ')} {entry.note})")
            if entry.shown is not None:
                if entry.heat is not None:
                    shown.append(self._heat_button(entry))
                shown.append(entry.shown)
                designer_area = getattr(entry.shown, "designer_area", None)
                if isinstance(designer_area, w.Widget):
                    shown.append(designer_area)
        self.artifacts_area.children = shown
        if errors:
            self.show_error("; ".join(errors))

    def _heat_button(self, entry: Opened) -> w.Button:
        button = w.Button(description="Heat on canvas", icon="fire", layout=w.Layout(width="auto"),
                          tooltip="Colour the canvas by this report's layer times (the legend's × hides it)")

        def heat(_button: Any = None) -> None:
            failed = entry.heat() if entry.heat is not None else None
            self.show_error(failed or "")

        button.on_click(heat)
        self.heat_button = button
        return button

    def _set_running(self, running: bool) -> None:
        self.run_button.disabled = running or self.refused() is not None
        self.target.disabled = running
        self.disable_form(running)
        if running:
            self.log_box.layout.display = ""
            self.controls.follow(None)
        else:
            self.cancel_button.disabled = True

    def show_error(self, said: str) -> None:
        self.error.value = tag("div", said, class_=self.error_class, style="color:#b91c1c") if said else ""

    _show_error = show_error
