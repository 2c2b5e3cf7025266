"""Drive DL Designer document tabs in a real JupyterLab: open a workspace, wait for a designer tab and its canvas,
wait until the workspace has saved a tab's record (before a reload), count kernels, profile quickly from a tab."""

from __future__ import annotations

import ast
import json
import time
import uuid
from typing import Any

from playwright.sync_api import Locator, Page

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import run_in_kernel

TAB = ".dld-DesignerDocument"


def open_workspace(page: Page, server: JupyterServer, workspace: str | None = None, reset: bool = True) -> str:
    """Open JupyterLab on a workspace of its own (a fresh one unless named) and wait for the app."""
    workspace = workspace or uuid.uuid4().hex
    query = "?reset&" if reset else "?"
    page.goto(f"{server.url}/lab/workspaces/{workspace}{query}token={server.token}")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=90_000)
    page.wait_for_selector(".jp-DirListing-content", timeout=60_000)
    return workspace


def double_click(page: Page, file_name: str) -> None:
    """Double-click an item of the file browser's current folder (a file opens, a folder is entered)."""
    item = page.locator(f".jp-DirListing-item[title*='{file_name}']").first
    item.wait_for(state="visible", timeout=30_000)
    item.dblclick()


def wait_canvas(page: Page, min_nodes: int = 1, timeout_ms: int = 90_000) -> None:
    """Wait until a designer tab's canvas shows at least `min_nodes` nodes."""
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('{TAB} .dld-canvas *')]
                 .some(e => e._cyreg && e._cyreg.cy.nodes().length >= {min_nodes})""",
        timeout=timeout_ms,
    )


def current_tab_kernel(page: Page) -> str:
    """The kernel id of the current designer tab."""
    return str(page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id"))


def current_tab_value(page: Page, expression: str) -> Any:
    """A Python expression's value in the current tab's kernel (as JSON), asked silently."""
    text = page.evaluate(
        """async (expr) => {
            const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            const reply = await kernel.requestExecute({code: '', silent: true, store_history: false,
                                                       user_expressions: {v: expr}}).done;
            return reply.content.user_expressions.v.data['text/plain']; }""",
        f"__import__('json').dumps({expression})",
    )
    return json.loads(ast.literal_eval(text))


def kernel_ids(server: JupyterServer) -> set[str]:
    kernels = server.api("/api/kernels")
    assert isinstance(kernels, list)
    return {str(k["id"]) for k in kernels}


def wait_workspace_has(server: JupyterServer, workspace: str, text: str, timeout_s: float = 20) -> None:
    """Wait until the server-side workspace holds `text` (JupyterLab saves it a moment after a change)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        saved = server.api(f"/lab/api/workspaces/{workspace}")
        if text in str(saved):
            return
        time.sleep(0.5)
    raise AssertionError(f"workspace {workspace} never saved {text!r}")


def wait_kernels(server: JupyterServer, expected: set[str], timeout_s: float = 30) -> set[str]:
    """Wait until the running kernels are exactly `expected`; returns what runs at the end."""
    deadline = time.monotonic() + timeout_s
    found = kernel_ids(server)
    while found != expected and time.monotonic() < deadline:
        time.sleep(0.5)
        found = kernel_ids(server)
    return found


def profile_from_tab(page: Page, timeout_ms: int = 240_000) -> Locator:
    """Run the open Profile panel of the designer tab with few passes (5, 1 warm-up, 1 thread) and wait for the
    report tab; returns it."""
    run_in_kernel(
        page,
        "_f = _dld_view.profiling.children[0].fields\n"
        "_f['iterations'].value, _f['warmup'].value, _f['threads'].value = 5, 1, 1",
    )
    page.locator(f"{TAB} .dld-profile-panel button", has_text="Profile").first.click()
    report_tab = page.locator(".dld-DesignerDocument:has(.dld-r-link)")
    report_tab.first.wait_for(state="visible", timeout=timeout_ms)
    linked = page.evaluate(REPORT_LINKED)
    assert linked == "linked", f"the report tab did not link to the kernel: {linked}"
    return report_tab


# The report tab joins its designer's kernel on a connection that may not handle comms: its tab comm must still
# reach the kernel (two tab comms there), and no "could not be opened" toast may say otherwise (issue 26, item 5g:
# every profile ended in a false "report could not be opened: Comms are disabled").
REPORT_LINKED = """async () => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const count = "sum(c.target_name == 'dld_jupyter.tab' for c in __import__('comm').get_comm_manager().comms.values())";
  for (let i = 0; i < 240; i++) {
    const toast = [...document.querySelectorAll('.Toastify__toast, .jp-toast-message')]
      .map((t) => t.textContent || '').find((t) => t.includes('could not be'));
    if (toast) return toast;
    const reply = await kernel.requestExecute({code: '', silent: true, store_history: false,
                                               user_expressions: {n: count}}).done;
    if (Number(reply.content.user_expressions?.n?.data?.['text/plain'] ?? 0) >= 2) return 'linked';
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return 'neither linked nor refused within 60 s';
}"""
