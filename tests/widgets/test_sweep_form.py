"""The Sweep form in the run panel: a 2x2 grid built in the form runs, the bar follows the points, Cancel reaches
the sweep; its results (table, labelled Pareto chart, comparison of two chosen points) open below the form, or below
a notebook designer or in a tab when a JupyterLab tab's link is set, never in the dock; bad input is said in the
panel."""

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
    results = panel.results
    assert results is not None and panel.results_shown == "here" and panel.results_area.children == (results,)
    assert "000-first-b1-cpu-fp32" in results.table.value and len(results.chosen.options) == 4
    assert results.chart.value.count('class="dld-pareto-point"') == 4  # every point drawn, labelled
    assert "first b1" in results.chart.value and "second b2" in results.chart.value
    assert "white-space:normal" in results.table.value  # the note column reads as text, not a word per line
    results.chosen.value = results.chosen.options[1:3]
    viewer = panel.compare()
    assert type(viewer).__name__ == "ReportViewer" and results.comparison.children == (viewer,)


def test_form_says_what_is_wrong_and_cancel_stops(tmp_path: Path) -> None:
    model = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m")
    panel = sweep_form(str(model), batch="1,x", out=str(tmp_path / "bad"))
    assert panel.run() is None and "not a comma-separated list of integers" in panel.error.value
    panel = sweep_form(str(model), batch="1,2,3,4", out=str(tmp_path / "out"), iterations=20000, run=True)
    panel.cancel_button.click()
    assert panel.wait(120)
    states = {p.state for p in panel.sweep.points()} if panel.sweep else set()
    assert "cancelled" in states and states <= {"cancelled", "done"}


def test_form_runs_on_a_scheduler_it_is_given_and_on_a_local_cluster_it_starts(tmp_path: Path) -> None:
    """Issue 42: executor "dask" in the form needed a distributed.Client made in a console. Real Dask: a scheduler
    given by address in the form, then a local cluster the form starts (stopped when the sweep ends)."""
    from distributed import LocalCluster

    from dld_jupyter.activities.sweep.local_cluster import open_clusters

    model = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m")
    panel = sweep_form(str(model), batch="1", out=str(tmp_path / "given"), iterations=3, executor="dask")
    assert panel.dask_box.layout.display == "" and not panel.scheduler.disabled
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        panel.scheduler.value = cluster.scheduler_address
        assert panel.executor_name() == f"dask://{cluster.scheduler_address}"
        assert panel.run() is not None and panel.wait(240)
        assert panel.controls.phase.value == "1 done", panel.error.value
        assert f"points run on the Dask scheduler at {cluster.scheduler_address}" in panel.log_box.value

    panel.local_cluster.value = True
    assert panel.scheduler.disabled and panel.executor_name() == "dask-local"
    panel.out.value = str(tmp_path / "local")
    assert panel.run() is not None
    assert len(open_clusters()) == 1 and panel.wait(240)
    assert panel.controls.phase.value == "1 done", panel.error.value
    assert "local cluster" in panel.log_box.value and open_clusters() == []  # stopped with the sweep

    panel.executor.value = "local"
    assert panel.dask_box.layout.display == "none" and panel.executor_name() is None


def test_form_says_at_once_when_no_scheduler_answers(tmp_path: Path) -> None:
    from tests.activities.test_sweep_dask_local import free_port

    model = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m")
    address = f"127.0.0.1:{free_port()}"
    panel = sweep_form(str(model), batch="1", out=str(tmp_path / "out"), executor=f"dask://{address}")
    assert panel.executor.value == "dask" and panel.scheduler.value == address
    assert panel.run() is None
    assert f"no Dask scheduler answers at tcp://{address}" in panel.error.value and not panel.batch.disabled
    panel.scheduler.value = ""  # the kernel's own client: there is none
    assert panel.run() is None and "Scheduler field" in panel.error.value


def test_results_go_below_a_notebook_designer_or_into_its_tab(tmp_path: Path) -> None:
    from dld_jupyter.frontdoor.results_tab import ResultsTab
    from dld_jupyter.widgets.designer.designer import open_designer

    model = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m")
    designer = open_designer(str(model))
    try:
        panel = designer.tools_panel("sweep", batch="1", out=str(tmp_path / "below"), iterations=2)
        assert panel.run() is not None and panel.wait(240)
        assert panel.results_shown == "below" and designer.reports.children == (panel.results,)
        assert panel.results not in designer.tools.children and panel.results_area.children == ()
        opened: list[ResultsTab] = []
        designer.open_results_tab = lambda tab: opened.append(tab) is None  # a JupyterLab tab's link
        panel.out.value = str(tmp_path / "tab")
        assert panel.run() is not None and panel.wait(240)
        assert panel.results_shown == "tab" and [tab.view for tab in opened] == [panel.results]
        assert opened[0].kind == "sweep" and opened[0].file == str(tmp_path / "tab") and opened[0].title == "Sweep tab"
    finally:
        designer.close()


def test_a_typed_address_is_text_in_the_panel(tmp_path: Path) -> None:
    model = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m")
    panel = sweep_form(str(model), batch="1", out=str(tmp_path / "out"), executor="dask")
    hostile = "<img src=x onerror=alert(1)>"
    panel.scheduler.value = f"{hostile}:1"
    said: list[str] = []
    panel.phase.observe(lambda change: said.append(change["new"]), "value")
    assert panel.run() is None
    assert said and all(hostile not in value for value in [*said, panel.error.value])
    assert any("&lt;img src=x onerror=alert(1)&gt;" in value for value in said)
