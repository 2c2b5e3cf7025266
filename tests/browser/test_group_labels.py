"""Group labels never draw over each other (issue 26): on the real Llama-style export, in the first view, with its
first layer and the group at its top expanded, and fitted (where group names grow to stay readable), no two group
labels drawn on the canvas intersect, judged from cytoscape's own label boxes (an expanded group's label sat above
its box, over the glyphs and names of the row above; nested and adjacent names crossed once fitted). Screenshots:
test-artifacts/screenshots/group_labels_<view>.png."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, screenshot, write_notebook
from tests.browser.test_canvas import cy_eval

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

# Every group's label box (model coordinates) where a label is drawn, and the pairs of them that intersect.
OVERLAPS = """
const groups = cy.nodes('.group').filter(n => n.visible() && n.style('label'));
const shown = groups.filter(n => n.numericStyle('text-opacity') > 0);
const boxes = shown.map(n => { const b = n.boundingBox({includeNodes: false, includeEdges: false,
  includeLabels: true, includeOverlays: false});
  return {id: n.id(), name: String(n.style('label')).split('\\n')[0], x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2,
          w: b.w, h: b.h}; }).filter(b => b.w > 0 && b.h > 0);
const pairs = [];
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
  const a = boxes[i], b = boxes[j];
  const dx = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1), dy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (dx > 1 && dy > 1) pairs.push([a.name, b.name, Math.round(dx), Math.round(dy)]);
}
return {labels: boxes.length, hidden: groups.length - shown.length, pairs, zoom: cy.zoom(),
        expanded: cy.nodes('.group.expanded').length};
"""


def expand(page: Page, names: list[str]) -> None:
    """Expand the groups named `names` (each inside the one before), as the canvas menu's Expand does."""
    for name in names:
        version = cy_eval(page, "return Number(document.querySelector('.dld-canvas').dataset.version || 0);")
        found = cy_eval(page, """const n = [...dld.store.nodes.values()].find(g => g.kind === 'group' && g.name === arg
          && g.collapsed); if (!n) return null; dld.channel.intent('expand', {group: n.id}); return n.id;""", name)
        assert found, f"no collapsed group {name!r}"
        page.wait_for_function(
            "(v) => Number(document.querySelector('.dld-canvas').dataset.version || 0) > v", arg=version,
            timeout=30_000)
    page.wait_for_timeout(600)


def test_group_labels_do_not_overlap(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(REAL / "llama_tiny_dynamic.onnx", jupyter.root_dir / "llama.onnx")
    write_notebook(jupyter.root_dir / "labels.ipynb", ["import dld_jupyter as dld\nd = dld.open('llama.onnx')\nd"])
    open_notebook(page, jupyter, "labels.ipynb")
    run_all(page)
    page.wait_for_selector(".dld-canvas[data-ready='1'][data-loaded='1']", timeout=120_000)
    page.wait_for_timeout(800)
    first = cy_eval(page, OVERLAPS)
    screenshot(page, "group_labels_first", ".dld-canvas")
    expand(page, ["layers.0"])
    expand(page, ["input_layernorm"])  # a group inside layers.0, at its top: the two labels meet there
    cy_eval(page, "cy.fit(cy.nodes('.group.expanded'), 20); return 0;")
    page.wait_for_timeout(800)
    inner = cy_eval(page, OVERLAPS)
    screenshot(page, "group_labels_expanded", ".dld-canvas")
    cy_eval(page, "cy.fit(undefined, 10); return 0;")
    page.wait_for_timeout(800)  # group labels grow once the zoom settles (readability.ts)
    fitted = cy_eval(page, OVERLAPS)
    screenshot(page, "group_labels_fitted", ".dld-canvas")
    for view in (first, inner, fitted):
        assert view["labels"] >= 7 and not view["pairs"], view  # a label hidden only where two would collide
    assert inner["expanded"] == fitted["expanded"] == 2
