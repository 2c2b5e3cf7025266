"""The Sweep form in the run panel: a 2x2 grid built in the form runs, the bar follows the points, Cancel reaches
the sweep, the Pareto chart and the comparison of two chosen points open below; bad input is said in the panel."""

from __future__ import annotations

from pathlib import Path

from dld_jupyter.widgets.sweep.sweep_form import sweep_form
from tests.activities import _models as models
from tests.activities.conftest import save


def test_form_runs_a_two_by_two_sweep(tmp_path: Path) -> None:
    first = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "first")
    second = save(models.resnet_like(blocks=1, channels=8, size=8), tmp_path, "second")
    panel = sweep_form(str(first), batch="1,2", out=str(tmp_path / "out"), iterations=3)
    panel.models.value = f"{first}\n{second}"
    assert panel.run() is not None
    assert panel.batch.disabled and not panel.cancel_button.disabled
    assert panel.wait(240)
    assert panel.controls.progress.value == 1.0 and panel.controls.progress.bar_style == "success"
    assert panel.controls.phase.value == "4 done" and not panel.batch.disabled
    assert "000-first-b1-cpu-fp32" in panel.table.value and len(panel.chosen.options) == 4
    figure = panel.pareto()
    assert {trace.name for trace in figure.data} == {"first", "second", "Pareto front"}
    panel.chosen.value = panel.chosen.options[1:3]
    viewer = panel.compare()
    assert type(viewer).__name__ == "ReportViewer" and panel.artifacts_area.children == (viewer,)


def test_form_says_what_is_wrong_and_cancel_stops(tmp_path: Path) -> None:
    model = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m")
    panel = sweep_form(str(model), batch="1,x", out=str(tmp_path / "bad"))
    assert panel.run() is None and "not a comma-separated list of integers" in panel.error.value
    panel = sweep_form(str(model), batch="1,2,3,4", out=str(tmp_path / "out"), iterations=20000, run=True)
    panel.cancel_button.click()
    assert panel.wait(120)
    states = {p.state for p in panel.sweep.points()} if panel.sweep else set()
    assert "cancelled" in states and states <= {"cancelled", "done"}
