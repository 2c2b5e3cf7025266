"""The canvas and the report viewer follow the JupyterLab theme (light, dark, dark high contrast): judged on the
pixels of real screenshots (a real MobileNetV3 export in a designer tab, its real ONNX Runtime report in a viewer
tab), and the canvas export's explicit background choice."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, screenshot
from tests.browser.pixels import brightest, darkest, dominant, luminance, read_png
from tests.browser.real_reports import MODEL, mobilenet_reports
from tests.browser.tab_driver import TAB, open_workspace, wait_canvas

CANVAS = f"{TAB} .dld-canvas"
VIEWER = f"{TAB} .dld-report"


@pytest.fixture
def themed(page: Page) -> Iterator[Page]:
    """The page; JupyterLab goes back to its light theme afterwards (the choice is saved in the user settings)."""
    yield page
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'})")
    page.wait_for_function("() => document.body.dataset.jpThemeName === 'JupyterLab Light'", timeout=30_000)


def _theme(page: Page, name: str) -> None:
    page.evaluate("(name) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: name})", name)
    page.wait_for_function("(name) => document.body.dataset.jpThemeName === name", arg=name, timeout=30_000)
    dark = "light" not in name.lower()
    # The canvas restyles itself when the theme's colours are in (data-theme says which it drew).
    expect(page.locator(CANVAS).first).to_have_attribute("data-theme", "dark" if dark else "light", timeout=15_000)
    time.sleep(0.8)  # one redraw of cytoscape and the timeline


def _activate(page: Page, label: str) -> None:
    """Bring the main-area tab titled `label` to the front (single-document mode shows no tab bar)."""
    found = page.evaluate(
        """(label) => { const shell = window.jupyterapp.shell;
            const w = [...shell.widgets('main')].find(w => w.title.label === label);
            if (w) shell.activateById(w.id); return !!w; }""",
        label,
    )
    assert found, f"no tab titled {label}"
    time.sleep(0.6)


def _canvas_shot(page: Page, name: str) -> tuple[float, float, float]:
    """(background luminance, a glyph's fill luminance, its label text luminance) on a screenshot of the canvas."""
    _activate(page, MODEL)
    # A Conv glyph in the middle of the canvas at zoom 1 (the viewport is browser-only state), in page pixels.
    page.evaluate(
        f"""() => {{
        const cy = [...document.querySelectorAll('{CANVAS} *')].find(e => e._cyreg && e.offsetParent)._cyreg.cy;
        const n = cy.nodes('.op').filter(n => n.data('label').startsWith('Conv')).first();
        cy.zoom(1.2);
        cy.center(n);
    }}"""
    )
    time.sleep(0.5)
    shot = screenshot(page, name)
    image = read_png(shot)
    box = page.evaluate(
        f"""() => {{
        const host = [...document.querySelectorAll('{CANVAS} *')].find(e => e._cyreg && e.offsetParent);
        const cy = host._cyreg.cy;
        const r = host.getBoundingClientRect();
        const n = cy.nodes('.op').filter(n => n.data('label').startsWith('Conv')).first();
        const b = n.renderedBoundingBox({{includeLabels: false}});
        return {{x1: r.left + b.x1, y1: r.top + b.y1, x2: r.left + b.x2, y2: r.top + b.y2,
                 stage: [r.left, r.top, r.right, r.bottom]}};
    }}"""
    )
    left, top, right, bottom = (int(v) for v in box["stage"])
    background = luminance(dominant(image.region(left + 2, top + 2, right - 2, bottom - 2)))
    inset = 4  # inside the glyph's border
    glyph = image.region(int(box["x1"]) + inset, int(box["y1"]) + inset, int(box["x2"]) - inset, int(box["y2"]) - inset)
    return background, luminance(dominant(glyph)), brightest(glyph) if background < 0.5 else darkest(glyph)


def _viewer_shot(page: Page, name: str) -> tuple[float, float, float]:
    """(viewer background, summary text, timeline background) luminance on a screenshot of the report viewer."""
    _activate(page, "mobilenet_opt.dld-report.json")
    shot = screenshot(page, name)
    image = read_png(shot)
    rects = page.evaluate(
        f"""() => {{
        const v = [...document.querySelectorAll('{VIEWER}')].find(e => e.offsetParent);
        const box = (e) => {{ const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }};
        return {{viewer: box(v), summary: box(v.querySelector('.dld-r-summary')),
                 timeline: box(v.querySelector('.dld-r-tl-canvas'))}};
    }}"""
    )
    viewer = image.region(*(int(v) for v in rects["viewer"]))
    summary = image.region(*(int(v) for v in rects["summary"]))
    timeline = image.region(*(int(v) for v in rects["timeline"]))
    background = luminance(dominant(viewer))
    text = brightest(summary) if background < 0.5 else darkest(summary)
    return background, text, luminance(dominant(timeline))


def test_canvas_and_report_viewer_follow_the_jupyterlab_theme(jupyter: JupyterServer, themed: Page) -> None:
    page = themed
    mobilenet_reports(jupyter.root_dir)
    open_workspace(page, jupyter)
    page.evaluate("""() => { const shell = window.jupyterapp.shell;
        for (const w of [...shell.widgets('main')]) if (w.title.label === 'Launcher') w.close(); }""")
    open_from_file_browser(page, MODEL, "Open With DL Designer")
    wait_canvas(page, 50)
    open_from_file_browser(page, "mobilenet_opt.dld-report.json", "Open With DL Designer Report Viewer")
    expect(page.locator(VIEWER).first).to_be_visible(timeout=90_000)
    expect(page.locator(f"{VIEWER} .dld-r-tl-canvas").first).to_be_visible(timeout=30_000)
    # One tab at a time over the whole main area: the screenshots show what a user reads.
    page.evaluate("() => { window.jupyterapp.shell.mode = 'single-document'; window.jupyterapp.shell.collapseLeft(); }")

    light_bg, _, _ = _canvas_shot(page, "theme_light_canvas")
    assert light_bg > 0.8, f"light theme: canvas background luminance {light_bg:.2f}"

    for theme, tag in (("JupyterLab Dark", "dark"), ("JupyterLab Dark High Contrast", "high_contrast")):
        _theme(page, theme)
        background, fill, label = _canvas_shot(page, f"theme_{tag}_canvas")
        assert background < 0.2, f"{theme}: canvas background luminance {background:.2f}"
        assert label > 0.6, f"{theme}: node label luminance {label:.2f} (should be light)"
        assert fill < label - 0.3, f"{theme}: label {label:.2f} must stand out of its glyph {fill:.2f}"
        colour = page.evaluate(
            f"""() => [...document.querySelectorAll('{CANVAS} *')].find(e => e._cyreg && e.offsetParent)
                     ._cyreg.cy.nodes('.op').first().style('color')"""
        )
        assert colour in ("rgb(255,255,255)", "rgb(255, 255, 255)"), colour

        viewer_bg, text, timeline_bg = _viewer_shot(page, f"theme_{tag}_report")
        assert viewer_bg < 0.2, f"{theme}: report viewer background luminance {viewer_bg:.2f}"
        assert text > 0.6, f"{theme}: report summary text luminance {text:.2f} (should be light)"
        assert timeline_bg < 0.2, f"{theme}: timeline background luminance {timeline_bg:.2f}"

    # Exports keep an explicit background: the theme's (dark here), or white whatever the theme.
    _activate(page, MODEL)
    failure = page.evaluate(
        """async ([label, code]) => {
            const tab = [...window.jupyterapp.shell.widgets('main')].find(w => w.title.label === label);
            const reply = await tab.sessionContext.session.kernel.requestExecute({code}).done;
            return reply.content.status === 'ok' ? null : reply.content.evalue; }""",
        [
            MODEL,
            "_dld_view.export('export_theme.png', background='theme')\n"
            "_dld_view.export('export_white.png', background='white')",
        ],
    )
    assert failure is None, failure
    for name, dark in (("export_theme.png", True), ("export_white.png", False)):
        path = _wait_file(jupyter.root_dir / name)
        corner = luminance(read_png(path).rgb[0])
        assert (corner < 0.2) if dark else (corner > 0.95), f"{name}: corner luminance {corner:.2f}"

    _theme(page, "JupyterLab Light")
    light_again, _, _ = _canvas_shot(page, "theme_light_again_canvas")
    assert light_again > 0.8, "back in the light theme the canvas is light again"
    assert not [e for e in page.console_errors if "dld" in e.lower()], page.console_errors  # type: ignore[attr-defined]


def _wait_file(path: Path, timeout_s: float = 30) -> Path:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size > 1000:
            return path
        time.sleep(0.3)
    raise AssertionError(f"{path.name} was never written")
