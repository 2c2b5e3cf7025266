"""The report viewer in a real JupyterLab: a real ONNX Runtime report of the bundled ResNet and the imported
TensorRT sample. Filter the table, select three rows and read the summary, export CSV (rows match the report),
zoom the timeline from a row, click a layer name and see the designer select its ONNX node, compare two reports
of the same model (graph optimization on vs off). Screenshots go to test-artifacts/screenshots/report_*.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from dld_jupyter.activities.api import profile
from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.compare import compare
from dld_jupyter.reports.export import to_csv
from dld_jupyter.reports.stats import summarize
from dld_jupyter.reports.summary_text import target_text
from dld_jupyter.reports.trtexec import import_trtexec
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, screenshot, write_notebook

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
TRT = REPO / "tests" / "data" / "trt" / "tf-resnet50-rtx3090-fp16.engine"
VIEWER = ".dld-report[data-ready='1']"


@pytest.fixture(scope="module")
def ort_reports(jupyter: JupyterServer) -> dict[str, Path]:
    """Two real ONNX Runtime profiles of the bundled model: graph optimization on and off."""
    paths = {}
    for name, optimize in (("opt", True), ("noopt", False)):
        path = jupyter.root_dir / f"resnet8_{name}.dld-report.json"
        profile(str(MODEL), iterations=20, warmup=3, optimize=optimize, output=str(path))
        paths[name] = path
    return paths


@pytest.fixture(scope="module")
def trt_report(jupyter: JupyterServer) -> Path:
    path = jupyter.root_dir / "trt.dld-report.json"
    from dld_jupyter.report_format.io import save_report

    save_report(import_trtexec(f"{TRT}.profile.json", layers=f"{TRT}.graph.json", times=f"{TRT}.timing.json"), path)
    return path


def show(page: Page, jupyter: JupyterServer, name: str, cells: list[str]) -> None:
    write_notebook(jupyter.root_dir / name, cells)
    open_notebook(page, jupyter, name)
    run_all(page)
    page.wait_for_selector(VIEWER, timeout=60_000)


def rows(page: Page) -> list[str]:
    return page.evaluate(
        """() => [...document.querySelectorAll('.dld-report .dld-vt-row')]
                 .filter(r => r.style.display !== 'none').map(r => r.dataset.pos)"""
    )


def row(page: Page, position: int):  # type: ignore[no-untyped-def]
    return page.locator(f".dld-report .dld-vt-row[data-pos='{position}']").first


def filter_select_summarize(page: Page, report: Report, needle: str, picks: list[int]) -> None:
    table_filter = page.locator(".dld-report .dld-r-filter").first
    cells = page.locator(".jp-Notebook .jp-Cell").count()
    table_filter.press_sequentially(needle)  # real keys: none may reach JupyterLab's command-mode shortcuts
    assert page.locator(".jp-Notebook .jp-Cell").count() == cells
    expected = [str(i) for i, layer in enumerate(report.layers) if needle.lower() in layer.name.lower()]
    count = page.locator(".dld-report .dld-r-count").first
    expect(count).to_have_text(f"{len(expected)} of {len(report.layers)} layers")
    shown = rows(page)  # virtualized: the rows in view, all of them matching
    assert shown and set(shown) <= set(expected) and (len(expected) > 12 or sorted(shown, key=int) == expected)
    table_filter.fill("")
    expect(page.locator(".dld-report .dld-r-count").first).to_have_text(f"{len(report.layers)} layers")
    row(page, picks[0]).locator(".dld-vt-td").nth(2).click()
    for p in picks[1:]:
        row(page, p).locator(".dld-vt-td").nth(2).click(modifiers=["Control"])
    panel = page.locator(".dld-report .dld-r-selsum").first
    expect(panel).to_have_attribute("data-count", "3")
    expect(panel).to_contain_text("Selection: 3 layers")
    python = summarize(report, sorted(picks))
    total = float(panel.locator("[data-column='median_ms'] [data-stat='total']").get_attribute("data-value") or "nan")
    assert total == pytest.approx(python.times["median_ms"].total, rel=1e-12)
    most = panel.locator("[data-column='precision'] .dld-r-selsum-value").inner_text()
    assert most == ", ".join(python.discrete["precision"].most_common)
    tooltip = panel.locator("[data-column='type'] .dld-r-selsum-value").get_attribute("title") or ""
    assert tooltip.splitlines() == [f"{v} × {n}" for v, n in python.discrete["type"].counts]


def export_csv_matches(page: Page, report: Report) -> None:
    with page.expect_download() as info:
        page.locator(".dld-report .dld-r-csv").first.click()
    text = Path(info.value.path()).read_text()
    assert text == to_csv(report)


def zoom_from_row(page: Page, report: Report, position: int) -> None:
    # Rows are virtualized: scroll the table (rows are 22 px, inference order) until the row exists.
    page.evaluate(
        "p => { document.querySelector('.dld-report .dld-vt').scrollTop = Math.max(0, p * 22 - 60); }",
        position,
    )
    row(page, position).wait_for()
    row(page, position).locator(".dld-vt-td").nth(2).dblclick()
    timeline = page.locator(".dld-report .dld-r-timeline").first
    expect(timeline).to_have_attribute("data-focus", str(position))
    event = next(e for e in report.timeline if e.layer == position)
    t0 = float(timeline.get_attribute("data-t0") or "nan")
    t1 = float(timeline.get_attribute("data-t1") or "nan")
    assert t0 <= event.start_ms and event.start_ms + event.duration_ms <= t1
    assert t1 - t0 <= 3 * max(event.duration_ms, 1e-6)


def timeline_gestures(page: Page) -> None:
    """Zoom to fit from the right-click menu, Ctrl+wheel zooms in, a drag measures a time range."""
    timeline = page.locator(".dld-report .dld-r-timeline").first
    canvas = timeline.locator("canvas")
    timeline.evaluate("e => e.scrollIntoView({ block: 'center' })")
    canvas.click(button="right", position={"x": 400, "y": 36})
    page.locator(".dld-r-menu-item", has_text="Zoom to fit").click()
    timeline.evaluate("e => e.scrollIntoView({ block: 'center' })")  # clear of the notebook's sticky toolbar
    box = canvas.bounding_box()
    assert box is not None
    y = box["y"] + 36
    span = lambda: float(timeline.get_attribute("data-t1") or 0) - float(timeline.get_attribute("data-t0") or 0)  # noqa: E731
    page.wait_for_timeout(100)
    full = span()
    page.mouse.move(box["x"] + box["width"] / 2, y)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -400)
    page.keyboard.up("Control")
    page.wait_for_timeout(100)
    assert span() < full / 1.5
    page.mouse.move(box["x"] + 300, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 420, y, steps=4)
    page.mouse.up()
    measured = float(timeline.get_attribute("data-measure") or 0)
    assert measured == pytest.approx(span() * 120 / (box["width"] - 120), rel=0.1)
    screenshot(page, "report_timeline_measure", ".dld-report .dld-r-timeline")


def test_ort_report(jupyter: JupyterServer, page: Page, ort_reports: dict[str, Path]) -> None:
    report = load_report(ort_reports["opt"])
    cell = f"import dld_jupyter as dld\nv = dld.report({str(ort_reports['opt'])!r})\nv"
    show(page, jupyter, "report_ort.ipynb", [cell])
    # where it ran, in the header (issue 42: system.target was in the JSON only)
    header = page.locator(".dld-report .dld-r-summary-grid", has_text="Median inference time")
    expect(header).to_contain_text(f"Target{target_text(report)}")
    expect(header).to_contain_text(f"Device{report.summary.device}")
    screenshot(page, "report_ort_open")
    filter_select_summarize(page, report, "block0/CONV1", [0, 2, 4])
    screenshot(page, "report_ort_selection", ".dld-report")
    export_csv_matches(page, report)
    slowest = max(range(len(report.layers)), key=lambda i: report.layers[i].median_ms)
    zoom_from_row(page, report, slowest)
    screenshot(page, "report_ort_zoomed", ".dld-report .dld-r-timeline")
    # A layer name links to its ONNX nodes: the designer opens below the viewer with the node selected.
    target = next(i for i, layer in enumerate(report.layers) if layer.onnx_nodes)
    # The table recycles its row elements while it scrolls: bring the row into view and let it settle first, or
    # the click can land on another layer's link drawn in the same element.
    link = row(page, target).locator(".dld-r-link")
    link.scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    expect(link).to_have_text(report.layers[target].name)
    link.click()
    page.wait_for_selector(".dld-stage", timeout=90_000)
    page.wait_for_function(
        "() => { const s = document.querySelector('.dld-stage'); return s && s._cyreg && "
        "s._cyreg.cy.nodes(':selected').length > 0; }",
        timeout=60_000,
    )
    selected = page.evaluate(
        "() => document.querySelector('.dld-stage')._cyreg.cy.nodes(':selected')"
        ".map(n => String(n.data('label')).split('\\n')[0])"  # canvas labels are "name\nop_type"
    )
    # Canvas labels show the node's name inside its name-scope group ("/stem/conv/Conv" -> "Conv").
    nodes = report.layers[target].onnx_nodes
    assert sorted(selected) == sorted(n.rsplit("/", 1)[-1] for n in nodes)
    page.locator(".dld-stage").first.scroll_into_view_if_needed()
    screenshot(page, "report_ort_designer")
    # The magnifier menu lists sources, producers and consumers from the model file.
    row(page, target).locator(".dld-vt-td").nth(2).click()
    row(page, target).locator(".dld-r-mag").click()
    menu = page.locator(".dld-r-links-menu")
    expect(menu).to_contain_text("Producers of its inputs")
    expect(menu.locator(".dld-r-menu-item").first).to_be_visible()
    page.wait_for_function("() => !document.querySelector('.dld-r-links-menu').textContent.includes('loading')")
    screenshot(page, "report_ort_links_menu", ".dld-report")
    assert not [e for e in page.console_errors if "dld" in e.lower()]  # type: ignore[attr-defined]


def test_trt_report(jupyter: JupyterServer, page: Page, trt_report: Path) -> None:
    report = load_report(trt_report)
    show(page, jupyter, "report_trt.ipynb", [f"import dld_jupyter as dld\nv = dld.report({str(trt_report)!r})\nv"])
    expect(page.locator(".dld-report .dld-r-summary")).to_contain_text("Inference device")
    screenshot(page, "report_trt_open")
    filter_select_summarize(page, report, "conv4_block", [2, 5, 9])
    export_csv_matches(page, report)
    zoom_from_row(page, report, max(range(30, len(report.layers)), key=lambda i: report.layers[i].median_ms))
    screenshot(page, "report_trt_zoomed", ".dld-report")
    timeline_gestures(page)
    # No model came with the trtexec files: names are plain text; the magnifier still lists the source nodes
    # parsed from the fused name, and following one explains how to link the model.
    page.evaluate("() => { document.querySelector('.dld-report .dld-vt').scrollTop = 0; }")
    expect(row(page, 2).locator(".dld-r-link")).to_have_count(0)
    row(page, 2).locator(".dld-vt-td").nth(2).click()
    row(page, 2).locator(".dld-r-mag").click()
    menu = page.locator(".dld-r-links-menu")
    expect(menu).to_contain_text("resnet50/conv1_relu/Relu")
    expect(menu).to_contain_text("--model")
    screenshot(page, "report_trt_links_menu", ".dld-report .dld-r-table")
    menu.locator(".dld-r-menu-item", has_text="resnet50/conv1_relu/Relu").click()
    expect(page.locator(".dld-report .dld-r-notice.error")).to_contain_text("--model")
    page.locator(".dld-r-charts").first.scroll_into_view_if_needed()
    screenshot(page, "report_trt_charts", ".dld-report .dld-r-charts")


def test_compare_optimized_and_not(jupyter: JupyterServer, page: Page, ort_reports: dict[str, Path]) -> None:
    a, b = (str(ort_reports[k]) for k in ("opt", "noopt"))
    show(
        page,
        jupyter,
        "report_compare.ipynb",
        [
            f"import dld_jupyter as dld\nfrom dld_jupyter.widgets.report.report_viewer import compare_reports\n"
            f"v = compare_reports({a!r}, {b!r}, labels=['optimized', 'not optimized'])\nv"
        ],
    )
    summary = page.locator(".dld-report .dld-r-cmp-summary")
    expect(summary.locator("tr")).to_have_count(3)
    expect(summary).to_contain_text("not optimized")
    noopt = load_report(ort_reports["noopt"])
    opt = load_report(ort_reports["opt"])
    assert len(noopt.layers) > len(opt.layers)  # optimization fused nodes
    # The header counts rows both reports have, not rows (a layer only one report has is a row too).
    both = compare([opt, noopt], ["optimized", "not optimized"])
    assert both.matched_count < len(both.layers)
    count = page.locator(".dld-report .dld-r-compare .dld-r-count").first
    only = len(both.layers) - both.matched_count
    rows_text = f"{len(both.layers)} rows ({only} in one report only)"
    expect(count).to_have_text(f"{both.matched_count} matched layers · {rows_text}")
    screenshot(page, "report_compare", ".dld-report")
    page.locator(".dld-report .dld-r-baseline").select_option("1")
    expect(summary.locator("tr.baseline")).to_contain_text("not optimized")
    # A layer both runs have, matched by name and type, with its difference against the new baseline.
    python = compare([opt, noopt], ["optimized", "not optimized"], baseline=1)
    flatten = next(m for m in python.layers if m.name == "/flatten/Flatten")
    page.locator(".dld-report .dld-r-compare .dld-r-filter").first.fill("flatten")
    expect(count).to_have_text(f"1 of {both.matched_count} matched layers")
    match = page.locator(".dld-report .dld-r-compare .dld-vt-row").filter(has_text="/flatten/Flatten").first
    expect(match).to_contain_text(f"{flatten.diffs_ms[0]:+.4f}")
    page.locator(".dld-report .dld-r-tab", has_text="not optimized").click()
    expect(page.locator(".dld-report .dld-r-page .dld-r-summary").last).to_contain_text("disabled")
    screenshot(page, "report_compare_tab", ".dld-report")
    json.dumps(page.console_errors)  # type: ignore[attr-defined]


def test_profile_panel_opens_the_report(jupyter: JupyterServer, page: Page) -> None:
    """A finished profile activity opens its report: the panel's form, its progress, then the viewer."""
    output = jupyter.root_dir / "panel.dld-report.json"
    cell = (
        "from dld_jupyter.widgets.designer.profile_panel import profile_in_notebook\n"
        f"panel = profile_in_notebook({str(MODEL)!r}, run=True, iterations=10, warmup=2, output={str(output)!r})\n"
        "panel"
    )
    show(page, jupyter, "report_panel.ipynb", [cell])
    expect(page.locator(".dld-profile-panel")).to_contain_text("Profile with ONNX Runtime")
    expect(page.locator(".dld-profile-panel .dld-report .dld-r-summary")).to_contain_text("resnet8_cifar")
    assert output.is_file()
    screenshot(page, "report_profile_panel")
