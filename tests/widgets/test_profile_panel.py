"""The profiling panel: every OrtProfileSpec option is in the form, a real run of the bundled model ends in the
report viewer, Cancel stops a run, and bad settings or models are shown in the panel."""

from __future__ import annotations

import contextvars
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.widgets.designer.profile_panel import SETTINGS, ProfilePanel, profile_in_notebook
from dld_jupyter.widgets.report.report_viewer import ReportViewer

MODEL = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


def test_the_form_has_every_option_and_builds_the_spec(tmp_path: Path) -> None:
    assert set(SETTINGS) == {f.name for f in dataclasses.fields(OrtProfileSpec)} - {"model", "source_document"}
    panel = ProfilePanel(str(MODEL), iterations=7, optimize=False, threads=2, output=str(tmp_path / "r.json"))
    assert set(panel.fields) == set(SETTINGS)
    spec = panel.spec(str(MODEL))
    assert (spec.iterations, spec.optimize, spec.threads, spec.output) == (7, False, 2, str(tmp_path / "r.json"))
    assert spec.random_inputs is None and spec.batch_size is None and spec.input_folder is None
    panel.fields["random_inputs"].value = "random"
    panel.fields["batch_size"].value = 4
    assert panel.spec(str(MODEL)).random_inputs is True and panel.spec(str(MODEL)).batch_size == 4


def test_unknown_settings_are_rejected_with_a_hint() -> None:
    with pytest.raises(TypeError, match="did you mean 'iterations'"):
        profile_in_notebook(str(MODEL), iteration=3)


def test_a_run_ends_in_the_report_viewer(tmp_path: Path) -> None:
    output = tmp_path / "resnet8.dld-report.json"
    panel = profile_in_notebook(str(MODEL), run=True, iterations=5, warmup=1, output=str(output))
    assert panel.cancel_button.disabled is False or panel.handle is not None
    result = panel.wait(120)
    assert result is not None and result.ok, result and result.error
    assert output.is_file()
    assert isinstance(panel.viewer, ReportViewer)
    assert panel.report_area.children[0] is panel.viewer
    assert panel.viewer.report.summary.passes == 5
    assert panel.progress.value == 1.0 and panel.run_button.disabled is False
    assert "[" in panel.log_box.value  # log lines streamed in


def test_cancel_stops_the_run(tmp_path: Path) -> None:
    panel = ProfilePanel(str(MODEL), iterations=100_000, warmup=0, output=str(tmp_path / "c.json"))
    handle = panel.run()
    assert handle is not None
    handle.wait(1.5)
    panel.cancel()
    result = panel.wait(60)
    assert result is not None and result.status is ActivityStatus.CANCELLED
    assert panel.phase.value == "cancelled" and panel.viewer is None
    assert not (tmp_path / "c.json").exists()


def test_errors_are_shown_in_the_panel(tmp_path: Path) -> None:
    panel = ProfilePanel(str(tmp_path / "missing.onnx"), output=str(tmp_path / "m.json"))
    panel.run()
    panel.wait(60)
    assert "dld-profile-error" in panel.error.value
    panel = ProfilePanel(str(MODEL))
    panel.fields["random_inputs"].value = "from folder"  # no folder given: the spec refuses it
    assert panel.run() is None
    assert "input_folder" in panel.error.value or "folder" in panel.error.value


# ipykernel keeps the request a message answers in a ContextVar; a thread of ours has none and published under the
# kernel's latest request (often the Lab sidebar's, on a subshell JupyterLab deletes when the sidebar follows another
# tab), and the browser's next click on that widget was routed there and dropped.
REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar("request")


def test_the_runs_threads_update_the_panel_in_the_context_of_the_click_that_started_it(tmp_path: Path) -> None:
    panel = ProfilePanel(str(MODEL), iterations=5, warmup=1, output=str(tmp_path / "r.json"))
    seen: dict[str, set[str | None]] = {"progress": set(), "log": set(), "end": set()}
    show, append, set_running = panel.controls.show, panel.log_box.append, panel._set_running

    def record(kind: str, call: Any) -> Any:
        def recorded(*args: Any) -> Any:
            seen[kind].add(REQUEST.get(None))
            return call(*args)
        return recorded

    panel.controls.show = record("progress", show)
    panel.log_box.append = record("log", append)
    panel._set_running = record("end", set_running)  # type: ignore[method-assign]

    def click() -> Any:
        REQUEST.set("the click on Profile")
        return panel.run()

    assert contextvars.copy_context().run(click) is not None
    result = panel.wait(120)
    assert result is not None and result.ok, result and result.error
    assert seen == {kind: {"the click on Profile"} for kind in seen}, seen
