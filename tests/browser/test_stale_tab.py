"""A designer tab whose kernel stops says so at once (issue 31, finding 6): before, a tab whose kernel was shut down
or killed kept its dirty mark and its edits for as long as one looked, Save failed with no dialog, and only a page
reload told that the edits were lost.

Now a banner over the stale view says the kernel stopped and the unsaved edits are lost, the tab's mark and tooltip
say so, edit gestures are refused, Save (Ctrl+S and the command) explains in a dialog why it cannot save, the file on
disk stays as it was, Reopen gives a working designer on a new kernel, and a restarted kernel (kill -9: the server
starts it again, empty) makes the tab stale the same way."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.console_errors import expect_console_error
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, run_in_kernel, screenshot
from tests.browser.tab_driver import (
    TAB,
    current_tab_kernel,
    current_tab_value,
    kernel_ids,
    open_workspace,
    wait_canvas,
    wait_kernels,
)

DIRTY_TAB = "li.lm-TabBar-tab.jp-mod-dirty"
STALE_TAB = "li.lm-TabBar-tab.dld-mod-stale"
BANNER = f"{TAB} .dld-StaleBanner"
CY = f"[...document.querySelectorAll('{TAB} .dld-canvas *')].find(e => e._cyreg)._cyreg.cy"


def wait_linked(page: Page) -> None:
    """Wait until the current designer tab's link to its kernel is up (the kernel has sent the dirty state)."""
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget?.node.dataset.dirty === 'false'", timeout=90_000
    )


def a_leaf(page: Page, node_id: str = "") -> dict[str, object]:
    """A visible, movable node of the canvas (the lowest in view, clear of the banner; or `node_id`): its id, model
    position, page coordinates (for the real mouse) and the class of what the page has at that point."""
    return dict(
        page.evaluate(
            f"""(wanted) => {{
        const cy = {CY}; const box = cy.container().getBoundingClientRect();
        const at = n => ({{x: box.left + n.renderedPosition().x, y: box.top + n.renderedPosition().y}});
        const inView = n => at(n).y > box.top + 20 && at(n).y < box.bottom - 20;
        const node = wanted ? cy.getElementById(wanted)
            : cy.nodes().filter(n => !n.isParent() && n.visible() && inView(n)).max(n => at(n).y).ele;
        const {{x, y}} = at(node);
        return {{id: node.id(), px: node.position('x'), py: node.position('y'), x, y,
                 hit: document.elementFromPoint(x, y)?.className ?? ''}}; }}""",
            node_id,
        )
    )


def _tab_with_an_unsaved_edit(jupyter: JupyterServer, page: Page, name: str) -> tuple[Path, bytes, str]:
    """The bundled model as `name`, open in a designer tab with an edit not saved: (file, its bytes, kernel id)."""
    model = jupyter.root_dir / name
    model.write_bytes(SAMPLE_MODEL.read_bytes())
    open_workspace(page, jupyter)
    open_from_file_browser(page, name, "Open With DL Designer")
    wait_canvas(page, 20)
    wait_linked(page)
    kernel = current_tab_kernel(page)
    run_in_kernel(page, "_dld_view.document.add_node('Relu', name='lost_edit')")
    expect(page.locator(DIRTY_TAB, has_text=name)).to_have_count(1, timeout=15_000)
    return model, model.read_bytes(), kernel


