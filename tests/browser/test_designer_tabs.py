"""DL Designer tabs keep work: dirty marker, restored after a reload with the edit, Save / Discard / Cancel on an
unsaved close, Save As for a new model (the tab renames), and no kernel left behind."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.console_errors import expect_console_error
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, run_in_kernel, screenshot
from tests.browser.tab_driver import (
    TAB,
    current_tab_kernel,
    kernel_ids,
    open_workspace,
    wait_canvas,
    wait_kernels,
    wait_workspace_has,
)

DIRTY_TAB = "li.lm-TabBar-tab.jp-mod-dirty"


def test_tab_keeps_edits_across_reload_and_asks_before_closing(jupyter: JupyterServer, page: Page) -> None:
    (jupyter.root_dir / "kept.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    before = kernel_ids(jupyter)
    workspace = open_workspace(page, jupyter)
    open_from_file_browser(page, "kept.onnx", "Open With DL Designer")
    wait_canvas(page, 20)
    tab_title = page.locator("li.lm-TabBar-tab", has_text="kept.onnx")
    expect(tab_title).to_have_count(1)
    expect(page.locator(DIRTY_TAB)).to_have_count(0)
    kernel = current_tab_kernel(page)

    run_in_kernel(page, "_dld_view.document.add_node('Relu', name='added_in_test')")
    expect(page.locator(DIRTY_TAB, has_text="kept.onnx")).to_have_count(1, timeout=15_000)
    nodes_before = page.evaluate(
        f"() => [...document.querySelectorAll('{TAB} .dld-canvas *')].find(e => e._cyreg)._cyreg.cy.nodes().length"
    )
    screenshot(page, "designer_tab_dirty")

    wait_workspace_has(jupyter, workspace, "dld-jupyter:tab:kept.onnx")
    open_workspace(page, jupyter, workspace, reset=False)
    wait_canvas(page, 20)
    expect(page.locator(DIRTY_TAB, has_text="kept.onnx")).to_have_count(1, timeout=30_000)
    assert current_tab_kernel(page) == kernel, "the reloaded tab must reattach to its live kernel"
    nodes_after = page.evaluate(
        f"() => [...document.querySelectorAll('{TAB} .dld-canvas *')].find(e => e._cyreg)._cyreg.cy.nodes().length"
    )
    assert nodes_after == nodes_before, "the edit made before the reload is still on the canvas"
    screenshot(page, "designer_tab_after_reload")

    page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("unsaved changes")
    screenshot(page, "designer_tab_close_dialog")
    dialog.locator("button", has_text="Cancel").click()
    expect(page.locator("li.lm-TabBar-tab", has_text="kept.onnx")).to_have_count(1)

    page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
    page.locator(".jp-Dialog button", has_text="Discard").click()
    expect(page.locator("li.lm-TabBar-tab", has_text="kept.onnx")).to_have_count(0)
    assert kernel not in wait_kernels(jupyter, before), "closing the tab shuts its kernel down"


def test_new_model_save_as_renames_the_tab(jupyter: JupyterServer, page: Page) -> None:
    open_workspace(page, jupyter)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:new-model', {opset: 21, contrib: false}); }")
    page.wait_for_selector(f"{TAB} .dld-canvas", timeout=90_000)
    expect(page.locator("li.lm-TabBar-tab", has_text="untitled")).to_have_count(1)
    page.wait_for_function(  # the tab's link to its kernel is up once the kernel has sent the state
        f"() => document.querySelector('{TAB}')?.dataset.dirty === 'false'", timeout=60_000
    )
    page.locator(f"{TAB} .dld-canvas").first.click()
    # the canvas takes the focus back a tick after the click (the console's mousedown moves it): keys follow that
    page.wait_for_function(f"() => document.activeElement?.closest('{TAB} .dld-canvas') !== null")
    page.keyboard.press("Control+s")
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("choose a folder")
    screenshot(page, "designer_save_as_folder")
    dialog.locator("button", has_text="Select").click()
    name = page.locator(".jp-Dialog input")
    name.fill("fresh_model")
    screenshot(page, "designer_save_as_name")
    page.locator(".jp-Dialog button", has_text="Save").click()
    expect(page.locator("li.lm-TabBar-tab", has_text="fresh_model.onnx")).to_have_count(1, timeout=30_000)
    assert (jupyter.root_dir / "fresh_model.onnx").stat().st_size > 0
    screenshot(page, "designer_saved_renamed")


def test_opening_and_closing_ten_models_leaves_no_kernel(jupyter: JupyterServer, page: Page) -> None:
    for i in range(10):
        (jupyter.root_dir / f"many{i}.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    before = kernel_ids(jupyter)
    open_workspace(page, jupyter)
    # Each close shuts the tab's kernel down; JupyterLab's debugger and console log the requests of theirs that kernel
    # never answered (a subshell asked for a comm while the tab closed: seen once in a few runs).
    expect_console_error(page, r"Canceled future for (debug_request|create_subshell_request) message")
    for i in range(10):
        page.evaluate(
            f"() => {{ void window.jupyterapp.commands.execute('dld:open-file', {{path: 'many{i}.onnx'}}); }}"
        )
        page.wait_for_function(f"() => document.querySelector('{TAB}')?.dataset.dirty === 'false'", timeout=90_000)
        page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
        expect(page.locator(TAB)).to_have_count(0, timeout=30_000)
    assert wait_kernels(jupyter, before) == before, "every designer tab's kernel is shut down when it closes"
