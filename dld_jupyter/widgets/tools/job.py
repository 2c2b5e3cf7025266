"""The busy part every tool dialog shares: a spinning wheel with the progress bar and its phase, Cancel, the error
line, and the work itself on a background thread.

Why a thread: FP16 conversion, sanitize and their output comparison take seconds to minutes on real models; run on
the kernel's main thread they would freeze the notebook and Cancel could never be clicked. The work gets a
`progress(fraction, message)` callback and a `CancelToken` (transforms/progress.py); what it returns is handed to
`finish` back on the kernel's main thread (its loop is taken when the job starts), because `finish` may edit the
open document, and the canvas must get its patches in the order the kernel handles its messages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from dld_jupyter.document import DocumentError
from dld_jupyter.formats.html_text import tag, text
from dld_jupyter.frontdoor.soon import on_loop, running_loop
from dld_jupyter.transforms.progress import Cancelled, CancelToken, Progress

Work = Callable[[Progress, CancelToken], Any]
SPINNER = '<i class="fa fa-spinner fa-spin" aria-label="working"></i> '


def error_html(text: str) -> str:
    return tag("div", text, class_="dld-tool-error", style="color:#b91c1c") if text else ""


class Job(w.HBox):  # type: ignore[misc]
    """Progress bar + phase + Cancel; `start(work, finish)` runs `work` on a thread and `finish(result)` on the
    kernel's main thread; a failure or a cancel is shown in `error` (the dialog places it) and `failed(text)` runs."""

    def __init__(self) -> None:
        self.progress = w.FloatProgress(value=0.0, min=0.0, max=1.0, layout=w.Layout(width="240px"))
        self.phase = w.HTML("", layout=w.Layout(min_width="260px"))
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True, layout=w.Layout(width="auto"))
        self.cancel_button.add_class("dld-tool-cancel")
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.error = w.HTML("")
        self.token: CancelToken | None = None
        self.done = threading.Event()
        self.done.set()
        super().__init__([self.cancel_button, self.progress, self.phase])
        self.add_class("dld-tool-job")
        self.layout.display = "none"

    @property
    def running(self) -> bool:
        return not self.done.is_set()

    def start(
        self, what: str, work: Work, finish: Callable[[Any], None], failed: Callable[[str], None] | None = None
    ) -> None:
        if self.running:
            self.show_error(f"{what} is already running: cancel it first.")
            return
        loop = running_loop()  # the kernel's, when started from a click
        token = self.token = CancelToken()
        self.done = threading.Event()
        self.show_error("")
        self.layout.display = ""
        self.cancel_button.disabled = False
        self.progress.value = 0.0
        self.progress.bar_style = ""
        self.phase.value = SPINNER + "starting…"

        def report(fraction: float | None, message: str) -> None:
            if fraction is not None:
                self.progress.value = max(0.0, min(1.0, fraction))
            self.phase.value = SPINNER + text(message)

        def end(callback: Callable[[], None]) -> None:
            try:
                callback()
            except (DocumentError, OSError, ValueError) as error:  # applying the result failed
                self._failed(str(error), failed)
            finally:
                self.cancel_button.disabled = True
                self.done.set()

        def body() -> None:
            try:
                result = work(report, token)
            except Cancelled as stop:
                said = str(stop)
                on_loop(loop, lambda: end(lambda: self._failed(said, failed, cancelled=True)))
                return
            except Exception as error:  # every failure is shown in the dialog, never raised into the notebook
                text = str(error) or type(error).__name__
                on_loop(loop, lambda: end(lambda: self._failed(text, failed)))
                return
            on_loop(loop, lambda: end(lambda: self._succeeded(result, finish)))

        threading.Thread(target=body, name=f"dld-tool-{what}", daemon=True).start()

    def _succeeded(self, result: Any, finish: Callable[[Any], None]) -> None:
        finish(result)
        self.progress.value = 1.0
        self.progress.bar_style = "success"
        self.phase.value = "done"

    def _failed(self, text: str, failed: Callable[[str], None] | None, cancelled: bool = False) -> None:
        self.progress.bar_style = "warning" if cancelled else "danger"
        self.phase.value = "cancelled" if cancelled else "failed"
        self.show_error(text)
        if failed is not None:
            failed(text)

    def cancel(self) -> None:
        if self.token is not None and self.running:
            self.phase.value = SPINNER + "cancelling…"
            self.token.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has finished (scripts and tests; in a kernel the finish needs the loop running)."""
        return self.done.wait(timeout)

    def show_error(self, text: str) -> None:
        self.error.value = error_html(text)
