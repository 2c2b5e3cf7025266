"""Subgraph documents in a real JupyterLab (issue 19) on the real scripted-GRU export (a Loop whose body holds an If):
the Loop glyph's open button lists its subgraph, the body opens in its own designer (document tabs with a
breadcrumb, outer references drawn as their own nodes, the initializers tab disabled), the parent shows the
read-only banner; a node renamed in the body with the parameter editor, Confirm Subgraph Edits, and the kernel's
parent model has the new body; Close, then one Ctrl+Z on the parent canvas restores the old body.
Screenshots: test-artifacts/screenshots/subgraph_*.png.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import (
    kernel_value,
    run_notebook,
    screenshot,
)

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
ROOT = ".dld-designer:not(.dld-child-designer)"
CHILD = ".dld-child-designer"


def cy_in(page: Page, scope: str, body: str, arg: Any = None) -> Any:
    """Run `body` with `cy` and `dld` of the canvas inside `scope` (a CSS selector) bound."""
    return page.evaluate(
        f"""([scope, arg]) => {{ const stage = document.querySelector(scope + ' .dld-stage');
            const cy = stage._cyreg.cy; const dld = stage._dld; {body} }}""",
        [scope, arg],
    )


def page_point(page: Page, scope: str, node: str, dx: float = 0.0, dy: float = 0.0) -> dict[str, float]:
    """Page coordinates of a point of a node, (dx, dy) model units from its centre."""
    return dict(
        cy_in(
            page,
            scope,
            """const n = cy.getElementById(arg[0]); const z = cy.zoom();
        const p = n.renderedPosition(); const r = stage.getBoundingClientRect();
        return {x: r.left + p.x + arg[1] * z, y: r.top + p.y + arg[2] * z};""",
            [node, dx, dy],
        )
    )


def find_op(page: Page, scope: str, op_type: str) -> str | None:
    """The id of the first `op_type` node of the canvas inside `scope` (None: there is none)."""
    return cy_in(page, scope, "for (const [id, n] of dld.store.nodes) if (n.op_type === arg) return id; return null;",
                 op_type)


def click_op(page: Page, scope: str, op_type: str) -> str:
    """Centre the first `op_type` node of the canvas inside `scope` and click it with the mouse; its id."""
    node = find_op(page, scope, op_type)
    assert node, f"no {op_type} node drawn"
    cy_in(page, scope, "cy.zoom(1.1); cy.center(cy.getElementById(arg));", node)
    page.wait_for_timeout(300)
    at = page_point(page, scope, node, 0, 6)
    page.mouse.click(at["x"], at["y"])
    return node



BODY_NAMES = "sorted(n.name for n in d.document.ir_node(loop).attributes['body'].value)"


def test_open_loop_body_edit_confirm_undo(jupyter: JupyterServer, page: Page) -> None:
    root: Path = jupyter.root_dir
    shutil.copy(REAL / "gru_scripted.onnx", root / "gru.onnx")
    run_notebook(page, jupyter, "subgraph.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('gru.onnx', height='420px')\n"
        "loop = next(n.id for n in d.document.nodes() if n.op_type == 'Loop')\nd",
    ])
    page.wait_for_selector(f"{ROOT} .dld-canvas[data-ready='1']", timeout=90_000)
    loop = find_op(page, ROOT, "Loop")
    assert loop and cy_in(page, ROOT, "return cy.getElementById(arg).hasClass('opens');", loop)
    cy_in(page, ROOT, "cy.zoom(1.2); cy.center(cy.getElementById(arg));", loop)
    page.wait_for_timeout(300)
    screenshot(page, "subgraph_loop_glyph", f"{ROOT} .dld-canvas")

    # The open button in the glyph's top-right corner: the Loop's one body opens at once (no one-item menu).
    size = cy_in(page, ROOT, "const n = dld.store.nodes.get(arg); return [n.width, n.height];", loop)
    button = page_point(page, ROOT, loop, size[0] / 2 - 10, -size[1] / 2 + 10)
    page.mouse.click(button["x"], button["y"])
    page.wait_for_selector(f"{CHILD} .dld-canvas[data-ready='1']", timeout=60_000)
    expect(page.locator(".dld-breadcrumb")).to_contain_text("gru ▸ /Loop ▸ body")
    expect(page.locator(f"{CHILD} .dld-confirm-edits")).to_have_text("Confirm Subgraph Edits")
    outer = cy_in(page, CHILD, "return cy.nodes('.outer').map(n => n.data('label'));")
    assert "outer: x" in outer, outer
    expect(page.locator(f"{CHILD} .dld-ed-tab-disabled[data-tab='initializers']")).to_have_count(1)
    screenshot(page, "subgraph_body_opened")

    # Rename the body's first Gemm with the parameter editor (a real click on it, then the name field).
    node = click_op(page, CHILD, "Gemm")
    name = page.locator(f"{CHILD} .dld-editors input[data-key='name']")
    expect(name).to_be_visible(timeout=20_000)
    name.fill("renamed_in_body")
    name.press("Enter")
    expect(page.locator(".dld-doc-tab-active")).to_contain_text("•", timeout=20_000)  # unconfirmed edits
    screenshot(page, "subgraph_body_edited")

    # A nested subgraph: the If inside the body opens from its own glyph button, one tab and crumb more.
    inner = find_op(page, CHILD, "If")
    cy_in(page, CHILD, "cy.zoom(1.2); cy.center(cy.getElementById(arg));", inner)
    page.wait_for_timeout(300)
    size = cy_in(page, CHILD, "const n = dld.store.nodes.get(arg); return [n.width, n.height];", inner)
    button = page_point(page, CHILD, inner, size[0] / 2 - 10, -size[1] / 2 + 10)
    page.mouse.click(button["x"], button["y"])
    menu = page.locator(".dld-menu[data-menu='subgraphs']")  # an If has two: a menu of them, in the page body
    expect(menu.locator(".dld-menu-item")).to_have_count(2)
    expect(menu).to_contain_text("else_branch")
    screenshot(page, "subgraph_button_menu", f"{CHILD} .dld-canvas")
    menu.locator(".dld-menu-item", has_text="then_branch").click()
    assert not cy_in(page, CHILD, "return cy.getElementById(arg).selected();", inner)  # the button opens, not selects
    expect(page.locator(".dld-breadcrumb")).to_contain_text("gru ▸ /Loop ▸ body ▸ /If ▸ then_branch", timeout=20_000)
    expect(page.locator(f"{CHILD} .dld-canvas[data-ready='1']")).to_have_count(2, timeout=60_000)
    screenshot(page, "subgraph_nested_branch")
    page.locator(".dld-doc-tab-active + .dld-doc-tab-close").click()  # nothing edited: closes at once
    expect(page.locator(".dld-breadcrumb")).to_have_text(re.compile(r"^\s*gru ▸ /Loop ▸ body\s*$"))
    expect(page.locator(CHILD)).to_have_count(1, timeout=20_000)  # the closed tab leaves on the next patch

    # The parent refuses edits while the body is open, and says why.
    page.locator(".dld-doc-tab", has_text="gru").first.click()
    banner = page.locator(f"{ROOT} .dld-readonly-banner")
    expect(banner).to_contain_text("is open for editing")
    screenshot(page, "subgraph_parent_read_only")
    page.locator(".dld-doc-tab", has_text="body").first.click()

    page.locator(f"{CHILD} .dld-confirm-edits").click()
    expect(page.locator(".dld-doc-tab-active")).not_to_contain_text("•", timeout=20_000)
    names: list[str] = []
    for _ in range(20):
        names = kernel_value(page, jupyter, BODY_NAMES)
        if "renamed_in_body" in names:
            break
        page.wait_for_timeout(300)
    assert "renamed_in_body" in names
    assert kernel_value(page, jupyter, "d.document.history[-1]") == "Confirm Subgraph Edits"
    screenshot(page, "subgraph_confirmed")

    # Another edit, not confirmed: Close asks Confirm / Discard / Cancel; Discard drops it. (The If's open button
    # selected the If too: selection is additive on this canvas, so start from an empty selection.)
    cy_in(page, CHILD, "cy.elements(':selected').unselect(); cy.center(cy.getElementById(arg));", node)
    page.wait_for_timeout(300)
    at = page_point(page, CHILD, node, 0, 6)
    page.mouse.click(at["x"], at["y"])
    name = page.locator(f"{CHILD} .dld-editors input[data-key='name']")
    name.fill("never_confirmed")
    name.press("Enter")
    expect(page.locator(".dld-doc-tab-active")).to_contain_text("•", timeout=20_000)
    page.locator(f"{CHILD} .dld-close-child").click()
    ask = page.locator(f"{CHILD} .dld-close-ask")
    expect(ask).to_contain_text("has unconfirmed edits")
    screenshot(page, "subgraph_close_asks")
    ask.locator(".dld-ask-discard").click()
    expect(page.locator(CHILD)).to_have_count(0, timeout=20_000)
    names = kernel_value(page, jupyter, BODY_NAMES)
    assert "renamed_in_body" in names and "never_confirmed" not in names

    # One Ctrl+Z on the parent canvas restores the old body.
    expect(banner).to_have_count(0)
    canvas = page.locator(f"{ROOT} .dld-canvas")
    expect(canvas).to_be_visible()
    canvas.focus()  # the canvas takes its keys once focused (a click could land on a glyph being redrawn)
    page.keyboard.press("Control+z")
    for _ in range(20):
        names = kernel_value(page, jupyter, BODY_NAMES)
        if "renamed_in_body" not in names:
            break
        page.wait_for_timeout(300)
    assert "renamed_in_body" not in names
    screenshot(page, "subgraph_undone")
