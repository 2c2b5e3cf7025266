"""Analysis mode in a real JupyterLab (issue 29): a designer of a real ResNet-18 export (the full-size cache's, else
the committed MobileNetV3 export) in a notebook; Launch Analysis on the toolbar (the read-only banner shows), a PNG
made here loaded through the Model Inputs window (its thumbnail drawn), Add Breakpoint from the canvas context menu
on the first Conv (the glyph gets its badge and the run stops there), Run, Step twice (the Network Overview
outlines each stop, glyphs show output shapes, and their times with Profile Layer Timings; the selected node's
input links yellow, output links blue), the Channel Inspector tab painting the stop's output, Shift and
Scale typed in the page reaching the kernel, an analysis override of the classifier's alpha changing the top-k
scores in the Analysis Output, and Stop Analysis giving the model back. Screenshots, looked at:
test-artifacts/screenshots/analysis_*.png."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np
from PIL import Image
from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, open_notebook, run_all, screenshot, write_notebook

CACHE = Path(os.environ.get("DLD_REAL_MODELS", Path.home() / ".cache" / "dld_jupyter" / "real_models"))
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
MODEL = CACHE / "resnet18.onnx" if (CACHE / "resnet18.onnx").is_file() else FIXTURE
CY = "[...document.querySelectorAll('.dld-canvas *')].find(e => e._cyreg)._cyreg.cy"
PANEL = ".dld-analysis-panel"


def position(page: Page) -> str:
    return str(page.evaluate("() => document.querySelector('.dld-canvas').dataset.analysisPosition || ''"))


def wait_position(page: Page, node: str) -> None:
    page.wait_for_function(
        "(id) => document.querySelector('.dld-canvas').dataset.analysisPosition === id", arg=node, timeout=120_000
    )


def open_tab(page: Page, title: str) -> None:
    page.locator(f"{PANEL} .lm-TabBar-tab", has_text=title).first.click()


def wait_kernel(page: Page, jupyter: JupyterServer, expression: str, timeout_s: float = 120) -> None:
    """Wait until `expression` is true in the kernel (what the kernel did, not what the page shows first)."""
    deadline = time.monotonic() + timeout_s
    while kernel_value(page, jupyter, f"bool({expression})") is not True:
        assert time.monotonic() < deadline, f"the kernel never got to: {expression}"
        page.wait_for_timeout(250)


def right_click_node(page: Page, node: str) -> None:
    """Right-click the node's glyph, aimed again until the menu offers the breakpoint (the canvas may still move)."""
    for _ in range(5):
        at = page.evaluate(
            f"""(id) => {{ const cy = {CY}; const p = cy.$id(id).renderedPosition();
                 const r = cy.container().getBoundingClientRect(); return [r.left + p.x, r.top + p.y]; }}""",
            node,
        )
        page.mouse.click(at[0], at[1], button="right")
        item = page.locator(".dld-menu-item", has_text="Add Breakpoint")
        try:
            item.wait_for(state="visible", timeout=3_000)
            return
        except Exception:
            page.keyboard.press("Escape")
            page.wait_for_timeout(300)
    raise AssertionError("the canvas menu never offered Add Breakpoint on the Conv")


