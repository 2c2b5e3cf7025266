"""A user tool's run dialog in a real kernel (jupyter_client + ipykernel), its messages to the front end counted on
the kernel's iopub channel as a browser would get them: a chatty tool's log crosses the wire about once and in
batches (issue 31: 2 MB of output became 195 MB, the whole log re-sent per line), the kept log is capped, a 50 MB
line arrives cut, a front end that starts late gets the kept log, and a graph named `../x` keeps the tool's model
copy inside its temporary folder."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import start_new_kernel

from dld_jupyter.document import Document
from dld_jupyter.usertools.log import LOG_LIMIT
from dld_jupyter.widgets.tools.tool_run import model_for_tool

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "gpt2_tiny.onnx"
OUTPUT = 2_000_000  # bytes the chatty tool writes: 20,000 lines of 100


class Kernel:
    """A real kernel; every iopub message is read here, and each widget's comm messages are recorded as a front end
    would get them (a comm over `budget` bytes fails at once: the old log view would stream gigabytes)."""

    def __init__(self, client: BlockingKernelClient, budget: int) -> None:
        self.client, self.budget = client, budget
        self.sent: dict[str, list[dict[str, Any]]] = {}
        self.bytes: dict[str, int] = {}

    def _read(self, timeout: float) -> dict[str, Any] | None:
        try:
            message: dict[str, Any] = self.client.get_iopub_msg(timeout=timeout)
        except queue.Empty:
            return None
        content = message["content"]
        if message["msg_type"] == "comm_msg":
            comm = content["comm_id"]
            self.bytes[comm] = (
                self.bytes.get(comm, 0)
                + len(json.dumps(content["data"]))
                + sum(len(b) for b in message.get("buffers", []))
            )
            assert self.bytes[comm] < self.budget, f"{self.bytes[comm]:,} bytes sent to the browser so far"
            self.sent.setdefault(comm, []).append(content["data"])
        return message

    def execute(self, code: str) -> None:
        msg_id = self.client.execute(code)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            message = self._read(1.0)
            if (
                message is not None
                and message["parent_header"].get("msg_id") == msg_id
                and message["msg_type"] == "status"
                and message["content"]["execution_state"] == "idle"
            ):
                break
        reply = self.client.get_shell_msg(timeout=10)
        while reply["parent_header"].get("msg_id") != msg_id:  # a kernel_info reply left from the start
            reply = self.client.get_shell_msg(timeout=10)
        assert reply["content"]["status"] == "ok", reply["content"]

    def evaluate(self, expression: str, tmp_path: Path) -> Any:
        """A value from the kernel, through a file."""
        file = tmp_path / "value.json"
        self.execute(f"import json; json.dump({expression}, open({str(file)!r}, 'w'))")
        return json.loads(file.read_text())

    def drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self._read(min(left, 0.2))


@pytest.fixture(scope="module")
def kernel() -> Iterator[Kernel]:
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        yield Kernel(client, 3 * OUTPUT)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def browser_text(messages: list[dict[str, Any]]) -> tuple[str, int]:
    """(the text a front end shows from these messages, the dropped-lines count), applied as log_view.ts does."""
    body, dropped = "", 0
    for data in messages:
        if data.get("method") == "update" and "value" in data.get("state", {}):  # a synced text box's value
            body = data["state"]["value"]
        elif data.get("method") == "custom":
            step = data["content"]
            body = step["text"] if step["kind"] == "replace" else body[step["drop"] :] + step["text"]
            dropped = step["dropped_lines"]
    return body, dropped


def run_dialog(kernel: Kernel, tmp_path: Path, name: str, body: str) -> str:
    """Open the run dialog of a tool running `body` (it starts at once) and wait for its end; its log's comm id."""
    tool = tmp_path / f"{name}.py"
    tool.write_text("import sys, time\n" + body)
    kernel.execute(
        "import sys, types\nfrom dld_jupyter.document import Document\nfrom dld_jupyter.usertools import UserTool\n"
        "from dld_jupyter.widgets.tools.tool_run import ToolRunDialog\n"
        f"d = ToolRunDialog(types.SimpleNamespace(document=Document.open({str(MODEL)!r})),"
        f" UserTool({name!r}, sys.executable, [{str(tool)!r}, '$Model']))"
    )
    deadline = time.monotonic() + 120
    while not kernel.evaluate("d.run_result is not None", tmp_path):  # each cell gives the kernel's loop a turn
        assert time.monotonic() < deadline, "the tool did not finish"
        kernel.drain(0.2)
    kernel.drain(0.5)
    return str(kernel.evaluate("d.stream.model_id", tmp_path))


def test_a_chatty_tool_sends_its_log_once_in_batches(kernel: Kernel, tmp_path: Path) -> None:
    body = (
        "for i in range(20_000):\n    print(f'{i:>8} ' + 'x' * 91, flush=True)\n"
        "    if i % 2_000 == 0:\n        time.sleep(0.1)\n"
    )
    started = time.monotonic()
    comm = run_dialog(kernel, tmp_path, "chatty", body)
    elapsed = time.monotonic() - started
    shown = kernel.evaluate("d.stream.value", tmp_path)
    assert kernel.evaluate("d.run_result.ok", tmp_path)
    assert kernel.bytes[comm] < 3 * OUTPUT  # was 195 MB for 2 MB: the whole log per line
    assert len(kernel.sent[comm]) <= elapsed / 0.1 + 5  # batched: at most one message per ~100 ms
    assert shown.startswith("… earlier output dropped (") and len(shown) < LOG_LIMIT + 200  # the kept log is capped
    assert "   19999 " + "x" * 91 in shown and shown.rstrip().splitlines()[-1].startswith("[dld] argv:")
    body_shown, dropped = browser_text(kernel.sent[comm])
    assert dropped > 0 and body_shown == shown.split("\n", 1)[1]  # the browser has what the kernel keeps

    before = len(kernel.sent[comm])  # a front end that starts late says hello and gets the kept log
    kernel.client.session.send(
        kernel.client.shell_channel.socket,
        "comm_msg",
        {"comm_id": comm, "data": {"method": "custom", "content": {"kind": "hello"}}},
    )
    kernel.drain(2)
    late = kernel.sent[comm][before:]
    assert [m["content"]["kind"] for m in late] == ["replace"] and browser_text(late)[0] == body_shown


def test_a_50_mb_line_reaches_the_browser_cut(kernel: Kernel, tmp_path: Path) -> None:
    body = "sys.stdout.write('y' * 50_000_000 + '\\n')\nprint('done', flush=True)\n"
    comm = run_dialog(kernel, tmp_path, "flood", body)
    shown = kernel.evaluate("d.stream.value", tmp_path)
    assert kernel.bytes[comm] < 100_000 and len(shown) < 100_000
    assert "more characters not shown]" in shown and "\ndone\n" in shown and browser_text(kernel.sent[comm])[0] == shown


@pytest.mark.parametrize("graph", ["../x", "../../etc/x", "{tmp}/escaped", ".."])
def test_the_tool_copy_of_a_model_named_like_a_path_stays_in_its_folder(graph: str, tmp_path: Path) -> None:
    doc = Document.new(name=graph.format(tmp=tmp_path))
    doc.add_node("Relu")
    ref, _ = model_for_tool(doc)
    copy = Path(ref.path)
    assert copy.is_file() and copy.resolve().parent == copy.parent.resolve()
    assert copy.parent.name.startswith("dld_tool_model_") and copy.suffix == ".onnx"
    assert not (tmp_path / "escaped.onnx").exists()
    ref.release()
    assert not copy.parent.exists()
