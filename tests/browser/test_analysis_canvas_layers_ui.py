"""Analysis layers from the canvas and the palette in a real JupyterLab (issue 37): a designer of an image-to-image
model, Launch Analysis, the canvas menu's "Add Analysis Layer: Noise" on /dec/Conv (its glyph gains the dashed badge
and "+ Noise1", the kernel's analysis the layer), "Remove Analysis Layer Noise1" taking it out, the sidebar palette's
Analysis category dragged onto /enc/Relu (an Affine after it, the Parameter Editor showing its sliders), and the
"Add Analysis Layer…" command putting a Snapshot after the selected node; the model never dirty, its file untouched.
Screenshots, looked at: test-artifacts/screenshots/analysis_canvas_layers_*.png."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, open_notebook, run_all, screenshot, write_notebook
from tests.frontdoor.test_analysis_layers import _denoiser

CY = "[...document.querySelectorAll('.dld-canvas *')].find(e => e._cyreg)._cyreg.cy"
SIDEBAR = "#dld-jupyter-sidebar"
LAYERS = "d.analysis.analysis_layers"


def wait_kernel(page: Page, jupyter: JupyterServer, expression: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while kernel_value(page, jupyter, f"bool({expression})") is not True:
        assert time.monotonic() < deadline, f"the kernel never got to: {expression}"
        page.wait_for_timeout(250)


def node_at(page: Page, node: str) -> dict[str, float]:
    """The node's centre relative to the .dld-canvas element (for drops) and to the page (for clicks)."""
    return dict(page.evaluate(
        f"""(id) => {{ const cy = {CY}; const p = cy.$id(id).renderedPosition();
             const r = cy.container().getBoundingClientRect();
             const c = document.querySelector('.dld-canvas').getBoundingClientRect();
             return {{x: r.left + p.x, y: r.top + p.y, cx: r.left + p.x - c.left, cy: r.top + p.y - c.top}}; }}""",
        node,
    ))


def menu_item(page: Page, node: str, label: str) -> None:
    """Right-click the node's glyph (aimed again until the menu offers `label`: the canvas may still move), click it."""
    for _ in range(5):
        at = node_at(page, node)
        page.mouse.click(at["x"], at["y"], button="right")
        item = page.locator(".dld-menu-item", has_text=label)
        try:
            item.wait_for(state="visible", timeout=3_000)
            item.click()
            return
        except Exception:
            page.keyboard.press("Escape")
            page.wait_for_timeout(300)
    raise AssertionError(f"the canvas menu never offered {label!r}")


def has_badge(page: Page, node: str, text: str) -> None:
    page.wait_for_function(
        f"([id, t]) => {{ const n = {CY}.$id(id);"
        " return n.hasClass('an-layer') && (n.data('alabel') || '').includes(t); }",
        arg=[node, text], timeout=60_000,
    )


def test_canvas_menu_palette_and_command_add_analysis_layers(jupyter: JupyterServer, page: Page) -> None:
    path = _denoiser(jupyter.root_dir / "denoiser.onnx")
    saved = path.read_bytes()
    cells = [f"import dld_jupyter as dld\nd = dld.open({str(path)!r}, height='480px')\nd"]
    write_notebook(jupyter.root_dir / "canvas_layers.ipynb", cells)
    open_notebook(page, jupyter, "canvas_layers.ipynb")
    run_all(page, timeout_s=240)
    page.wait_for_function(
        f"() => {{ try {{ return {CY}.nodes().length >= 5; }} catch (e) {{ return false; }} }}", timeout=120_000
    )
    page.locator(".dld-launch-analysis").click()
    expect(page.locator(".dld-readonly-banner")).to_be_visible(timeout=120_000)
    wait_kernel(page, jupyter, "d.analysis is not None and d.analysis.live")
    dec, relu = kernel_value(page, jupyter, "[next(d.document.node_id(n) for n in d.document.model.graph "
                                            "if n.name == x) for x in ('/dec/Conv', '/enc/Relu')]")

    menu_item(page, dec, "Add Analysis Layer: Noise")
    wait_kernel(page, jupyter, f"[(x.kind, x.inputs) for x in {LAYERS}] == [('Noise', ('clean',))]")
    has_badge(page, dec, "+ Noise1")
    screenshot(page, "analysis_canvas_layers_noise", ".dld-canvas")
    menu_item(page, dec, "Remove Analysis Layer Noise1")
    wait_kernel(page, jupyter, f"{LAYERS} == []")
    page.wait_for_function(f"(id) => !{CY}.$id(id).hasClass('an-layer')", arg=dec, timeout=60_000)

    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    sidebar = page.locator(SIDEBAR)
    sidebar.locator(".dld-Sidebar-tab", has_text="Palette").click()
    sidebar.locator(".dld-Palette-filter").fill("Analysis")
    affine = sidebar.locator(".dld-Palette-item[data-name='Affine'][data-domain='dld.analysis']")
    expect(affine).to_be_visible(timeout=60_000)
    expect(sidebar.locator(".dld-Palette-group", has_text="Analysis (4)")).to_be_visible()
    screenshot(page, "analysis_canvas_layers_palette", SIDEBAR)
    at = node_at(page, relu)
    affine.drag_to(page.locator(".dld-canvas").first, target_position={"x": at["cx"], "y": at["cy"]})
    wait_kernel(page, jupyter, f"[(x.kind, x.inputs) for x in {LAYERS}] == [('Affine', ('r',))]")
    has_badge(page, relu, "+ Affine1")
    wait_kernel(page, jupyter, "len(d.analysis_mode.panel.layers.parameters.children) == 1")  # its sliders
    screenshot(page, "analysis_canvas_layers_affine", ".dld-canvas")

    kernel_value(page, jupyter, f"d.select([{dec!r}])")
    page.wait_for_function(f"(id) => {CY}.$id(id).selected()", arg=dec, timeout=30_000)
    # not awaited: the command's promise settles only once its dialog is answered
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:add-analysis-layer'); }")
    dialog = page.locator(".jp-Dialog")
    dialog.locator("select").select_option("Snapshot")
    dialog.locator(".jp-mod-accept").click()
    wait_kernel(page, jupyter, f"[x.kind for x in {LAYERS}] == ['Affine', 'Snapshot']")
    has_badge(page, dec, "+ Snapshot1")
    screenshot(page, "analysis_canvas_layers_command", ".dld-canvas")
    assert kernel_value(page, jupyter, "not d.document.dirty") is True
    assert path.read_bytes() == saved
