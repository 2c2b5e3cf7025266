"""The designer's "Check against original" as a run (issue 30; of the activity worker since issue 35): the toolbar
operation starts it on the designer's job widget (the Tools dialogs' progress/cancel widget) and returns; the bar
follows the windows, Cancel stops it with nothing drawn and no private copy left; a finished run draws the overlay;
the blocking method shows the same bar."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import onnx
import pytest

from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.frontdoor.compare_runs import divergence_of
from dld_jupyter.frontdoor.operations import operations
from dld_jupyter.frontdoor.runs import track
from dld_jupyter.widgets.designer.designer import Designer, open_designer
from tests import models
from tests.model_compare import test_divergence_run as runs

FEEDS = runs.FEEDS
temp_root = runs.temp_root  # the fixture: private copies go to a folder of the test's own

@pytest.fixture
def designer(tmp_path: Path) -> Iterator[Designer]:
    onnx.save(models.transformer_like(layers=2), str(tmp_path / "model.onnx"))
    opened = open_designer(tmp_path / "model.onnx", grouping="none")
    yield opened
    opened.close()


def _until(predicate: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)


def _window(phase: str) -> int:
    """The window number a phase shows ("… window 7/69: 1 tensor from …"; 0 for any other phase)."""
    found = re.search(r"window (\d+)/", phase)
    return int(found.group(1)) if found else 0


def test_cancel_on_the_job_widget_stops_the_check(designer: Designer, temp_root: Path) -> None:
    job = designer.compare_job
    assert job.layout.display == "none"
    run = operations.get("dld:check-against-original")(designer, inputs=FEEDS, window=1)
    assert run is job.current and track().find(job.current.id) is run  # returned at once, a listed run
    assert job.layout.display == "" and not job.cancel_button.disabled
    # past its first window (any later one: the phase moves on every few ms, and a loaded runner's poll can miss the
    # second window's whole stay, then waited here for it until the run had ended)
    _until(lambda: _window(job.phase.value) >= 2)
    shown = job.progress.value
    assert 0.0 < shown < 1.0 and "window " in job.phase.value and "/layers." in job.phase.value
    job.cancel_button.click()
    assert job.wait(60)
    assert run.status is ActivityStatus.CANCELLED and job.phase.value == "cancelled"
    assert "Check against original: cancelled" in job.error.value and job.progress.bar_style == "warning"
    assert job.cancel_button.disabled and job.progress.value < 1.0
    overlay = designer.canvas.overlays.get("divergence")
    assert overlay is None or not overlay.shown
    assert runs._emptied(temp_root)


def test_a_finished_check_fills_the_bar_and_draws_the_overlay(designer: Designer, temp_root: Path) -> None:
    job = designer.compare_job
    run = operations.get("dld:check-against-original")(designer, inputs=FEEDS, window=16)
    assert job.wait(60) and run.status is ActivityStatus.SUCCEEDED
    assert job.progress.value == 1.0 and job.phase.value == "done" and job.progress.bar_style == "success"
    overlay = designer.canvas.overlays.get("divergence")
    assert overlay is not None and overlay.shown and overlay.divergence.windows == 5
    assert runs._emptied(temp_root) or [p.name for f in runs.ours(temp_root) for p in f.iterdir()] == [
        "divergence.json"]  # the copies are gone; the table stays (until the process exits) for the runs list


def test_a_check_the_model_was_edited_during_is_not_drawn(designer: Designer, temp_root: Path) -> None:
    """The run divides a private copy made at its start: edited meanwhile, its divergence describes the model as it
    was, and drawn it would colour nodes that changed (issue 42). It is said under the job instead."""
    job = designer.compare_job
    operations.get("dld:check-against-original")(designer, inputs=FEEDS, window=16)
    node = designer.document.nodes()[5]
    designer.document.rename_node(node.id, "renamed_while_checking")  # before the worker has even started
    assert job.wait(60)
    assert "the model changed while it ran" in job.error.value and "run it again" in job.error.value
    overlay = designer.canvas.overlays.get("divergence")
    assert overlay is None or not overlay.shown
    assert designer.overlays.active == []


def test_the_blocking_check_shows_the_same_bar_and_refuses_a_second_run(designer: Designer) -> None:
    result = designer.check_against_original(inputs=FEEDS, window=16)
    job = designer.compare_job
    assert result.windows == 5 and job.progress.value == 1.0 and job.phase.value == "done"
    operations.get("dld:check-against-original")(designer, inputs=FEEDS, window=1)
    with pytest.raises(ValueError, match="already running"):
        designer.check_against_original(inputs=FEEDS)
    job.cancel_button.click()
    assert job.wait(60)


def test_the_fp16_dialogs_check_button_reports_each_window_on_its_job(designer: Designer) -> None:
    """Convert to FP16 in place, then the dialog's "Check against original": the dialog's job runs the divergence as
    a listed run whose progress says each window, and the overlay is drawn when it ends."""
    from dld_jupyter.widgets.tools.model_dialog import IN_PLACE

    dialog = designer.tools_panel("convert_fp16", compare=False)
    dialog.destination.value = IN_PLACE
    dialog.run()
    assert dialog.wait(120) is not None
    check = dialog.status_area.children[-1]
    assert "dld-tool-check" in check._dom_classes
    check.click()
    assert dialog.job.wait(120)
    run = dialog.job.current
    assert run is not None and run.status is ActivityStatus.SUCCEEDED and track().find(run.id) is run
    windows = [line.message for line in run.logs if line.message.startswith("window ")]
    made = divergence_of(run)  # type: ignore[arg-type]
    assert windows and windows[-1].startswith(f"window {made.windows}/{made.windows}:")
    assert dialog.job.progress.value == 1.0 and designer.canvas.overlays.get("divergence").shown
