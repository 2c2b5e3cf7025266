"""Edits that used to leave a mess (issue 26, item 4), in a real JupyterLab: Sanitize in place then Undo keeps the
layout the user saw; a graph input typed in the UI makes a model built from scratch valid, and Save As of an invalid
model says what is invalid before it writes a draft.
Screenshots: test-artifacts/screenshots/model_edits_*.png."""

from __future__ import annotations

import shutil
from pathlib import Path

import onnx
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import run_in_kernel, screenshot
from tests.browser.tab_driver import TAB, open_workspace

IDS = f"""() => [...document.querySelectorAll('{TAB}:not(.lm-mod-hidden) .dld-canvas *')].find(e => e._cyreg)
    ._cyreg.cy.nodes().map(n => n.id()).sort().join(',')"""
REAL = Path(__file__).resolve().parents[1] / "data" / "real"
TOOLS = ".dld-designer .dld-tool-dialog"
POSITIONS = f"""() => {{
    const reg = [...document.querySelectorAll('{TAB}:not(.lm-mod-hidden) .dld-canvas *')].find(e => e._cyreg);
    return Object.fromEntries(reg._cyreg.cy.nodes().map(n => [n.data('label') + '|' + n.data('kind'),
        [Math.round(n.position('x')), Math.round(n.position('y'))]]));
}}"""


def open_tab(page: Page, name: str) -> None:
    page.evaluate(f"() => {{ void window.jupyterapp.commands.execute('dld:open-file', {{path: '{name}'}}); }}")
    page.wait_for_function(
        f"() => document.querySelector('{TAB}')?.dataset.dirty === 'false'"
        f" && document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')",
        timeout=90_000,
    )


def settled(page: Page) -> dict[str, list[int]]:
    """The node positions once two reads a second apart agree."""
    last: dict[str, list[int]] = page.evaluate(POSITIONS)
    for _ in range(30):
        page.wait_for_timeout(1000)
        now = page.evaluate(POSITIONS)
        if now == last:
            return now
        last = now
    raise AssertionError(f"the canvas kept changing: {last}")


