"""Report comparison from the JupyterLab UI, on two real ONNX Runtime reports of the real MobileNetV3 export
(graph optimizations on and off): a Ctrl+click multi-selection in the file browser and "Compare Reports in DL
Designer" open the comparison in a tab whose baseline selector switches the reference; the viewer's "Compare
with…" picks the second report in JupyterLab's file dialog."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, screenshot
from tests.browser.real_reports import mobilenet_reports
from tests.browser.tab_driver import TAB, open_workspace

OPT, NOOPT = "mobilenet_opt.dld-report.json", "mobilenet_noopt.dld-report.json"


def _close_launcher(page: Page) -> None:
    """The comparison opens split right of what is open: without the launcher it gets the whole main area."""
    page.evaluate("""() => { for (const w of [...window.jupyterapp.shell.widgets('main')])
                               if (w.title.label === 'Launcher') w.close(); }""")


def _item(page: Page, name: str):  # type: ignore[no-untyped-def]
    return page.locator(f".jp-DirListing-item[title*='{name}']").first


def test_compare_selected_reports_from_the_file_browser(jupyter: JupyterServer, page: Page) -> None:
    mobilenet_reports(jupyter.root_dir)
    open_workspace(page, jupyter)
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
    _item(page, OPT).click()
    _item(page, NOOPT).click(modifiers=["Control"])
    expect(page.locator(".jp-DirListing-item.jp-mod-selected")).to_have_count(2)
    _item(page, NOOPT).click(button="right")
    command = page.locator(
        ".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel", has_text="Compare Reports in DL Designer"
    )
    expect(command).to_have_count(1)
    command.click()

    viewer = page.locator(f"{TAB} .dld-report").first
    baseline = viewer.locator("select.dld-r-baseline")
    expect(baseline).to_be_visible(timeout=90_000)
    _close_launcher(page)
    expect(page.locator("li.lm-TabBar-tab", has_text="compare mobilenet_noopt vs mobilenet_opt")).to_have_count(1)
    expect(viewer.locator(".dld-r-cmp-summary")).to_contain_text("mobilenet_opt")
    expect(viewer.locator(".dld-r-cmp-summary")).to_contain_text("mobilenet_noopt")
    heads = viewer.locator(".dld-vt-th")
    # The baseline is the first report in the file browser's order; the other gets a difference column.
    expect(baseline).to_have_value("0")
    expect(heads.filter(has_text="Δ mobilenet_opt")).to_have_count(1)
    expect(heads.filter(has_text="Δ mobilenet_noopt")).to_have_count(0)
    screenshot(page, "compare_from_file_browser")

    baseline.select_option(label="mobilenet_opt")
    expect(heads.filter(has_text="Δ mobilenet_noopt")).to_have_count(1, timeout=30_000)
    expect(heads.filter(has_text="Δ mobilenet_opt")).to_have_count(0)
    expect(viewer.locator("select.dld-r-baseline")).to_have_value("1")
    screenshot(page, "compare_baseline_switched")


def test_compare_with_picks_a_report_in_the_file_dialog(jupyter: JupyterServer, page: Page) -> None:
    mobilenet_reports(jupyter.root_dir)
    open_workspace(page, jupyter)
    open_from_file_browser(page, OPT, "Open With DL Designer Report Viewer")
    viewer = page.locator(f"{TAB} .dld-report").first
    button = viewer.locator("button.dld-r-compare-with")
    expect(button).to_be_visible(timeout=90_000)
    _close_launcher(page)
    expect(viewer.locator("select.dld-r-baseline")).to_have_count(0)
    button.click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Compare with")
    listing = dialog.locator(".jp-DirListing-item")
    expect(listing.filter(has_text="mobilenet_v3_small_w05.onnx")).to_have_count(0)  # only reports are offered
    listing.filter(has_text="mobilenet_noopt").first.click()
    screenshot(page, "compare_with_dialog")
    dialog.locator("button.jp-mod-accept").click()

    expect(viewer.locator("select.dld-r-baseline")).to_be_visible(timeout=60_000)
    expect(viewer.locator(".dld-r-cmp-summary")).to_contain_text("mobilenet_noopt")
    expect(viewer.locator(".dld-vt-th").filter(has_text="Δ mobilenet_noopt")).to_have_count(1)
    screenshot(page, "compare_with_result")