def test_analysis_ui(jupyter: JupyterServer, page: Page) -> None:
    y, x = np.mgrid[0:180, 0:240]
    pixels = np.stack([x * 255 // 240, y * 255 // 180, (x + y) % 256], -1).astype(np.uint8)
    Image.fromarray(pixels).save(jupyter.root_dir / "cat.png")
    cells = [f"import dld_jupyter as dld\nd = dld.open({str(MODEL)!r}, height='560px')\nd"]
    write_notebook(jupyter.root_dir / "analysis.ipynb", cells)
    open_notebook(page, jupyter, "analysis.ipynb")
    run_all(page, timeout_s=240)
    page.wait_for_function(
        f"() => {{ try {{ return {CY}.nodes().length > 10; }} catch (e) {{ return false; }} }}", timeout=120_000
    )

    page.locator(".dld-launch-analysis").click()
    expect(page.locator(".dld-readonly-banner")).to_be_visible(timeout=120_000)
    expect(page.locator(f"{PANEL} .dld-ao-output").first).to_be_visible(timeout=120_000)
    open_tab(page, "Model Inputs")
    card = page.locator(f"{PANEL} .dld-mi-input").first
    card.locator(".dld-mi-kind").select_option("image")
    card.locator(".dld-mi-path").fill("cat.png")
    card.locator(".dld-mi-load").click()
    expect(page.locator(f"{PANEL} .dld-mi-input .dld-mi-thumb")).to_have_count(1, timeout=120_000)
    expect(page.locator(f"{PANEL} .dld-mi-label").first).to_have_text("cat.png")
    status = page.locator(f"{PANEL} > .widget-html small").first  # the analysis starts again on the new input
    expect(status).to_contain_text("Ran to the end", timeout=120_000)  # launching runs to the end (issue 37)
    fed = "d.analysis.feeds['input'] == d.analysis_mode.panel.model_inputs.tensors()['input']"
    wait_kernel(page, jupyter, f"d.analysis is not None and d.analysis.live and ({fed}).all()")
    open_tab(page, "Model Inputs")
    screenshot(page, "analysis_inputs", PANEL)

    conv, order = kernel_value(
        page,
        jupyter,
        "[next(d.document.node_id(n) for n in d.document.model.graph if n.op_type == 'Conv'), "
        "d.analysis.order_ids]",
    )
    kernel_value(page, jupyter, f"d.select([{conv!r}])")  # centred in the canvas
    right_click_node(page, conv)
    # The model is read-only while analysed: the menu says so and offers no edit (they would only be refused).
    labels = page.locator(".dld-menu .dld-menu-item").all_inner_texts()
    assert labels[0].startswith("Read-only: "), labels
    assert not {"Delete", "Cut", "Paste", "Create Function from Selection…"} & set(labels), labels
    assert "Copy" in labels
    page.locator(".dld-menu-item", has_text="Add Breakpoint").click()
    wait_position(page, conv)  # a breakpoint added while not debugging stops there (seed §4.5.2)
    assert page.evaluate(f"(id) => {CY}.$id(id).hasClass('an-bp')", conv)
    page.locator(f"{PANEL} .dld-an-run").click()
    wait_position(page, conv)
    start = order.index(conv)
    for k in (1, 2):
        page.locator(f"{PANEL} .dld-an-step").click()
        wait_position(page, order[start + k])
    here = order[start + 2]
    label = page.evaluate(f"(id) => {CY}.$id(id).data('alabel')", here)
    assert "×" in label, label  # the glyph shows its output shape
    page.locator(f"{PANEL} .dld-an-timings").click()  # Profile Layer Timings: its latest time too
    page.wait_for_function(
        f"(id) => / · [0-9.]+ (µs|ms)$/.test({CY}.$id(id).data('alabel') || '')", arg=conv, timeout=120_000
    )
    colours = page.evaluate(
        f"""(id) => {{ const n = {CY}.$id(id); const colour = (e) => e.style('line-color');
             return [n.incomers('edge').map(colour), n.outgoers('edge').map(colour)]; }}""",
        conv,
    )
    assert set(colours[0]) == {"rgb(234,179,8)"}, colours  # its input links yellow
    assert set(colours[1]) == {"rgb(37,99,235)"}, colours  # its output links blue
    expect(status).to_contain_text(f"node {start + 3} of {len(order)}")
    screenshot(page, "analysis_overview")

    open_tab(page, "Channel Inspector")
    inspector = page.locator(f"{PANEL} .dld-ci").first
    expect(inspector).to_have_attribute("data-paint-ms", re.compile(r"\d"), timeout=60_000)
    shown = kernel_value(page, jupyter, "d.analysis_mode.panel.inspector.meta['shown']")
    assert inspector.locator("canvas.dld-ci-tile").count() == shown  # one canvas per tile, painted when in view
    fields = inspector.locator("input.dld-ci-input")
    painted = int(inspector.get_attribute("data-generation") or 0)
    fields.nth(0).fill("0.25")
    fields.nth(0).dispatch_event("change")
    fields.nth(1).fill("2")
    fields.nth(1).dispatch_event("change")
    shift_scale = "(d.analysis_mode.panel.inspector.shift, d.analysis_mode.panel.inspector.scale)"
    wait_kernel(page, jupyter, f"{shift_scale} == (0.25, 2.0)")
    assert int(inspector.get_attribute("data-generation") or 0) >= painted + 2  # repainted after each edit
    screenshot(page, "analysis_channel_inspector", PANEL)

    open_tab(page, "Analysis Output")
    first_score = page.locator(f"{PANEL} .dld-ao-table tbody tr").first.locator("td").nth(2)
    before = first_score.text_content()
    gemm = kernel_value(
        page, jupyter, "[d.document.node_id(n) for n in d.document.model.graph if n.op_type == 'Gemm'][-1]"
    )
    kernel_value(page, jupyter, f"d.select([{gemm!r}])")
    page.locator(f"{PANEL} .dld-an-member input").fill("alpha")
    page.locator(f"{PANEL} .dld-an-value input").fill("3.0")
    page.locator(f"{PANEL} .dld-an-override").click()
    expect(first_score).not_to_have_text(before or "", timeout=60_000)
    assert kernel_value(page, jupyter, "len(d.analysis.overrides)") == 1
    expect(status).to_contain_text("1 analysis override")
    screenshot(page, "analysis_output_overridden", PANEL)

    # Runtime options in the Parameter editor (seed §4.3): the panel's override shows there, an edit there is one.
    row = page.locator('.dld-ed-row[data-attr="alpha"]')
    expect(row.locator(".dld-ed-override")).to_have_text("analysis override", timeout=60_000)
    expect(row.locator('input[data-key="attr:alpha"]')).to_have_value(re.compile(r"^3(\.0)?$"))
    beta = page.locator('.dld-ed-params input[data-key="attr:beta"]')
    beta.scroll_into_view_if_needed()
    beta.fill("0")
    beta.dispatch_event("change")
    wait_kernel(page, jupyter, "len(d.analysis.overrides) == 2")
    expect(page.locator('.dld-ed-row[data-attr="beta"] .dld-ed-override')).to_have_count(1, timeout=60_000)
    kept = kernel_value(page, jupyter, f"[d.document.dirty, d.document.node({gemm!r}).attributes['beta']]")
    assert kept == [False, 1.0]  # the document is as it was: the override lives in the session only
    screenshot(page, "analysis_editor_override")
    page.locator('.dld-ed-row[data-attr="beta"] .dld-ed-revert-override').click()
    wait_kernel(page, jupyter, "len(d.analysis.overrides) == 1")
    expect(page.locator('.dld-ed-row[data-attr="beta"] .dld-ed-override')).to_have_count(0, timeout=60_000)
    screenshot(page, "analysis_designer")

    page.locator(".dld-launch-analysis").click()
    expect(page.locator(".dld-readonly-banner")).to_have_count(0, timeout=60_000)
    assert kernel_value(page, jupyter, "[d.analysis is None, d.document.read_only]") == [True, None]
    assert position(page) == ""
