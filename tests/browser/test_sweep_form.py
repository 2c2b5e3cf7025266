"""The Sweep form in a real JupyterLab notebook (issue 28): a 2 models x 2 batch sizes grid built in the form runs,
the results below the form, the width of the cell (issue 42), show every point done in the table, the labelled Pareto
chart draws the four points inside its plot, and two chosen points open in the report comparison.
Screenshots: test-artifacts/screenshots/sweep_form.png, sweep_form_pareto.png, sweep_form_compare.png. And Dask from
a designer tab's Sweep… form (issue 42): a scheduler's address, then a local cluster the form starts.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import onnx
from distributed import LocalCluster
from playwright.sync_api import Locator, Page, expect

from tests.activities import _models as models
from tests.activities.test_sweep_dask_local import descendants, free_port
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, open_notebook, run_all, screenshot, write_notebook
from tests.browser.tab_driver import TAB, open_workspace, wait_canvas
from tests.browser.test_designer_dock import close_launcher

REPO = Path(__file__).resolve().parents[2]


def test_build_run_chart_and_compare_a_sweep(jupyter: JupyterServer, page: Page) -> None:
    root: Path = jupyter.root_dir
    onnx.save(models.resnet_like(blocks=1, channels=4, size=8), str(root / "sweep_a.onnx"))
    onnx.save(models.resnet_like(blocks=1, channels=8, size=8), str(root / "sweep_b.onnx"))
    write_notebook(root / "sweep_form.ipynb", [
        f"import os, sys\nsys.path.insert(0, {str(REPO)!r})\nos.environ['PYTHONPATH'] = {str(REPO)!r}\n"
        "import dld_jupyter as dld\nf = dld.sweep_form('sweep_a.onnx', batch='1', out='sweep_out', iterations=3)\nf",
    ])
    open_notebook(page, jupyter, "sweep_form.ipynb")
    run_all(page)
    panel = page.locator(".dld-sweep-panel").first
    expect(panel).to_be_visible(timeout=120_000)
    models_box = panel.locator("textarea").first
    models_box.fill(f"{root / 'sweep_a.onnx'}\n{root / 'sweep_b.onnx'}")
    batch = panel.locator(".widget-text input").first
    batch.fill("1,2")
    batch.press("Enter")
    panel.locator(".dld-run-progress button.mod-primary").click()
    expect(panel.locator(".dld-run-progress")).to_contain_text("4 done", timeout=240_000)
    expect(panel.locator("table.dld-sweep tr.dld-sweep-done")).to_have_count(4)
    expect(panel.locator(".dld-pareto-point")).to_have_count(4, timeout=30_000)
    inside = page.evaluate("""() => {
        const plot = document.querySelector('.dld-pareto-plot').getBoundingClientRect();
        return [...document.querySelectorAll('.dld-pareto-point circle, .dld-pareto-label')].every((e) => {
            const r = e.getBoundingClientRect();
            return r.width > 0 && r.left >= plot.left - 0.5 && r.right <= plot.right + 0.5
                && r.top >= plot.top - 0.5 && r.bottom <= plot.bottom + 0.5; }); }""")
    assert inside, "every point and label is inside the plot"
    panel.locator(".dld-pareto").first.scroll_into_view_if_needed()
    screenshot(page, "sweep_form_pareto")
    chosen = panel.locator("select").last
    options = chosen.locator("option")
    expect(options).to_have_count(4)
    chosen.select_option([options.nth(0).inner_text(), options.nth(3).inner_text()])
    panel.get_by_role("button", name="Compare").click()
    expect(panel.locator(".dld-report").first).to_be_visible(timeout=120_000)
    expect(panel.locator(".dld-report").first).to_contain_text("000-sweep_a-b1-cpu-fp32")
    screenshot(page, "sweep_form")
    panel.locator(".dld-report").first.scroll_into_view_if_needed()
    screenshot(page, "sweep_form_compare")


def _server_spawned(jupyter: JupyterServer) -> set[int]:
    """Dask worker processes (multiprocessing's spawn) anywhere under the Jupyter server: its kernels' clusters."""
    found = set()
    for pid in descendants(jupyter.process.pid):
        try:
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.add(pid)
        except OSError:
            continue
    return found


def finished(panel: Locator, folder: str) -> Locator:
    """Wait for the end of the sweep in `folder` (its results table, in a tab beside the designer, names the folder:
    the bar still says the last sweep's "2 done" while a local cluster starts), then for the panel to say so;
    returns that table."""
    table = panel.page.locator(f"{TAB} .dld-sweep-results table.dld-sweep").filter(has_text=f"{folder}:")
    expect(table).to_contain_text(f"{folder}: 2 done", timeout=240_000)
    expect(panel.locator(".dld-run-progress button.mod-primary")).to_be_enabled(timeout=60_000)
    expect(panel.locator(".dld-run-progress")).to_contain_text("2 done")
    return table


def test_dask_from_the_designer_form_with_an_address_and_with_a_local_cluster(jupyter: JupyterServer,
                                                                              page: Page) -> None:
    """Issue 42: Sweep… in a designer tab with executor "dask" asked for a distributed.Client, and a designer tab
    has no console. Real Dask: a scheduler started here, given by address in the form; then "Start a local cluster"
    (a LocalCluster in the tab's kernel, gone when the sweep ends); an address where nothing listens is said at once.
    Screenshots: sweep_form_dask_address.png, sweep_form_dask_local.png, sweep_form_dask_local_log.png."""
    root: Path = jupyter.root_dir
    onnx.save(models.resnet_like(blocks=1, channels=4, size=8), str(root / "dask_sweep.onnx"))
    open_workspace(page, jupyter)
    open_from_file_browser(page, "dask_sweep.onnx", "Open With DL Designer")
    wait_canvas(page, 3)
    close_launcher(page)
    # Sweep… (Tools menu) acts on the designer the sidebar has bound: enabled once bound, as the menu item is
    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:sweep')", timeout=60_000)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:sweep'); }")
    panel = page.locator(f"{TAB} .dld-sweep-panel").first
    expect(panel).to_be_visible(timeout=60_000)
    batch = panel.locator(".widget-text", has_text="Batch sizes").locator("input")
    batch.fill("1,2")
    batch.press("Enter")
    dask = panel.locator(".dld-sweep-dask")
    expect(dask).to_be_hidden()
    panel.locator(".widget-dropdown", has_text="Executor").locator("select").select_option("dask")
    expect(dask).to_be_visible(timeout=30_000)
    address = dask.locator("input[type='text']")
    folder = panel.locator(".widget-text", has_text="Folder").locator("input")
    run = panel.locator(".dld-run-progress button.mod-primary")
    log = panel.locator("textarea.dld-log-view")  # the run's log

    nowhere = f"127.0.0.1:{free_port()}"
    address.fill(nowhere)
    address.press("Enter")
    run.click()
    expect(panel.locator(".dld-run-error")).to_contain_text(f"no Dask scheduler answers at tcp://{nowhere}",
                                                            timeout=30_000)

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        address.fill(cluster.scheduler_address)
        address.press("Enter")
        folder.fill(str(root / "dask_given"))
        folder.press("Enter")
        before = cluster.scheduler.transition_counter
        run.click()
        table = finished(panel, "dask_given")
        said = f"points run on the Dask scheduler at {cluster.scheduler_address}"
        expect(log).to_have_value(re.compile(re.escape(said)))
        assert cluster.scheduler.transition_counter > before  # the points were tasks of this scheduler
        expect(table.locator("tr.dld-sweep-done")).to_have_count(2)
        log.scroll_into_view_if_needed()
        screenshot(page, "sweep_form_dask_address")

    dask.get_by_role("checkbox", name="Start a local cluster").check()
    expect(address).to_be_disabled()
    folder.fill(str(root / "dask_local"))
    folder.press("Enter")
    run.click()
    table = finished(panel, "dask_local")
    expect(log).to_have_value(re.compile(re.escape("a local cluster of 1 worker process(es) started for this sweep")))
    expect(table.locator("tr.dld-sweep-done")).to_have_count(2)
    dask.scroll_into_view_if_needed()
    screenshot(page, "sweep_form_dask_local")  # the form: the cluster ticked, the address greyed out
    log.scroll_into_view_if_needed()
    screenshot(page, "sweep_form_dask_local_log")
    deadline = time.monotonic() + 30  # stopped with the sweep: no Dask worker process is left under the kernel
    while _server_spawned(jupyter) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _server_spawned(jupyter)
    assert (root / "dask_local" / "sweep.json").is_file() and (root / "dask_given" / "sweep.json").is_file()
    assert not page.console_errors, page.console_errors  # type: ignore[attr-defined]
