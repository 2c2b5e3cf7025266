"""Running one user tool on the focused model (seed 000 "User Tools"): the status dialog with the tool's stdout and
stderr as they come, Cancel (ends the process and its children: usertools/runner.py), and the `$Output` model
opened when the tool succeeds and asks for it.

The model the tool reads is the document's own file when it is saved and clean; with unsaved edits (or no file) a
copy of the edits is saved to a temporary folder, removed when the run ends, and the document stays as it is, so a
tool never sees a stale file and running one never saves the user's work behind their back. A tool that prompts for
its output asks for the path here first. The opened output is a new designer shown in this dialog, opened as every
front door opens a `model` artifact (frontdoor/artifacts.py; the registry of open designers builds it, so this
module does not import the designer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.document import Document
from dld_jupyter.formats.html_text import bold, code, join, small, tag
from dld_jupyter.frontdoor.artifacts import ARTIFACTS
from dld_jupyter.transforms.progress import CancelToken, Progress
from dld_jupyter.usertools import ToolRun, UserTool, run_tool
from dld_jupyter.usertools.runner import safe_stem
from dld_jupyter.widgets.tools.job import Job
from dld_jupyter.widgets.tools.log_view import LogView
from dld_jupyter.widgets.tools.model_dialog import STYLE, default_output
from dld_jupyter.widgets.widget_base import DldVBox


def model_for_tool(doc: Document) -> tuple[ModelRef, str]:
    """(what the tool reads, a note for the log): the document's file, or a copy of its edits in a private temporary
    folder (`ModelRef`: named from the document's name made safe, so a graph named `../x` or `/etc/x` stays in it),
    removed by the reference's `release` when the run ends."""
    ref = ModelRef.of(doc, prefix="dld_tool_model_")
    if ref.saved:
        return ref, f"model: {Path(ref.path).resolve()}"
    return ref, f"model: a saved copy of the unsaved edits, {ref.path} (the document itself is not saved)"


class ToolRunDialog(DldVBox, css="dld-tool-dialog dld-tool-run-dialog"):
    def __init__(self, target: Any, tool: UserTool, output: str | None = None, run: bool | None = None) -> None:
        self.target, self.tool = target, tool
        self.run_result: ToolRun | None = None
        self.opened: Any = None
        doc: Document = target.document
        self.output = w.Text(value=output or default_output(doc, safe_stem(tool.name, "tool")),
                             description="Model output ($Output)", style=STYLE, layout=w.Layout(width="560px"))
        self.output.add_class("dld-tool-output")
        self.output.layout.display = "" if tool.prompt_for_output else "none"
        self.run_button = w.Button(description="Run", icon="play", button_style="primary",
                                   layout=w.Layout(width="auto"))
        self.run_button.add_class("dld-tool-run")
        self.run_button.on_click(lambda _b: self.run())
        self.close_button = w.Button(description="Close", icon="times", layout=w.Layout(width="auto"))
        self.close_button.on_click(lambda _b: self.close())
        self.job = Job()
        self.stream = LogView(layout=w.Layout(width="100%"))
        self.stream.add_class("dld-tool-stream")
        self.state = w.HTML("")
        self.opened_area = w.VBox([])
        command = join([tool.application, *tool.arguments], " ")
        header = w.HTML(join([bold("User tool: ", tool.name), small(code(command))], " "))
        super().__init__([header, self.output, w.HBox([self.run_button, self.close_button]), self.job,
                          self.job.error, self.state, self.stream, self.opened_area],
                         layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)", padding="6px"))
        if run if run is not None else not tool.prompt_for_output:
            self.run()

    def _append(self, stream: str, line: str) -> None:
        self.stream.append(line if stream == "stdout" else f"[stderr] {line}")
        self.job.log("stderr" if stream == "stderr" else "info", line)  # the run's log, as a profile's

    def run(self) -> None:
        if self.tool.prompt_for_output and self.tool.uses_output and not self.output.value.strip():
            self.job.show_error(f"{self.tool.name}: give the model output path.")
            return
        doc: Document = self.target.document
        output = self.output.value.strip() if self.tool.prompt_for_output and self.tool.uses_output else None
        self.stream.clear()
        self.state.value = ""
        self.opened_area.children = []
        self.run_button.disabled = True

        def work(progress: Progress, cancel: CancelToken) -> ToolRun:
            progress(None, "saving the model for the tool")
            model, note = model_for_tool(doc)
            try:
                self._append("stdout", f"[dld] {note}")
                progress(None, f"running {self.tool.name}")
                result = run_tool(self.tool, Path(model.path).resolve(), output, on_output=self._append, cancel=cancel)
            finally:
                model.release()  # a copy of unsaved edits goes with the run (44 MB a run for ResNet-18 stayed)
            self._append("stdout", f"[dld] argv: {result.argv}")
            self.stream.flush()  # the whole log is shown before the result
            return result

        self.job.start(self.tool.name, work, self._finish, lambda _t: setattr(self.run_button, "disabled", False))

    def _finish(self, result: ToolRun) -> None:
        self.run_result = result
        self.run_button.disabled = False
        if result.cancelled:
            text, colour = "Cancelled: the tool and its child processes were ended.", "#b45309"
        elif result.timed_out:
            text, colour = "Timed out: the tool was ended.", "#b45309"
        elif result.ok:
            text, colour = "Finished (exit code 0).", "#15803d"
        else:
            text, colour = f"Failed: exit code {result.exit_code} (see the log).", "#b91c1c"
        if result.output is not None:
            text += f" Model output: {result.output}" + ("" if result.output.is_file() else " (not written)")
        self.state.value = tag("div", text, class_="dld-tool-state", style=f"color:{colour}")
        if result.cancelled:
            self.job.progress.bar_style = "warning"
        elif not result.ok:
            self.job.progress.bar_style = "danger"
        path = result.open_path
        if path is not None:
            (opened,) = ARTIFACTS.act({"model": str(path)})
            if opened.error is not None:
                self.job.show_error(opened.error)
                return
            self.opened = opened.shown
            self.opened_area.children = [w.HTML(join([bold("Opened the output"), small(path)], " ")),
                                         self.opened]

    def cancel(self) -> None:
        self.job.cancel()

    def wait(self, timeout: float | None = None) -> ToolRun | None:
        self.job.wait(timeout)
        return self.run_result
