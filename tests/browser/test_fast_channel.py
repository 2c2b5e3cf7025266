"""The canvas's fast channel in a real JupyterLab: two views of one canvas attach their sockets through the server's
relay, an edit in one shows in the other; a dropped connection is made again; and when the kernel's socket goes
away both carry on over the comm."""

from __future__ import annotations

from typing import Any

import onnx
from playwright.sync_api import Page

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, run_in_kernel, screenshot, write_notebook
from tests.models import resnet_like


def on_view(page: Page, index: int, body: str, arg: Any = None) -> Any:
    return page.evaluate(
        f"async ([i, arg]) => {{ const dld = document.querySelectorAll('.dld-stage')[i]._dld; {body} }}",
        [index, arg])


def wait_name(page: Page, index: int, node: str, name: str) -> None:
    page.wait_for_function(
        "([i, id, name]) => document.querySelectorAll('.dld-stage')[i]._dld.store.nodes.get(id).name === name",
        arg=[index, node, name], timeout=20_000)


def test_two_views_share_edits_over_the_fast_channel_and_fall_back_to_the_comm(
        jupyter: JupyterServer, page: Page) -> None:
    onnx.save(resnet_like(), jupyter.root_dir / "fast.onnx")
    write_notebook(jupyter.root_dir / "fast_channel.ipynb", [
        "from dld_jupyter.document import Document\nfrom dld_jupyter.widgets.canvas.canvas import GraphCanvas\n"
        "c = GraphCanvas(Document.open('fast.onnx'), height='330px')\nc",
        "c",  # the same canvas, a second view
    ])
    open_notebook(page, jupyter, "fast_channel.ipynb")
    run_all(page)
    page.wait_for_function("() => document.querySelectorAll(\".dld-canvas[data-ready='1']\").length === 2",
                           timeout=60_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dld-stage')].every(s => s._dld && s._dld.channel.path === 'fast')",
        timeout=20_000)
    conv = on_view(page, 0, "for (const [id, n] of dld.store.nodes) if (n.op_type === 'Conv') return id;")

    reply = on_view(page, 0, "return await dld.channel.intent('rename', {node: arg, name: 'renamed_fast'});", conv)
    assert reply["ok"] and reply["view"] == on_view(page, 0, "return dld.channel.view;")
    wait_name(page, 1, conv, "renamed_fast")  # the other view got the same patch
    assert on_view(page, 0, "return dld.channel.sent;") == {"comm": 0, "fast": 1}
    assert on_view(page, 1, "return dld.channel.replyCount;") == 0, "view 1 settled view 0's intent"
    screenshot(page, "canvas_fast_channel_two_views")

    # A blip: the relay's connections drop, the kernel's socket stays. The views resync over the comm, then
    # reconnect and attach again.
    run_in_kernel(page, "for _p in list(c._routes.socket.peers): _p.writer.close()")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dld-stage')].every(s => s._dld.channel.path === 'comm')",
        timeout=20_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dld-stage')].every(s => s._dld.channel.path === 'fast')",
        timeout=20_000)
    reply = on_view(page, 1, "return await dld.channel.intent('rename', {node: arg, name: 'renamed_again'});", conv)
    assert reply["ok"] and on_view(page, 1, "return dld.channel.sent;") == {"comm": 0, "fast": 1}
    wait_name(page, 0, conv, "renamed_again")

    # The kernel's socket goes away (as when a server has no relay): both views resync and edit over the comm.
    run_in_kernel(page, "c._routes.close()")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dld-stage')].every(s => s._dld.channel.path === 'comm')",
        timeout=20_000)
    reply = on_view(page, 1, "return await dld.channel.intent('rename', {node: arg, name: 'renamed_comm'});", conv)
    assert reply["ok"], reply
    assert on_view(page, 1, "return dld.channel.sent;") == {"comm": 1, "fast": 1}
    wait_name(page, 0, conv, "renamed_comm")
    undo = on_view(page, 0, "return await dld.channel.intent('undo', {});")
    assert undo["ok"]
    wait_name(page, 1, conv, "renamed_again")
    assert page.locator(".dld-toast-error").count() == 0
    assert on_view(page, 0, "return dld.channel.inbox.waiting;") == 0
