"""Local-function documents in a real JupyterLab (issue 19) on the real ShuffleNetV2 exported with
`export_modules_as_functions`: the JupyterLab command and the designer's Functions button open the Model Local
Functions window; the first function opens in its own designer; Local Function Settings adds an int parameter; the
Gather node's `axis` is bound to it with Set Reference Parameter (the row becomes a drop-down with X); Confirm Local
Function Edits through the JupyterLab command (the sidebar serves the document shown in the designer's tabs), and
the kernel's model has the parameter and the reference in the definition every instance calls. Then Create Function
from Selection… and Inline Function from the canvas's context menu.
Screenshots: test-artifacts/screenshots/function_*.png.
"""

from __future__ import annotations

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
from tests.browser.test_subgraph_ui import CHILD, ROOT, click_op, cy_in, page_point

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
DEFINITION = """[
    [a.name, a.type.name, a.value] for a in d.document.model.functions[key].attributes.values()
] + [[n.attributes['axis'].ref_attr_name] for n in d.document.model.functions[key] if n.op_type == 'Gather']"""



def test_function_window_settings_reference_confirm(jupyter: JupyterServer, page: Page) -> None:
    root: Path = jupyter.root_dir
    shutil.copy(REAL / "shufflenet_functions_small.onnx", root / "shufflenet.onnx")
    run_notebook(page, jupyter, "functions.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('shufflenet.onnx', height='380px')\n"
        "f = d.document.functions.list()[0]\nkey = (f.domain, f.name, f.overload)\nd",
    ])
    page.wait_for_selector(f"{ROOT} .dld-canvas[data-ready='1']", timeout=90_000)
    # The JupyterLab command (palette, Tools menu) opens the window in the designer; so does the toolbar's button.
    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:local-functions')", timeout=60_000)
    page.evaluate("() => window.jupyterapp.commands.execute('dld:local-functions')")
    window = page.locator(".dld-functions-panel")
    expect(window).to_have_count(1, timeout=20_000)
    window.locator(".dld-fn-close").click()
    expect(window).to_have_count(0)
    page.locator(f"{ROOT} button", has_text="Functions").first.click()
    expect(window.locator(".dld-fn-list select option")).to_have_count(2, timeout=20_000)
    window.locator(".dld-fn-filter input").fill("InvertedResidual.1")
    expect(window.locator(".dld-fn-list select option")).to_have_count(1)
    window.locator(".dld-fn-list select").select_option(index=0)
    screenshot(page, "function_local_functions_window", ".dld-functions-panel")
    window.locator(".dld-fn-open").click()
    page.wait_for_selector(f"{CHILD} .dld-canvas[data-ready='1']", timeout=60_000)
    expect(page.locator(f"{CHILD} .dld-confirm-edits")).to_have_text("Confirm Local Function Edits")
    screenshot(page, "function_opened")

    # Local Function Settings: add an int parameter with default 0.
    page.locator(f"{CHILD} button", has_text="Local Function Settings").click()
    settings = page.locator(f"{CHILD} .dld-function-settings")
    settings.locator(".dld-fs-name input").fill("gather_axis")
    settings.locator(".dld-fs-type select").select_option("int")
    settings.locator(".dld-fs-default input").fill("0")
    settings.locator(".dld-fs-add").click()
    expect(settings.locator(".dld-fs-row", has_text="gather_axis")).to_have_count(1, timeout=20_000)
    screenshot(page, "function_settings", f"{CHILD} .dld-function-settings")

    settings.locator("button", has_text="Close").click()
    expect(settings).to_have_count(0)

    # Select the Gather node, then Set Reference Parameter: axis -> gather_axis.
    page.locator(f"{CHILD} .dld-canvas").scroll_into_view_if_needed()
    click_op(page, CHILD, "Gather")
    editors = page.locator(f"{CHILD} .dld-editors")
    expect(editors.locator(".dld-ed-ref-form")).to_be_hidden()
    editors.locator(".dld-ed-ref-set").click()
    editors.locator(".dld-ed-ref-attr").select_option("axis")
    editors.locator(".dld-ed-ref-param").select_option("gather_axis")
    screenshot(page, "function_set_reference", f"{CHILD} .dld-editors")
    editors.locator(".dld-ed-ref-ok").click()
    expect(editors.locator(".dld-ed-row[data-attr='axis'] .dld-ed-ref")).to_have_value("gather_axis", timeout=20_000)
    expect(editors.locator(".dld-ed-row[data-attr='axis'] .dld-ed-ref-clear")).to_be_visible()
    expect(editors.locator(".dld-ed-ref-form")).to_be_hidden()
    editors.locator(".dld-ed-row[data-attr='axis']").scroll_into_view_if_needed()
    screenshot(page, "function_reference_bound", f"{CHILD} .dld-editors")

    # Confirm through the JupyterLab command: the sidebar serves the document shown in the designer's tabs.
    page.evaluate("() => window.jupyterapp.commands.execute('dld:confirm-edits')")
    expect(page.locator(".dld-doc-tab-active")).not_to_contain_text("•", timeout=20_000)
    found: list[Any] = []
    for _ in range(20):
        found = kernel_value(page, jupyter, DEFINITION)
        if ["gather_axis"] in found:
            break
        page.wait_for_timeout(300)
    assert ["gather_axis", "INT", 0] in found and ["gather_axis"] in found, found
    assert kernel_value(page, jupyter, "d.document.history[-1]") == "Confirm Local Function Edits"
    screenshot(page, "function_confirmed")


