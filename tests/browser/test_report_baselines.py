"""Layer baselines in the report viewer (seed 001, issue 41), in a real JupyterLab on the real MobileNetV3 report:
select a layer, Add Baseline, select another, Add Baseline: each gets its own colour as a chip, a bar series in the
Layer metrics chart, a diamond on the latency chart, a dot on the precision rings (and an outline on the timeline);
the kernel sees the same list; Clear Baseline removes them. The comparison shows its network metrics chart and a
selected layer's time across the reports."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, screenshot
from tests.browser.real_reports import mobilenet_reports
from tests.browser.tab_driver import TAB, open_workspace

OPT, NOOPT = "mobilenet_opt.dld-report.json", "mobilenet_noopt.dld-report.json"
FIRST, SECOND = "#EE6677", "#228833"  # baselines.ts BASELINE_COLOURS[0], [1]


def _row(viewer, position: int):  # type: ignore[no-untyped-def]
    return viewer.locator(f".dld-r-table .dld-vt-row[data-pos='{position}']").first


def test_two_baselines_colour_every_chart(jupyter: JupyterServer, page: Page) -> None:
    mobilenet_reports(jupyter.root_dir)
    open_workspace(page, jupyter)
    open_from_file_browser(page, OPT, "Open With DL Designer Report Viewer")
    viewer = page.locator(f"{TAB} .dld-report").first
    add = viewer.locator("button.dld-r-add-baseline")
    expect(add).to_be_visible(timeout=90_000)
    if viewer.locator("button.dld-r-vtab[data-tab='layers']").count():
        viewer.locator("button.dld-r-vtab[data-tab='layers']").click()
    _row(viewer, 0).locator(".dld-vt-td").nth(2).click()
    expect(viewer.locator(".dld-r-layer-metrics rect.dld-r-bar")).to_have_count(4)  # the selected layer, grey
    add.click()
    _row(viewer, 1).locator(".dld-vt-td").nth(2).click()
    add.click()
    chips = viewer.locator(".dld-r-baseline-chip")
    expect(chips).to_have_count(2)
    assert [chips.nth(k).get_attribute("data-colour") for k in range(2)] == [FIRST, SECOND]
    for colour in (FIRST, SECOND):
        expect(viewer.locator(f".dld-r-layer-metrics rect.dld-r-bar[data-colour='{colour}']")).to_have_count(4)
        expect(viewer.locator(f".dld-r-latency .dld-r-baseline-mark[data-colour='{colour}']")).to_have_count(1)
        expect(viewer.locator(f".dld-r-precision .dld-r-baseline-mark[data-colour='{colour}']")).to_have_count(1)
    viewer.locator(".dld-r-charts").first.scroll_into_view_if_needed()
    screenshot(page, "report_two_baselines")
    viewer.locator("button.dld-r-clear-baseline").click()
    expect(chips).to_have_count(0)
    expect(viewer.locator(".dld-r-baseline-mark")).to_have_count(0)


def test_comparison_network_chart_and_a_layer_across_reports(jupyter: JupyterServer, page: Page) -> None:
    mobilenet_reports(jupyter.root_dir)
    open_workspace(page, jupyter)
    open_from_file_browser(page, OPT, "Open With DL Designer Report Viewer")
    viewer = page.locator(f"{TAB} .dld-report").first
    button = viewer.locator("button.dld-r-compare-with")
    expect(button).to_be_visible(timeout=90_000)
    button.click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator(".jp-DirListing-item").filter(has_text="mobilenet_noopt").first.click()
    dialog.locator("button.jp-mod-accept").click()
    network = viewer.locator(".dld-r-network-metrics rect.dld-r-bar")
    expect(network.first).to_be_visible(timeout=60_000)
    assert network.count() >= 2 and {network.nth(k).get_attribute("data-series") for k in range(network.count())} \
        == {"mobilenet_opt", "mobilenet_noopt"}
    matched = viewer.locator(".dld-r-compare .dld-vt-row").filter(has_text="Conv").first
    matched.locator(".dld-vt-td").first.click()
    across = viewer.locator(".dld-r-across rect.dld-r-bar")
    expect(across).to_have_count(2)
    viewer.locator(".dld-r-across").scroll_into_view_if_needed()
    screenshot(page, "compare_network_and_layer_across")


def test_the_splitter_between_table_and_charts_resizes_the_table(jupyter: JupyterServer, page: Page) -> None:
    """Seed 000: the type graphs and the layer table separated by a resizable splitter (issue 41)."""
    mobilenet_reports(jupyter.root_dir)
    open_workspace(page, jupyter)
    open_from_file_browser(page, OPT, "Open With DL Designer Report Viewer")
    viewer = page.locator(f"{TAB} .dld-report").first
    bar = viewer.locator(".dld-r-splitter")
    expect(bar).to_be_visible(timeout=90_000)
    table = viewer.locator(".dld-r-table .dld-vt").first
    chart = viewer.locator(".dld-r-latency").first
    bar.scroll_into_view_if_needed()
    before, chart_before = table.bounding_box(), chart.bounding_box()
    box = bar.bounding_box()
    assert before and chart_before and box
    rows_before = viewer.locator(".dld-r-table .dld-vt-row").count()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 3)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 153, steps=8)
    page.mouse.up()
    after, chart_after = table.bounding_box(), chart.bounding_box()
    assert after and chart_after
    assert abs(after["height"] - before["height"] - 150) <= 4
    assert abs(chart_after["y"] - chart_before["y"] - 150) <= 6  # the charts moved down with it
    assert viewer.locator(".dld-r-table .dld-vt-row").count() > rows_before  # more rows drawn
    screenshot(page, "report_splitter_dragged")
    bar.dblclick()
    back = table.bounding_box()
    assert back and abs(back["height"] - before["height"]) <= 2
