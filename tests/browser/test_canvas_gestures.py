"""Pan and zoom of a big expanded graph in a real JupyterLab (issue 42: frames at 5,000 nodes): while the wheel turns
and the background is dragged, the picture last drawn moves on the compositor (gesture_view.ts: a CSS transform of
the node layer, nothing drawn, the other layers and the terminal overlay hidden); once the gesture rests, the layers
are back in place and the picture is exactly the full redraw of every element again, labels and links back; and a
redraw that visits only the elements around the view (cull.ts) paints the same pixels as one that visits them all."""

from __future__ import annotations

import re
from typing import Any

import onnx
from playwright.sync_api import Page

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.test_canvas import cy_eval, open_model
from tests.models import generated_graph

# The node layer's pixels: a hash and how many are drawn (cytoscape draws links and glyphs on that canvas).
PIXELS = """const r = cy.renderer(); const ctx = r.data.contexts[r.NODE];
    const d = ctx.getImageData(0, 0, ctx.canvas.width, ctx.canvas.height).data;
    let hash = 2166136261, inked = 0;
    for (let i = 0; i < d.length; i++) { hash = Math.imul(hash ^ d[i], 16777619); }
    for (let i = 3; i < d.length; i += 4) if (d[i]) inked++;
    return {hash: hash >>> 0, inked};"""
# A full redraw now, culled or not, then its pixels (window.__culled: whether it was culled).
REDRAW = """stage._culling.enabled = arg; const rr = cy.renderer(); const before = stage._culling.culled;
    rr.redrawHint('eles', true); rr.redrawHint('drag', true); rr.render(); stage._culling.enabled = true;
    window.__culled = stage._culling.culled - before; """ + PIXELS
# Resolves once the renderer has drawn nothing for 400 ms and no gesture is under way; fails after 30 s.
SETTLED = """() => new Promise((resolve, reject) => {
    const cy = document.querySelector('.dld-stage')._cyreg.cy; const r = cy.renderer(); const start = performance.now();
    let last = start; const seen = () => { last = performance.now(); };
    cy.on('render', seen);
    const check = () => { const busy = r.data.wheelZooming || r.hoverData.dragging || r.textureDrawLastFrame;
        if (!busy && performance.now() - last > 400) { cy.off('render', seen); resolve(true); }
        else if (performance.now() - start > 30000) {
            cy.off('render', seen); reject(new Error('the view never rested: ' + JSON.stringify({
                wheel: r.data.wheelZooming, drag: r.hoverData.dragging, texture: r.textureDrawLastFrame}))); }
        else setTimeout(check, 50); };
    check(); })"""


def pixels_now(page: Page, culled: bool) -> dict[str, int]:
    return dict(cy_eval(page, REDRAW, culled))


def background_point(page: Page) -> tuple[float, float]:
    """A point of the stage's background near its centre, on the page: pressing there pans the view."""
    x, y = cy_eval(page, """const rect = stage.getBoundingClientRect(); const w = cy.width(), h = cy.height();
        const boxes = cy.nodes().map(n => n.renderedBoundingBox());
        const free = (x, y) => boxes.every(b => x < b.x1 - 12 || x > b.x2 + 12 || y < b.y1 - 12 || y > b.y2 + 12);
        for (let d = 0; d < Math.min(w, h) / 3; d += 8) for (let a = 0; a < 16; a++) {
            const x = w / 2 + d * Math.cos(a * Math.PI / 8), y = h / 2 + d * Math.sin(a * Math.PI / 8);
            if (free(x, y)) return [rect.left + x, rect.top + y]; }
        throw new Error('no background near the centre');""")
    return float(x), float(y)


