"""Closing a designer tab while the "keep the kernel" setting is on leaves the kernel running but releases the
designer there: its view is forgotten and closed (canvas, channel socket, check thread), so a kernel kept for a day
of opening and closing tabs does not fill up with designers nobody can see (issue 31, finding 3)."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser
from tests.browser.tab_driver import current_tab_kernel, kernel_ids, open_workspace, wait_canvas

SETTINGS = "/lab/api/settings/dld-jupyter:plugin"

# Evaluated in the kept kernel after the tab closed: how many tab views it still holds, and how many live designers
# (a closed designer leaves the registry).
PROBE = (
    "(lambda t, d: (len(t._views), len(d.registry)))"
    "(__import__('dld_jupyter.lab.document_tabs').lab.document_tabs, "
    "__import__('dld_jupyter.frontdoor.designers').frontdoor.designers)"
)


def _ask_kernel(page: Page, kernel_id: str, expression: str) -> str:
    """The value of `expression` in a kernel no tab shows any more (through the app's kernel manager)."""
    return str(page.evaluate(
        """async ([id, expression]) => {
            const kernel = window.jupyterapp.serviceManager.kernels.connectTo({model: {id, name: 'python3'}});
            const reply = await kernel.requestExecute({code: '', silent: false,
                                                       user_expressions: {probe: expression}}).done;
            const result = reply.content.user_expressions.probe;
            kernel.dispose();
            return result.status === 'ok' ? result.data['text/plain'] : `${result.ename}: ${result.evalue}`;
        }""",
        [kernel_id, expression],
    ))


def test_closing_a_tab_that_keeps_its_kernel_closes_its_designer(jupyter: JupyterServer, page: Page) -> None:
    (jupyter.root_dir / "kept_kernel.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    jupyter.api(SETTINGS, method="PUT", body={"raw": json.dumps({"keepKernelOnClose": True})})
    try:
        open_workspace(page, jupyter)
        open_from_file_browser(page, "kept_kernel.onnx", "Open With DL Designer")
        wait_canvas(page, 20)
        kernel = current_tab_kernel(page)
        assert _ask_kernel(page, kernel, PROBE) == "(1, 1)", "the open tab holds one live designer"

        page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
        expect(page.locator("li.lm-TabBar-tab", has_text="kept_kernel.onnx")).to_have_count(0)
        assert kernel in kernel_ids(jupyter), "the setting keeps the kernel running"
        page.wait_for_timeout(500)  # the forget request is sent without waiting for its reply
        assert _ask_kernel(page, kernel, PROBE) == "(0, 0)", "the kept kernel no longer holds the closed designer"
        jupyter.api(f"/api/kernels/{kernel}", method="DELETE")
    finally:
        jupyter.api(SETTINGS, method="PUT", body={"raw": "{}"})
