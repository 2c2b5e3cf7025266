"""The Channel Inspector popped out into a tab of its own (issue 42), in a real JupyterLab: a designer tab of the real
MobileNetV3-small export, analysing, stopped at its first Conv; the docked inspector's Pop out opens a main-area tab
beside the designer with one card per channel: a large tile, its histogram drawn (bars painted) and its statistics,
the bar and the value under the pointer read out;
Step in the dock moves the pop-out to the next node's output, its cards and histograms rebuilt. Screenshots, looked
at: test-artifacts/screenshots/channel_inspector_{pop_out_button,popped,popped_step}.png."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, run_in_kernel, screenshot
from tests.browser.tab_driver import TAB, open_workspace

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
PANEL = f"{TAB} .dld-analysis-panel"
POPPED = f"{TAB}:has(.dld-ci-detail)"
INSPECTOR = "_dld_view.analysis_mode.panel.channels"
# Bars drawn in each histogram in view (pixels not of the canvas's own ground), the tile sizes, where the tab is.
DRAWN = f"""() => {{
    const tab = document.querySelector('{POPPED}');
    const hists = [...tab.querySelectorAll('canvas.dld-ci-hist')].slice(0, 4);
    const inked = hists.map((c) => {{
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
        return n;
    }});
    const main = [...window.jupyterapp.shell.widgets('main')];
    const designer = main.find((w) => w.node.querySelector('.dld-designer'));
    const docked = document.querySelector('{PANEL} canvas.dld-ci-tile').getBoundingClientRect().width;
    return {{inked, tile: tab.querySelector('canvas.dld-ci-tile').getBoundingClientRect().width, docked,
             main: main.some((w) => w.node === tab), width: tab.getBoundingClientRect().width,
             title: main.find((w) => w.node === tab).title.label,
             beside: designer.node.getBoundingClientRect().right <= tab.getBoundingClientRect().left + 1}};
}}"""


def wait_kernel(page: Page, jupyter: JupyterServer, expression: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while kernel_value(page, jupyter, f"bool({expression})") is not True:
        assert time.monotonic() < deadline, f"the kernel never got to: {expression}"
        page.wait_for_timeout(250)


def test_pop_out_channel_inspector_follows_step(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", jupyter.root_dir / "channels.onnx")
    open_workspace(page, jupyter)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:open-file', {path: 'channels.onnx'}); }")
    page.wait_for_function(f"() => document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')", timeout=90_000)
    run_in_kernel(page, "_a = _dld_view.launch_analysis({'input': 'random'})\n"
                        "_c = next(_dld_view.document.node_id(n) for n in _dld_view.document.model.graph "
                        "if n.op_type == 'Conv')\n_dld_view.set_breakpoints([_c])")
    wait_kernel(page, jupyter, "_dld_view.analysis is not None and _dld_view.analysis.position_id == _c")
    page.locator(f"{PANEL} .lm-TabBar-tab", has_text="Channel Inspector").first.click()
    docked = page.locator(f"{PANEL} .dld-ci").first
    expect(docked.locator(".dld-ci-title")).to_contain_text("output", timeout=60_000)
    docked.locator(".dld-ci-popout").scroll_into_view_if_needed()
    screenshot(page, "channel_inspector_pop_out_button", f"{PANEL} .dld-ci")
    docked.locator(".dld-ci-popout").click()

    popped = page.locator(POPPED)
    expect(popped).to_be_visible(timeout=60_000)
    shown = kernel_value(page, jupyter, f"{INSPECTOR}.popped.meta['shown']")
    assert shown >= 8
    expect(popped.locator(".dld-ci-card")).to_have_count(shown, timeout=30_000)
    expect(popped.locator("canvas.dld-ci-hist")).to_have_count(shown)
    expect(popped.locator(".dld-ci")).to_have_attribute("data-histograms", str(shown))
    expect(popped.locator(".dld-ci")).to_have_attribute("data-paint-ms", re.compile(r"\d"))
    expect(popped.locator(".dld-ci-card-stats").first).to_contain_text("mean")
    title = kernel_value(page, jupyter, f"{INSPECTOR}.docked.title")
    expect(popped.locator(".dld-ci-title")).to_have_text(title)
    drawn = page.evaluate(DRAWN)
    assert drawn["main"] and drawn["beside"] and drawn["width"] > 500, drawn
    assert drawn["title"] == "Channels: channels", drawn
    assert drawn["tile"] >= 1.9 * drawn["docked"], drawn  # large tiles (48×48 maps: ×4, docked ×2)
    assert all(n > 0 for n in drawn["inked"]), drawn  # each histogram in view has its bars
    popped.locator("canvas.dld-ci-hist").first.hover()  # the bar under the pointer, read out
    expect(popped.locator(".dld-ci-readout")).to_contain_text(re.compile(r"^c 0 · \[.+, .+[)\]] · \d+ values?$"))
    popped.locator("canvas.dld-ci-tile").nth(1).hover()  # and a tile's value, as docked
    expect(popped.locator(".dld-ci-readout")).to_contain_text(re.compile(r"^n 0, c 1 · y \d+, x \d+ · "))
    screenshot(page, "channel_inspector_popped")

    page.locator(f"{PANEL} .dld-an-step").click()  # the pop-out follows the debugger
    wait_kernel(page, jupyter, "_dld_view.analysis.position_id != _c")
    after = kernel_value(page, jupyter, f"[{INSPECTOR}.popped.title, {INSPECTOR}.popped.meta['shown']]")
    assert after[0] != title
    expect(popped.locator(".dld-ci-title")).to_have_text(after[0], timeout=30_000)
    expect(popped.locator(".dld-ci-card")).to_have_count(after[1])
    expect(popped.locator(".dld-ci")).to_have_attribute("data-histograms", str(after[1]))
    screenshot(page, "channel_inspector_popped_step")