def test_pan_and_zoom_of_a_big_graph_end_on_the_full_picture(jupyter: JupyterServer, page: Page) -> None:
    onnx.save(generated_graph(1200), jupyter.root_dir / "gestures.onnx")  # ~2,600 elements: over LARGE (1,500)
    open_model(page, jupyter, "canvas_gestures.ipynb", "gestures.onnx", ", grouping='none', height='700px'")
    page.wait_for_function("() => document.querySelector('.dld-canvas').dataset.loaded === '1'", timeout=120_000)
    cy_eval(page, "cy.zoom(1); cy.center(cy.nodes()[Math.floor(cy.nodes().length / 2)]);")
    page.evaluate(SETTLED)
    total = int(cy_eval(page, "return cy.elements().length;"))
    assert total > 1500

    # Culled and full redraws paint the same pixels, and the culled one visits a few of the elements only.
    culled = pixels_now(page, True)
    assert page.evaluate("() => window.__culled") == 1
    full = pixels_now(page, False)
    assert page.evaluate("() => window.__culled") == 0
    assert culled == full and full["inked"] > 10_000, (culled, full)
    view = int(cy_eval(page, """const e = cy.extent();
        return cy.elements().filter(x => { const b = x.boundingBox(); return b.x2 > e.x1 && b.x1 < e.x2 &&
            b.y2 > e.y1 && b.y1 < e.y2; }).length;"""))
    assert 0 < view < total / 4

    # A wheel zoom in and out: its frames move the picture; the last frame drawn, once the wheel rests, is the full
    # picture in place.
    cy_eval(page, """window.__frames = []; const r = cy.renderer(); cy.on('render', () => window.__frames.push({
        wheel: !!r.data.wheelZooming, transform: r.data.canvases[r.NODE].style.transform}));""")
    box = page.locator(".dld-stage").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for delta in (-100, -100, -100, 100, 100, 100):
        page.mouse.wheel(0, delta)
        page.wait_for_timeout(20)
    page.evaluate(SETTLED)
    frames: list[dict[str, Any]] = cy_eval(page, "return window.__frames;")
    assert any(f["wheel"] and "scale(" in f["transform"] for f in frames), frames  # moved, not drawn per event
    assert frames and not frames[-1]["wheel"] and frames[-1]["transform"] == "", frames

    # A drag of the background, held: the picture drawn before it is moved by the pan, not drawn again; the layers
    # that could not follow it and the terminal overlay are hidden meanwhile.
    before = dict(cy_eval(page, PIXELS))
    pan_before = cy_eval(page, "return cy.pan();")
    moved = int(cy_eval(page, "return stage._gestures.moved;"))
    x, y = background_point(page)
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 15):
        page.mouse.move(x + 8 * i, y + 4 * i)
    page.wait_for_function("""() => { const cy = document.querySelector('.dld-stage')._cyreg.cy;
        return cy.renderer().data.canvases[2].style.transform !== ''; }""", timeout=30_000)
    during = cy_eval(page, """const r = cy.renderer(); const layers = r.data.canvases;
        return {pan: cy.pan(), transform: layers[r.NODE].style.transform, moved: stage._gestures.moved,
            hidden: layers.filter((l, i) => i !== r.NODE).map(l => l.style.visibility),
            overlay: document.querySelector('.dld-canvas-overlay').style.visibility};""")
    dx, dy = during["pan"]["x"] - pan_before["x"], during["pan"]["y"] - pan_before["y"]
    assert dx > 50 and dy > 20, (pan_before, during)
    shift = re.fullmatch(r"translate\(([-\d.e]+)px, ([-\d.e]+)px\) scale\(1\)", during["transform"])
    assert shift and abs(float(shift[1]) - dx) < 0.01 and abs(float(shift[2]) - dy) < 0.01, during
    assert during["moved"] > moved and during["hidden"] == ["hidden", "hidden"] and during["overlay"] == "hidden"
    assert dict(cy_eval(page, PIXELS)) == before, "the node layer was drawn again during the drag"
    page.mouse.up()
    page.evaluate(SETTLED)
    after = cy_eval(page, """const layers = cy.renderer().data.canvases;
        return {transforms: layers.map(l => l.style.transform), shown: layers.map(l => l.style.visibility),
            overlay: document.querySelector('.dld-canvas-overlay').style.visibility};""")
    assert after == {"transforms": ["", "", ""], "shown": ["", "", ""], "overlay": ""}, after
    screenshot(page, "canvas_gestures_after", ".dld-canvas")

    # What the user sees once the gesture rests: links and labels back, every element around the view drawn.
    assert not cy_eval(page, "const r = cy.renderer(); return r.data.wheelZooming || r.hoverData.dragging;")
    shown = dict(cy_eval(page, PIXELS))
    assert shown == pixels_now(page, False), "the picture after the gesture differs from a full redraw"
    cy_eval(page, "cy.batch(() => cy.nodes().style('text-opacity', 0));")  # the same view without the glyphs' labels
    page.evaluate(SETTLED)
    unlabelled = dict(cy_eval(page, PIXELS))
    cy_eval(page, "cy.batch(() => cy.nodes().removeStyle('text-opacity'));")
    assert unlabelled["hash"] != shown["hash"], "no glyph label is drawn after the gesture"

    # A node dragged and released is freed as before (a release frees nothing when the press grabbed nothing,
    # cytoscape-free-dragged.mjs): nothing grabbed, nothing left on the drag layer.
    nx, ny = cy_eval(page, """const rect = stage.getBoundingClientRect(); const e = cy.extent();
        const n = cy.nodes().filter(n => { const p = n.position(); return p.x > e.x1 + 100 && p.x < e.x2 - 100 &&
            p.y > e.y1 + 100 && p.y < e.y2 - 100; })[0]; const p = n.renderedPosition();
        return [rect.left + p.x, rect.top + p.y];""")
    page.mouse.move(nx, ny)
    page.mouse.down()
    page.wait_for_function("() => document.querySelector('.dld-stage')._cyreg.cy.nodes(':grabbed').length > 0")
    for i in range(1, 8):
        page.mouse.move(nx + 5 * i, ny + 3 * i)
    page.mouse.up()
    page.evaluate(SETTLED)
    freed = cy_eval(page, """return {grabbed: cy.nodes(':grabbed').length,
        inDragLayer: cy.elements().filter(e => e[0]._private.rscratch.inDragLayer).length};""")
    assert freed == {"grabbed": 0, "inDragLayer": 0}, freed
