"""TensorRT attributes from the canvas and the layer explorer, in a real JupyterLab with the real mouse (issue 18
Done-when): an optimization profile on a dynamic input of a real export (BERT-tiny: [batch, sequence]), refused
then accepted in its dialog; a precision on three nodes from the canvas menu (one undo step); the badge and its
quick menu; the TRT-Prec column; the explorer's menu opening the same dialogs; save, reopen, still there."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.sidebar_driver import PANEL, open_sidebar
from tests.browser.test_canvas import cy_eval, open_model, press_and_wait, rendered, replies, wait_replies

BERT = Path(__file__).resolve().parents[2] / "tests" / "data" / "real" / "bert_tiny.onnx"
DIALOG = ".dld-dialog"


def right_click(page: Page, node_id: str, dy: float = 0.0) -> None:
    cy_eval(page, "cy.zoom(1.2); cy.center(cy.getElementById(arg));", node_id)
    page.wait_for_timeout(200)
    at = rendered(page, node_id)
    page.mouse.click(at["x"], at["y"] + dy, button="right")


def menu_item(page: Page, label: str) -> None:
    page.locator(".dld-menu-item", has_text=label).first.click()


def precisions(page: Page, ids: list[str]) -> list[str | None]:
    return list(cy_eval(page, "return arg.map(id => dld.store.nodes.get(id).precision);", ids))


def test_profile_and_precisions_from_the_canvas_and_explorer(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(BERT, jupyter.root_dir / "bert.onnx")
    open_model(page, jupyter, "trt_canvas.ipynb", "bert.onnx", ", grouping='none'")
    node = cy_eval(page, "for (const [id, n] of dld.store.nodes) if (n.kind === 'input' && n.name === 'input_ids')"
                         " return id; return null;")
    assert node

    # 1. Optimization profile: right-click the dynamic input, a wrong order is refused in the dialog, then stored.
    right_click(page, node)
    menu_item(page, "Set TensorRT Optimization Profile…")
    dialog = page.locator(f"{DIALOG}[data-dialog='profile']")
    expect(dialog).to_be_visible()
    expect(dialog.locator("select")).to_have_value("input_ids")
    expect(dialog).to_contain_text("Inferred Batch Size")
    expect(dialog.locator(".dld-trt-batch")).to_be_disabled()  # two wildcards: no inferred batch for this input
    for column, values in {"min": ("1", "1"), "opt": ("8", "64"), "max": ("4", "128")}.items():
        for axis, value in enumerate(values):
            dialog.locator(f"input[data-column='{column}'][data-axis='{axis}']").fill(value)
    dialog.locator("button", has_text="OK").click()
    expect(dialog.locator(".dld-dialog-error")).to_contain_text("min 1 <= opt 8 <= max 4 does not hold")
    screenshot(page, "trt_profile_dialog_error", ".dld-canvas")
    dialog.locator(".dld-trt-size-max").fill("256")  # size-max fills every wildcard's max
    assert dialog.locator("input[data-column='max'][data-axis='0']").input_value() == "256"
    before = replies(page)
    dialog.locator("button", has_text="OK").click()
    wait_replies(page, before)
    expect(dialog).to_have_count(0)
    stored = cy_eval(page, "return dld.channel.intent('trt_inputs', {}).then(r => r.data.inputs[0].profile);")
    assert stored == {"min": [1, 1], "opt": [8, 64], "max": [256, 256]}

    # 2. Three MatMul layers selected, "Set Layer Precision…" from the canvas menu.
    layers = cy_eval(page, "return cy.nodes().filter(n => dld.store.nodes.get(n.id()).op_type === 'MatMul')"
                           ".slice(0, 3).map(n => n.id());")
    cy_eval(page, "cy.elements().unselect(); arg.forEach(id => cy.getElementById(id).select());", layers)
    right_click(page, layers[0])
    menu_item(page, "Set Layer Precision…")
    dialog = page.locator(f"{DIALOG}[data-dialog='precision']")
    expect(dialog).to_contain_text("3 layers")
    for name in ("fp32", "fp16", "bf16", "fp8", "int64", "int32", "int8", "int4", "uint8", "bool", "No Constraint"):
        expect(dialog.locator(f"input[value='{name}']")).to_have_count(1)
    dialog.locator("input[value='fp16']").check()
    screenshot(page, "trt_precision_dialog", ".dld-canvas")
    before = replies(page)
    dialog.locator("button", has_text="OK").click()
    wait_replies(page, before)
    page.wait_for_function("(ids) => ids.every(id => document.querySelector('.dld-stage')._dld.store.nodes"
                           ".get(id).precision === 'fp16')", arg=layers)
    # One undo step for the three, then redo.
    cy_eval(page, "cy.elements().unselect();")
    page.locator(".dld-canvas").focus()
    press_and_wait(page, "Control+z")
    assert precisions(page, layers) == [None, None, None]
    press_and_wait(page, "Control+y")
    assert precisions(page, layers) == ["fp16", "fp16", "fp16"]

    # The badge on the glyph; clicking it opens the quick menu, which changes that layer only.
    cy_eval(page, "cy.zoom(2); cy.center(cy.getElementById(arg));", layers[0])
    page.wait_for_timeout(300)
    screenshot(page, "trt_precision_badge", ".dld-canvas")
    at = rendered(page, layers[0])
    page.mouse.click(at["x"] - at["w"] / 2 + 14, at["y"] + at["h"] / 2 - 24)  # the badge: bottom-left, zoom 2
    quick = page.locator(".dld-trt-quick")
    expect(quick).to_be_visible()
    expect(quick.locator(".current")).to_contain_text("fp16")
    screenshot(page, "trt_precision_quick_menu", ".dld-canvas")
    before = replies(page)
    quick.locator(".dld-menu-item", has_text="bf16").click()
    wait_replies(page, before)
    assert precisions(page, layers) == ["bf16", "fp16", "fp16"]

    # The TRT-Prec column shows them; the explorer's menu opens the same dialogs on the canvas.
    open_sidebar(page)
    panel = page.locator(PANEL)
    panel.locator(".dld-Explorer-filter").fill("MatMul")
    rows = panel.locator(".dld-Explorer-row[data-id]")
    expect(panel.locator(f".dld-Explorer-row[data-id='{layers[1]}'] .dld-col-prec")).to_have_text("fp16",
                                                                                                  timeout=20_000)
    expect(panel.locator(f".dld-Explorer-row[data-id='{layers[0]}'] .dld-col-prec")).to_have_text("bf16")
    screenshot(page, "trt_explorer_prec_column")
    rows.first.click(button="right")
    page.locator(".dld-ExplorerMenu-item", has_text="Set Layer Precision…").click()
    expect(page.locator(f"{DIALOG}[data-dialog='precision']")).to_be_visible(timeout=20_000)
    page.locator(f"{DIALOG} button", has_text="Cancel").click()
    rows.first.click(button="right")
    page.locator(".dld-ExplorerMenu-item", has_text="Set TensorRT Optimization Profile…").click()
    dialog = page.locator(f"{DIALOG}[data-dialog='profile']")
    expect(dialog).to_be_visible(timeout=20_000)
    assert dialog.locator("input[data-column='opt'][data-axis='0']").input_value() == "8"  # the stored profile
    screenshot(page, "trt_profile_from_explorer")
    dialog.locator("button", has_text="Cancel").click()

    # Save, reopen in a fresh kernel: the profile, the badges and the column are still there.
    page.locator(".dld-canvas").focus()
    press_and_wait(page, "Control+s")
    open_model(page, jupyter, "trt_canvas_reopen.ipynb", "bert.onnx", ", grouping='none'")  # a new kernel
    badged = cy_eval(page, "return [...dld.store.nodes].filter(([, n]) => n.precision)"
                           ".map(([id, n]) => [id, n.precision]);")
    assert sorted(p for _, p in badged) == ["bf16", "fp16", "fp16"], badged
    layers = [node_id for node_id, _ in sorted(badged, key=lambda b: b[1])]  # the bf16 one first
    stored = cy_eval(page, "return dld.channel.intent('trt_inputs', {}).then(r => r.data.inputs[0].profile);")
    assert stored == {"min": [1, 1], "opt": [8, 64], "max": [256, 256]}
    open_sidebar(page)
    page.locator(PANEL).locator(".dld-Explorer-filter").fill("MatMul")
    expect(page.locator(f"{PANEL} .dld-Explorer-row[data-id='{layers[2]}'] .dld-col-prec")).to_have_text(
        "fp16", timeout=20_000)
    cy_eval(page, "cy.zoom(1.5); cy.center(cy.getElementById(arg));", layers[0])
    page.wait_for_timeout(300)
    screenshot(page, "trt_reopened")
