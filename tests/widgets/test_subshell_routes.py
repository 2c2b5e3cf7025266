"""A widget's message is handled although the subshell its comm was last answered on is gone (subshell_routes.py).

A real kernel: a comm published under a request of a subshell that is then deleted (as JupyterLab deletes the Lab
sidebar's when it follows another tab); the browser's next message to that comm, sent on the main shell, reached no
handler before ("Unknown subshell_id"), and now does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager, start_new_kernel


@pytest.fixture()
def kernel() -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def control(client: BlockingKernelClient, kind: str, content: dict[str, Any]) -> dict[str, Any]:
    message = client.session.msg(f"{kind}_request", content)
    client.control_channel.send(message)
    while True:
        reply: dict[str, Any] = client.get_control_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == message["header"]["msg_id"]:
            return reply["content"]  # type: ignore[no-any-return]


def run(client: BlockingKernelClient, code: str, subshell: str | None = None) -> None:
    message = client.session.msg("execute_request", {"code": code, "silent": False, "store_history": False,
                                                     "user_expressions": {}, "allow_stdin": False,
                                                     "stop_on_error": True})
    if subshell is not None:
        message["header"]["subshell_id"] = subshell
    client.shell_channel.send(message)
    while True:
        reply = client.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == message["header"]["msg_id"]:
            assert reply["content"]["status"] == "ok", reply["content"]
            return


def test_a_message_to_a_comm_whose_reply_subshell_was_deleted_is_handled(
    kernel: tuple[KernelManager, BlockingKernelClient], tmp_path: Path
) -> None:
    _manager, client = kernel
    info = control(client, "kernel_info", {})
    if "kernel subshells" not in info.get("supported_features", []):
        pytest.skip("this ipykernel has no subshells, so no route to lose")
    got = tmp_path / "got.json"
    run(client, "import dld_jupyter.widgets.widget_base\nfrom comm import create_comm\nimport json\n"
                "c = create_comm(target_name='dld-test')\n"
                f"c.on_msg(lambda m: json.dump(m['content']['data'], open({str(got)!r}, 'w')))")
    subshell = control(client, "create_subshell", {})["subshell_id"]
    run(client, "c.send({'ping': 1})", subshell=subshell)  # the comm published under the subshell's request
    control(client, "delete_subshell", {"subshell_id": subshell})
    comm_id = _comm_id(client)
    client.shell_channel.send(client.session.msg("comm_msg", {"comm_id": comm_id, "data": {"clicked": True}}))
    deadline = time.monotonic() + 30
    while not got.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert got.exists(), "the kernel dropped the message (routed to the deleted subshell)"
    assert json.loads(got.read_text()) == {"clicked": True}


def _comm_id(client: BlockingKernelClient) -> str:
    """The test comm's id, from the comm_open the kernel published."""
    while True:
        message = client.get_iopub_msg(timeout=30)
        if message["msg_type"] == "comm_open" and message["content"]["target_name"] == "dld-test":
            return str(message["content"]["comm_id"])
