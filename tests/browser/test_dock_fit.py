"""Nothing in the designer's dock is cut off (issue 26, item 8): every button shows its whole label and every form
its last field, a table its columns (a wide table scrolls in its own box), at the dock's default width and dragged
narrow (320 px), in each panel a user opens there (the editors, the Profile panel in both backends, the Tools menu).
An ellipsis is allowed only where the element names its whole text on hover (a `title`), as long node and tensor
names do."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, run_in_kernel, screenshot, write_notebook

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"

# Elements inside the dock whose own box cuts their content (scrollWidth past clientWidth, overflow not visible)
# or that stick out of an ancestor (inside the dock) that clips them.
CUT = """(dock) => {
  const cut = [];
  const name = (e) =>
    `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} "${(e.innerText || e.value || '').trim().slice(0, 40)}"`;
  const box = dock.getBoundingClientRect();
  const right = box.right - dock.clientLeft;  // inside its border
  const scroller = (e) => { for (let a = e.parentElement; a && a !== dock; a = a.parentElement)
    if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return true; return false; };
  for (const e of dock.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (!e.offsetParent || r.width === 0 || r.height === 0) continue;
    const button = e.matches('button, .widget-button');
    const named = !button && e.closest('[title]') && dock.contains(e.closest('[title]'));  // full text on hover
    const style = getComputedStyle(e);
    const text = button || e.matches('th, td, label, .widget-label');
    if (text && !named && style.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1) {
      cut.push('cut text ' + name(e)); continue;
    }
    if (r.right > right + 1 && !scroller(e)) {  // a wide table scrolls inside its own box
      cut.push(`${name(e)} sticks out of the dock`); continue;
    }
    for (let a = e.parentElement; a && a !== dock; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== 'hidden' && s.overflowX !== 'clip') continue;
      const b = a.getBoundingClientRect();
      if (r.right > b.right + 1 || r.left < b.left - 1) cut.push(`${name(e)} clipped by ${name(a)}`);
      break;
    }
  }
  return [...new Set(cut)].slice(0, 12);
}"""


def cut_in_dock(page: Page) -> list[str]:
    return page.locator(".dld-dock").first.evaluate(CUT)  # type: ignore[no-any-return]


def test_nothing_in_the_dock_is_cut_off(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(MODEL, jupyter.root_dir / "dock_fit.onnx")
    write_notebook(jupyter.root_dir / "dock_fit.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('dock_fit.onnx', height='560px')\nd",
    ])
    open_notebook(page, jupyter, "dock_fit.ipynb")
    run_all(page)
    page.wait_for_selector(".dld-canvas[data-ready='1']", timeout=90_000)
    page.wait_for_selector(".dld-dock .dld-ed-params", timeout=60_000)
    found: dict[str, list[str]] = {}

    def probe(panel: str) -> None:
        page.wait_for_timeout(500)  # layout settles
        screenshot(page, f"dock_fit_{panel}", ".dld-designer")
        cut: Any = cut_in_dock(page)
        if cut:
            found[panel] = cut

    for width in (None, 320):
        if width:
            run_in_kernel(page, f"d.side_dock.resize({width})")
            page.wait_for_function(
                f"() => Math.abs(document.querySelector('.dld-dock').getBoundingClientRect().width - {width}) < 3"
            )
        suffix = f"_{width}" if width else ""
        page.locator(".dld-dock [data-tab='parameters']").first.click()
        probe("parameters" + suffix)
        for tab in ("initializers", "tensor"):
            page.locator(f'.dld-dock [data-tab="{tab}"]').first.click()
            probe(tab + suffix)
        if not page.locator(".dld-dock .dld-profile-panel").first.is_visible():
            page.locator(".dld-designer button", has_text="Profile").first.click()
        page.wait_for_selector(".dld-dock .dld-profile-panel", timeout=60_000)
        page.locator(".dld-dock .dld-profile-panel button", has_text="ONNX Runtime").first.click()
        probe("profile_onnxruntime" + suffix)
        page.locator(".dld-dock .dld-profile-panel button", has_text="TensorRT").first.click()
        probe("profile_tensorrt" + suffix)
        if not page.locator(".dld-dock .dld-tools-menu").first.is_visible():
            page.locator(".dld-designer button", has_text="Tools").first.click()
        page.wait_for_selector(".dld-dock .dld-tools-menu", timeout=60_000)
        probe("tools" + suffix)
    assert not found, "cut off in the dock:\n" + "\n".join(f"{k}: {v}" for k, v in found.items())
