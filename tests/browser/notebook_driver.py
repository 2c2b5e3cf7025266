"""Drive a notebook in a real JupyterLab (or Notebook 7) page: write it, open it, run it, wait for its widgets."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import nbformat
from playwright.sync_api import Page

from tests.browser.jupyter_server import JupyterServer

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


def write_notebook(path: Path, cells: list[str]) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)


def run_notebook(page: Page, server: JupyterServer, name: str, cells: list[str], timeout_s: float = 180) -> None:
    """Write the notebook `name` with `cells` in the server's folder, open it in Lab and run every cell."""
    write_notebook(server.root_dir / name, cells)
    open_notebook(page, server, name)
    run_all(page, timeout_s)


def open_notebook(page: Page, server: JupyterServer, name: str, app: str = "lab") -> None:
    server.delete_sessions(name)
    if app == "lab":
        url = f"{server.url}/lab/workspaces/{uuid.uuid4().hex}/tree/{name}?reset&token={server.token}"
    else:
        url = f"{server.url}/notebooks/{name}?token={server.token}"
    page.goto(url)
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=90_000)
    wait_kernel_idle(page)


def wait_kernel_idle(page: Page, timeout_s: float = 120) -> None:
    """Wait until the current notebook's kernel is connected and idle (Lab and Notebook 7 alike)."""
    page.wait_for_function(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   const kernel = w && w.sessionContext && w.sessionContext.session
                                  && w.sessionContext.session.kernel;
                   return !!kernel && kernel.status === 'idle' && kernel.connectionStatus === 'connected'; }""",
        timeout=timeout_s * 1000,
    )


def run_in_kernel(page: Page, code: str) -> None:
    """Run ``code`` in the current notebook's kernel (not as a cell) and wait until it has run."""
    page.evaluate("""async (code) => {
        const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
        await kernel.requestExecute({code}).done; }""", code)


def kernel_value(page: Page, server: JupyterServer, expression: str) -> Any:
    """The value of a Python `expression` in the current notebook's kernel, as JSON (str() of what JSON cannot hold),
    passed through a file in the server's folder."""
    out = server.root_dir / f"probe-{uuid.uuid4().hex}.json"
    run_in_kernel(page, f"import json as _j; open({str(out)!r}, 'w').write(_j.dumps({expression}, default=str))")
    try:
        return json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)


def run_all(page: Page, timeout_s: float = 180) -> None:
    """Run every cell and wait until each has an execution count; fail with the first error output."""
    deadline = time.monotonic() + timeout_s
    tries = 0
    while True:
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        # Run All before the kernel is connected is silently ignored: check that prompts moved, else retry.
        try:
            page.wait_for_function(
                """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                     .some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent || ''))""",
                timeout=15_000,
            )
            break
        except Exception:
            tries += 1
            if tries >= 4 or time.monotonic() > deadline:
                raise
    page.wait_for_function(
        """() => { const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
                   return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent || '')); }""",
        timeout=max(1.0, deadline - time.monotonic()) * 1000,
    )
    errors = page.evaluate(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   const cells = w && w.content && w.content.model ? [...w.content.model.cells] : [];
                   return cells.flatMap(c => c.outputs ? c.outputs.toJSON() : [])
                               .filter(o => o.output_type === 'error')
                               .map(o => o.ename + ': ' + o.evalue + '\\n' + (o.traceback || []).join('\\n')); }"""
    )
    if errors:
        raise AssertionError("a notebook cell raised:\n" + "\n".join(errors))


def open_from_file_browser(page: Page, file_name: str, menu_label: str) -> None:
    """Right-click a file in JupyterLab's file browser and pick `menu_label` from its context menu."""
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
    item = page.locator(f".jp-DirListing-item[title*='{file_name}']").first
    item.wait_for(state="visible", timeout=30_000)
    item.click(button="right")
    page.locator(".lm-Menu-itemLabel", has_text=menu_label).click()


def screenshot(page: Page, name: str, selector: str | None = None) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if selector:
        page.locator(selector).first.screenshot(path=str(path))
    else:
        page.screenshot(path=str(path))
    return path