def test_create_function_from_selection_and_inline_from_the_canvas(jupyter: JupyterServer, page: Page) -> None:
    root: Path = jupyter.root_dir
    shutil.copy(REAL / "shufflenet_functions_small.onnx", root / "shufflenet2.onnx")
    run_notebook(page, jupyter, "from_selection.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('shufflenet2.onnx', height='420px')\nd",
    ])
    page.wait_for_selector(f"{ROOT} .dld-canvas[data-ready='1']", timeout=90_000)
    # The stem: the first Conv and the op after it, selected on the canvas, then the context menu.
    pair = cy_in(
        page,
        ROOT,
        """const conv = [...dld.store.nodes.values()].find(n => n.op_type === 'Conv');
        const next = cy.getElementById(conv.id).outgoers('node').filter(n => dld.store.nodes.get(n.id()).kind === 'op');
        cy.elements(':selected').unselect(); cy.getElementById(conv.id).select(); next[0].select();
        cy.zoom(1); cy.center(cy.getElementById(conv.id)); return [conv.id, next[0].id()];""",
    )
    page.wait_for_timeout(300)
    at = page_point(page, ROOT, pair[0], 0, 6)
    page.mouse.click(at["x"], at["y"], button="right")
    page.locator(".dld-menu-item", has_text="Create Function from Selection…").click()
    dialog = page.locator(f"{ROOT} .dld-dialog[data-dialog='create-function']")
    dialog.locator(".dld-fn-name").fill("Stem")
    dialog.locator(".dld-fn-domain").fill("my.blocks")
    screenshot(page, "function_from_selection_dialog", f"{ROOT} .dld-canvas")
    dialog.locator("button", has_text="Create").click()
    expect(dialog).to_have_count(0, timeout=20_000)
    instance = None
    for _ in range(20):
        instance = cy_in(
            page,
            ROOT,
            """for (const [id, n] of dld.store.nodes) if (n.function === 'my.blocks::Stem')
            return id; return null;""",
        )
        if instance:
            break
        page.wait_for_timeout(300)
    assert instance, "no instance of the new function on the canvas"
    functions = kernel_value(page, jupyter, "sorted(f.name for f in d.document.functions.list())")
    assert "Stem" in functions
    cy_in(page, ROOT, "cy.center(cy.getElementById(arg));", instance)
    page.wait_for_timeout(300)
    screenshot(page, "function_from_selection_instance", f"{ROOT} .dld-canvas")
    at = page_point(page, ROOT, instance, 0, 6)
    page.mouse.click(at["x"], at["y"], button="right")
    page.locator(".dld-menu-item", has_text="Inline Function").click()
    for _ in range(20):
        if not cy_in(page, ROOT, "return cy.getElementById(arg).nonempty();", instance):
            break
        page.wait_for_timeout(300)
    assert not cy_in(page, ROOT, "return cy.getElementById(arg).nonempty();", instance)
    assert kernel_value(page, jupyter, "d.document.history[-2:]")[-1].startswith("Inline")
