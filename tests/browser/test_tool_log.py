"""A chatty user tool's log in a real JupyterLab (issue 31): 2 MB of output reaches the browser about once (the
bytes the kernel's websocket delivers are counted; the whole log used to be re-sent per line, 195 MB), the box
shows the kept last part under an "earlier output dropped" line, exactly as the kernel keeps it, and follows the end.
Screenshot: test-artifacts/screenshots/tool_log_chatty.png.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from playwright.sync_api import Page, WebSocket, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, run_in_kernel, screenshot, write_notebook

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
CHATTY = (
    "import time\nfor i in range(20_000):\n    print(f'{i:>8} ' + 'x' * 91, flush=True)\n"
    "    if i % 2_000 == 0:\n        time.sleep(0.1)\n"
)  # 2,000,000 bytes of output
OUTPUT = 2_000_000
LAST_PART = re.compile(r"^… earlier output dropped \([\s\S]*   19999 x{91}\n\[dld\] argv: [^\n]*\n$")


def test_a_chatty_tool_log_reaches_the_browser_once(jupyter: JupyterServer, page: Page) -> None:
    root: Path = jupyter.root_dir
    shutil.copy(REAL / "gpt2_tiny.onnx", root / "log_model.onnx")
    (root / "chatty.py").write_text(CHATTY)
    write_notebook(
        root / "tool_log.ipynb",
        [
            "import sys, types\nfrom dld_jupyter.document import Document\nfrom dld_jupyter.usertools import UserTool\n"
            "from dld_jupyter.widgets.tools.tool_run import ToolRunDialog\n"
            "d = ToolRunDialog(types.SimpleNamespace(document=Document.open('log_model.onnx')),"
            " UserTool('chatty', sys.executable, ['chatty.py', '$Model']))\nd",
        ],
    )
    received = [0]

    def count(socket: WebSocket) -> None:
        socket.on("framereceived", lambda payload: received.__setitem__(0, received[0] + len(payload)))

    page.on("websocket", count)
    open_notebook(page, jupyter, "tool_log.ipynb")
    start = received[0]
    run_all(page)
    dialog = page.locator(".dld-tool-run-dialog")
    expect(dialog.locator(".dld-tool-state")).to_contain_text("Finished", timeout=120_000)
    box = dialog.locator(".dld-tool-stream textarea")
    expect(box).to_have_value(LAST_PART, timeout=10_000)
    sent = received[0] - start
    print(f"{sent:,} bytes reached the browser for {OUTPUT:,} bytes of tool output")
    assert sent < 3 * OUTPUT
    run_in_kernel(page, "import json; json.dump(d.stream.value, open('tool_log.json', 'w'))")
    kept = json.loads((root / "tool_log.json").read_text())
    assert box.input_value() == kept and kept.startswith("… earlier output dropped (")
    at_end = box.evaluate("(b) => b.scrollTop + b.clientHeight >= b.scrollHeight - 4")
    assert at_end  # the box follows the end
    screenshot(page, "tool_log_chatty", ".dld-tool-run-dialog")