def test_sanitize_then_undo_keeps_the_layout(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(REAL / "gru_scripted.onnx", jupyter.root_dir / "gru_mess.onnx")
    open_workspace(page, jupyter)
    open_tab(page, "gru_mess.onnx")
    before = settled(page)  # the background check adds detail lines (`W scalar`) after the first draw
    ids = page.evaluate(IDS)
    assert len(before) == 7 and len({tuple(p) for p in before.values()}) == len(before), before
    screenshot(page, "model_edits_before_sanitize")

    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:sanitize')", timeout=60_000)
    page.evaluate("() => window.jupyterapp.commands.execute('dld:sanitize')")
    page.wait_for_selector(f"{TOOLS} .dld-sanitize-fold", timeout=30_000)
    dialog = page.locator(TOOLS).first
    dialog.locator(".dld-tool-destination label", has_text="Apply to this model").click()
    dialog.locator(".dld-tool-finish").click()
    page.wait_for_selector(f"{TOOLS} .dld-tool-status", timeout=180_000)
    page.wait_for_function(f"() => ({IDS})() !== '{ids}'", timeout=30_000)  # the swapped model's nodes are drawn
    after = page.evaluate(POSITIONS)
    assert len({tuple(p) for p in after.values()}) == len(after), f"nodes on one spot after Sanitize: {after}"
    assert {k: after[k] for k in after if k in before} == {k: before[k] for k in after if k in before}
    screenshot(page, "model_edits_after_sanitize")

    page.locator(f"{TAB} .dld-designer button[title^='Undo']").click()
    page.wait_for_function(f"() => ({IDS})() === '{ids}'", timeout=30_000)  # the file's node objects are back
    assert settled(page) == before, "Undo brings every node, the four I/O diamonds too, back in place"
    screenshot(page, "model_edits_after_undo")


def click_node(page: Page, name: str, kind: str) -> None:
    """A real click on the canvas node `name` of `kind` (input, output, op), aimed again while a late relabel (the
    background check) still moves the glyphs under it. Clicked again only when the click missed (the canvas did not
    select the node): a click that hit is left to reach the editor, however long the kernel takes, since another
    click meanwhile (the background first, to select nothing) would make the editor show the model for a moment, and
    the next edit could go there."""
    shown = f"() => document.querySelector('{TAB} .dld-ed-io .dld-ed-input[data-key=name]')?.value === '{name}'"
    node = f"""cy.nodes().filter(n => n.data('label') === '{name}' && n.data('kind') === '{kind}')[0]"""
    cy = f"[...document.querySelectorAll('{TAB}:not(.lm-mod-hidden) .dld-canvas *')].find(e => e._cyreg)._cyreg.cy"
    for _ in range(5):
        x, y = page.evaluate(
            f"""() => {{
            const cy = {cy};
            const node = {node};
            cy.center(node);
            const box = cy.container().getBoundingClientRect(), at = node.renderedPosition();
            return [box.left + at.x, box.top + at.y - node.renderedHeight() / 4];  // above the terminal dot
        }}"""
        )
        box = page.locator(f"{TAB} .dld-canvas").first.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 8, box["y"] + box["height"] - 8)  # on the background first: nothing selected
        page.mouse.click(x, y)
        try:  # the canvas selects on the click itself: a miss shows at once
            page.wait_for_function(f"() => {{ const cy = {cy}; const node = {node};"
                                   " return node.selected() && cy.nodes(':selected').length === 1; }",
                                   timeout=3_000)
        except PlaywrightTimeout:
            continue
        page.wait_for_function(shown, timeout=60_000)
        return
    raise AssertionError(f"a click on {kind} {name!r} never selected it on the canvas")


EDITOR_STATE = f"""() => {{
    const shape = document.querySelector('{TAB} .dld-ed-io-shape');
    const active = document.activeElement;
    return {{
        shown: document.querySelector('{TAB} .dld-ed-params .dld-ed-head')?.textContent,
        name: document.querySelector('{TAB} .dld-ed-io .dld-ed-input[data-key=name]')?.value,
        dtype: document.querySelector('{TAB} .dld-ed-io-dtype')?.value,
        shape: shape?.value, shape_focused: !!shape && active === shape,
        focus: active ? active.tagName + '.' + active.className : null,
        errors: [...document.querySelectorAll('{TAB} .dld-ed-error')].map(e => e.textContent),
        history: [...document.querySelectorAll('{TAB} .dld-designer *')].filter(e => !e.children.length)
            .map(e => e.textContent).find(t => /\\d+ steps?/.test(t || '')),  // '— 9 steps': the edits applied
    }};
}}"""


def set_type(page: Page, dtype: str, shape: str) -> None:
    page.locator(f"{TAB} .dld-ed-io-dtype").select_option(dtype)
    page.wait_for_function(f"() => document.querySelector('{TAB} .dld-ed-io-dtype')?.value === '{dtype}'")
    field = page.locator(f"{TAB} .dld-ed-io-shape")
    field.fill(shape)
    field.press("Enter")
    try:
        page.wait_for_function(f"() => document.querySelector('{TAB} .dld-ed-io-shape')?.value === '{shape}'")
    except PlaywrightTimeout:  # say what the editor shows: which value, where the focus went, what the kernel said
        raise AssertionError(f"the shape field never showed {shape!r}: {page.evaluate(EDITOR_STATE)}") from None


