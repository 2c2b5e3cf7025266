"""The sidebar's Runs section in a real JupyterLab (seed 001's Inference Run Logger): a profile, a sweep and a
divergence run from a notebook (no designer open) are listed with their state and figures; each row's Copy puts its
command line on the clipboard, and that line, run in a shell, makes the same kind of artifact again (a report, a
sweep folder, the divergence JSON). The report opens from its row in the report viewer."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, run_notebook, screenshot

SAMPLE = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
PANEL = "#dld-jupyter-sidebar"


def copied(page: Page, row: object) -> str:
    """Click the row's Copy and read what the clipboard holds."""
    row.locator(".dld-Runs-copy").click()  # type: ignore[attr-defined]
    expect(row.locator(".dld-Runs-copy")).to_have_text("Copied")  # type: ignore[attr-defined]
    return str(page.evaluate("() => navigator.clipboard.readText()"))


def in_shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a pasted command line as a user would, through bash (its quoting included)."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_profile_sweep_and_divergence_are_listed_and_their_command_lines_run(
    jupyter: JupyterServer, page: Page, tmp_path: Path
) -> None:
    root = jupyter.root_dir
    model = root / "runs model.onnx"  # a space: the copied line must quote it
    shutil.copy(SAMPLE, model)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    run_notebook(page, jupyter, "runs.ipynb", [
        "import dld_jupyter as dld\n"
        "r = dld.profile('runs model.onnx', iterations=3, warmup=0, threads=1, output='profiled.dld-report.json')",
        "s = dld.sweep(['runs model.onnx'], batch=[1, 2], iterations=2, warmup=0, out='sweep one')\ns.wait()",
        "v = dld.diverge('runs model.onnx', 'runs model.onnx')",
        "dld.runs()",
    ])
    table = page.locator(".dld-runs-table")
    expect(table.locator("tbody tr")).to_have_count(3)  # the notebook's table: the same runs, the sweep one row
    screenshot(page, "runs_table_in_notebook", ".jp-OutputArea-output:has(.dld-runs-table)")
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    panel = page.locator(PANEL)
    panel.locator(".dld-Sidebar-tab", has_text="Runs").click()
    rows = panel.locator(".dld-Runs-row:not(.dld-Runs-points .dld-Runs-row)")
    profile = rows.filter(has=page.locator(".dld-Runs-kind", has_text="profile"))
    sweep = rows.filter(has=page.locator(".dld-Runs-kind", has_text="sweep"))
    divergence = rows.filter(has=page.locator(".dld-Runs-kind", has_text="divergence"))
    for row in (profile, sweep, divergence):
        expect(row).to_have_count(1, timeout=30_000)
        expect(row.locator(".dld-Runs-state")).to_have_text("succeeded")
    median = kernel_value(page, jupyter, "r.summary.median_ms")
    expect(profile.locator(".dld-Runs-meta")).to_contain_text(f"median {median:.3f} ms")
    expect(profile.locator(".dld-Runs-model")).to_have_text("runs model.onnx")
    sweep.get_by_role("button", name="Points (2)").click()
    expect(sweep.locator(".dld-Runs-points .dld-Runs-row")).to_have_count(2)
    screenshot(page, "runs_list", PANEL)

    # Each copied line is the one shown, and reproduces its run's artifact from a shell.
    line = copied(page, profile)
    assert line == profile.locator(".dld-Runs-commandText").inner_text()
    report = root / "profiled.dld-report.json"
    report.unlink()
    done = in_shell(line, tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text())["summary"]["passes"] == 3

    line = copied(page, sweep)
    folder = root / "sweep one"
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.dld-report.json")}
    assert len(stamps) == 2
    done = in_shell(line, tmp_path)
    assert done.returncode == 0, done.stderr
    again = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.dld-report.json")}
    assert again.keys() == stamps.keys() and all(again[name] > stamps[name] for name in stamps)  # measured again
    assert all(p["state"] == "done" for p in json.loads((folder / "sweep.json").read_text())["points"])
    sweep.get_by_role("button", name="Show folder").click()  # the file browser goes to the sweep's folder
    expect(page.locator(".jp-FileBrowser .jp-BreadCrumbs")).to_contain_text("sweep one", timeout=30_000)
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")  # it shares the left area

    line = copied(page, divergence)
    assert shlex.split(line)[:2] == ["dld", "diverge"]
    done = in_shell(line + " --json", tmp_path)
    assert done.returncode == 0, done.stderr
    shell = json.loads(done.stdout)
    kernel = kernel_value(page, jupyter, "v.to_dict()")
    assert shell["first"] == kernel["first"] and len(shell["rows"]) == len(kernel["rows"]) > 0

    # The profile's report opens from its row in the report viewer, in a tab beside the notebook on its kernel: the
    # Runs tab still lists the runs while the report is in front.
    profile.get_by_role("button", name="Open report").click()
    expect(page.locator(".lm-TabBar-tab", has_text="profiled.dld-report.json").first).to_be_visible(timeout=60_000)
    expect(page.locator(".dld-report[data-ready='1']").first).to_be_visible(timeout=90_000)
    expect(sweep).to_have_count(1)
    screenshot(page, "runs_list_open_report")
    theme = "() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab %s'})"
    page.evaluate(theme % "Dark")  # the theme is a server setting: put back for the tests after this one
    try:
        expect(page.locator("body[data-jp-theme-light='false']")).to_have_count(1, timeout=30_000)
        screenshot(page, "runs_list_dark", PANEL)
    finally:
        page.evaluate(theme % "Light")
        expect(page.locator("body[data-jp-theme-light='true']")).to_have_count(1, timeout=30_000)


def test_a_live_sweep_moves_and_cancel_stops_it(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(SAMPLE, jupyter.root_dir / "long.onnx")
    run_notebook(page, jupyter, "long_runs.ipynb", [
        "import dld_jupyter as dld\n"
        "s = dld.sweep(['long.onnx'], batch=[1, 2], iterations=200000, warmup=0, out='long sweep')",
    ])
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    panel = page.locator(PANEL)
    panel.locator(".dld-Sidebar-tab", has_text="Runs").click()
    sweep = panel.locator(".dld-Runs-row[data-kind='sweep']")
    state = sweep.locator(":scope > .dld-Runs-head .dld-Runs-state")  # the sweep's own, not its points'
    expect(state).to_have_text("running 0%", timeout=30_000)
    sweep.get_by_role("button", name="Points (2)").click()
    expect(sweep.locator(".dld-Runs-points .dld-Runs-row.dld-mod-running")).to_have_count(1, timeout=30_000)
    screenshot(page, "runs_list_live", PANEL)
    sweep.get_by_role("button", name="Cancel").click()
    expect(state).to_have_text("cancelled", timeout=60_000)
    row = kernel_value(page, jupyter, "(lambda r: [r.state, r.live, [p.state for p in r.points]])(dld.runs()[0])")
    assert row == ["cancelled", False, ["cancelled", "cancelled"]]
    screenshot(page, "runs_list_cancelled", PANEL)