def test_killed_kernel_makes_the_tab_stale_and_reopen_gives_a_working_designer(
    jupyter: JupyterServer, page: Page
) -> None:
    before = kernel_ids(jupyter)
    model, on_disk, kernel = _tab_with_an_unsaved_edit(jupyter, page, "stale.onnx")
    nodes = page.evaluate(f"() => {CY}.nodes().length")

    # The kernel is shut down behind the tab's back (another page, the REST API, a culler). JupyterLab's debugger and
    # console log the requests that kernel never answered: theirs, from the shutdown this test makes on purpose.
    expect_console_error(page, r"Canceled future for (debug_request|create_subshell_request) message")
    started = time.monotonic()
    jupyter.api(f"/api/kernels/{kernel}", method="DELETE")
    banner = page.locator(BANNER)
    expect(banner).to_be_visible(timeout=5_000)
    shown_after = time.monotonic() - started
    expect(banner).to_contain_text("was shut down")
    expect(banner).to_contain_text("edits made since the last save are lost")
    expect(banner).to_contain_text("stale.onnx on disk is unchanged")
    tab = page.locator(STALE_TAB, has_text="stale.onnx")
    expect(tab).to_have_count(1)
    assert "lost" in (tab.get_attribute("title") or ""), "the tab's tooltip explains its mark"
    screenshot(page, "designer_tab_stale")

    # An edit gesture is refused: a drag on a node moves nothing, Delete deletes nothing.
    leaf = a_leaf(page)
    assert leaf["hit"] == "dld-StaleVeil", f"the stale view is not under the veil but under {leaf['hit']!r}"
    x, y = float(str(leaf["x"])), float(str(leaf["y"]))
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 90, y - 50, steps=6)
    page.mouse.up()
    page.keyboard.press("Delete")
    page.wait_for_timeout(300)
    after = a_leaf(page, str(leaf["id"]))
    assert (after["px"], after["py"]) == (leaf["px"], leaf["py"]), "the stale view took a drag"
    assert page.evaluate(f"() => {CY}.nodes().length") == nodes

    # Save says why it cannot save: Ctrl+S in the tab (back to it from the file browser), and the command.
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
    tab.click()
    page.keyboard.press("Control+s")
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("cannot be saved")
    expect(dialog).to_contain_text("was shut down")
    screenshot(page, "designer_tab_stale_save")
    dialog.locator("button", has_text="Dismiss").click()
    expect(dialog).to_have_count(0)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:save'); }")
    expect(dialog).to_contain_text("cannot be saved")
    dialog.locator("button", has_text="Dismiss").click()
    assert model.read_bytes() == on_disk, "the file on disk is untouched"

    # Reopen: a working designer on a new kernel, from the file on disk (without the lost edit).
    banner.locator("button", has_text="Reopen").click()
    expect(page.locator(BANNER)).to_have_count(0, timeout=30_000)
    wait_canvas(page, 20)
    wait_linked(page)
    reopened = current_tab_kernel(page)
    assert reopened != kernel
    expect(page.locator("li.lm-TabBar-tab", has_text="stale.onnx")).to_have_count(1)
    assert current_tab_value(page, "[n.name for n in _dld_view.document.nodes() if n.name == 'lost_edit']") == []
    run_in_kernel(page, "_dld_view.document.add_node('Relu', name='kept_edit')")
    expect(page.locator(DIRTY_TAB, has_text="stale.onnx")).to_have_count(1, timeout=15_000)
    page.locator(f"{TAB} .dld-canvas").first.click(position={"x": 12, "y": 12})
    # the canvas takes the focus back a tick after the click (the console's mousedown moves it): keys follow that
    page.wait_for_function(f"() => document.activeElement?.closest('{TAB} .dld-canvas') !== null")
    page.keyboard.press("Control+s")
    expect(page.locator(DIRTY_TAB)).to_have_count(0, timeout=20_000)
    assert b"kept_edit" in model.read_bytes(), "the reopened designer saves"

    # kill -9: the server starts the kernel again, empty; the tab goes stale, and Close closes it without asking
    # about a save that cannot happen, and shuts the restarted kernel down.
    pid = int(str(current_tab_value(page, "__import__('os').getpid()")))
    started = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    expect(page.locator(BANNER)).to_contain_text("restarted", timeout=20_000)
    restart_shown_after = time.monotonic() - started
    expect(page.locator(BANNER)).to_contain_text("Nothing was lost")
    screenshot(page, "designer_tab_stale_restarted")
    page.locator(BANNER).locator("button", has_text="Close").click()
    expect(page.locator("li.lm-TabBar-tab", has_text="stale.onnx")).to_have_count(0, timeout=10_000)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    assert wait_kernels(jupyter, before) == before, "the restarted kernel is shut down with its tab"
    print(f"banner shown {shown_after:.2f} s after the REST shutdown, {restart_shown_after:.2f} s after kill -9")


def test_kernel_shut_down_from_the_running_panel_makes_the_tab_stale(jupyter: JupyterServer, page: Page) -> None:
    model, on_disk, kernel = _tab_with_an_unsaved_edit(jupyter, page, "running.onnx")

    page.evaluate("() => window.jupyterapp.commands.execute('running:show-panel')")
    kernel_rows = page.locator(".jp-RunningSessions-item", has=page.locator(".jp-RunningSessions-item-label-kernel-id"))
    item = kernel_rows.filter(has_text="running.onnx").first  # the kernel's row (Open Tabs' row closes the tab)
    item.hover()
    item.locator(".jp-RunningSessions-itemShutdown").click()
    expect(page.locator(BANNER)).to_contain_text("edits made since the last save are lost", timeout=5_000)
    expect(page.locator(STALE_TAB, has_text="running.onnx")).to_have_count(1)
    expect(page.locator(".dld-Sidebar-status")).to_contain_text("reopen the file from the tab's banner")
    screenshot(page, "designer_tab_stale_running_panel")

    # The tab's own close button asks nothing: there is nothing left to save.
    page.locator("li.lm-TabBar-tab", has_text="running.onnx").locator(".lm-TabBar-tabCloseIcon").click()
    expect(page.locator("li.lm-TabBar-tab", has_text="running.onnx")).to_have_count(0, timeout=10_000)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    assert kernel not in kernel_ids(jupyter)
    assert model.read_bytes() == on_disk