def set_type_typing_into_a_redrawn_field(page: Page, dtype: str, shape: str) -> None:
    """The element type is chosen while the shape field has the focus, and the shape is typed only once the kernel's
    answer to that choice has redrawn the panel (the field is a new element by then): the keys must still reach the
    field. Before, the redraw left the focus on the page body and the shape went nowhere (a loaded CI runner)."""
    field = page.locator(f"{TAB} .dld-ed-io-shape")
    field.focus()
    field.evaluate("el => { el.dataset.old = '1'; }")  # the drawing the focus is in
    page.locator(f"{TAB} .dld-ed-io-dtype").evaluate(
        "(select, dtype) => { select.value = dtype; select.dispatchEvent(new Event('change')); }", dtype)
    page.wait_for_function(f"() => !document.querySelector('{TAB} .dld-ed-io-shape').dataset.old"
                           f" && document.querySelector('{TAB} .dld-ed-io-dtype').value === '{dtype}'", timeout=30_000)
    page.keyboard.type(shape)
    page.keyboard.press("Enter")
    try:
        page.wait_for_function(f"() => document.querySelector('{TAB} .dld-ed-io-shape')?.value === '{shape}'")
    except PlaywrightTimeout:
        raise AssertionError(f"the shape typed never reached the field: {page.evaluate(EDITOR_STATE)}") from None


def save_as(page: Page, name: str) -> None:
    page.locator(f"{TAB} .dld-canvas").first.focus()
    page.keyboard.press("Control+Shift+s")
    page.locator(".jp-Dialog button", has_text="Select").click()
    page.locator(".jp-Dialog input").fill(name)
    page.locator(".jp-Dialog button", has_text="Save").click()


def test_a_graph_input_typed_in_the_ui_saves_a_valid_model(jupyter: JupyterServer, page: Page) -> None:
    open_workspace(page, jupyter)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:new-model', {opset: 21, contrib: false}); }")
    page.wait_for_function(f"() => document.querySelector('{TAB}')?.dataset.dirty === 'false'", timeout=90_000)
    # Built from scratch as the canvas does it: a Gather, its two inputs made graph inputs (float, no shape), its
    # output a graph output.
    run_in_kernel(page, "d = _dld_view.document; g = d.add_node('Gather'); d.add_graph_input(g, 0, 'data');"
                        " d.add_graph_input(g, 1, 'indices'); d.add_graph_output(g, 0, 'picked')")
    page.wait_for_function(f"() => ['indices|input', 'data|input', 'picked|output'].every(k => k in ({POSITIONS})())",
                           timeout=30_000)

    # Save As of the invalid model says what is invalid; Cancel writes nothing.
    save_as(page, "scratch_draft")
    dialog = page.locator(".jp-Dialog", has_text="Save an invalid model?")
    dialog.wait_for(timeout=30_000)
    assert "type" in dialog.locator(".dld-DesignerDocument-invalid").inner_text()
    screenshot(page, "model_edits_save_invalid")
    dialog.locator("button", has_text="Cancel").click()
    assert not (jupyter.root_dir / "scratch_draft.onnx").exists()

    click_node(page, "indices", "input")
    set_type(page, "int64", "2")
    screenshot(page, "model_edits_input_typed")
    click_node(page, "data", "input")
    set_type(page, "float", "4, 3")
    click_node(page, "picked", "output")
    set_type_typing_into_a_redrawn_field(page, "float", "2, 3")

    save_as(page, "scratch_valid")
    expect_file = jupyter.root_dir / "scratch_valid.onnx"
    page.locator("li.lm-TabBar-tab", has_text="scratch_valid.onnx").wait_for(timeout=30_000)
    model = onnx.load(expect_file)
    onnx.checker.check_model(model, full_check=True)
    indices = next(i for i in model.graph.input if i.name == "indices")
    assert indices.type.tensor_type.elem_type == onnx.TensorProto.INT64
    assert [d.dim_value for d in indices.type.tensor_type.shape.dim] == [2]
    picked = next(o for o in model.graph.output if o.name == "picked")  # typed into the redrawn field
    assert [d.dim_value for d in picked.type.tensor_type.shape.dim] == [2, 3]
    screenshot(page, "model_edits_saved_valid")
