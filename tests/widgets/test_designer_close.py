"""Closing a designer releases everything it holds (issue 31, finding 3).

Each designer opened and closed in one kernel used to leave its `dld-check-debounce` thread, its fast channel's
listening Unix socket and socket file, ~87 widgets and megabytes behind. Here designers are opened, edited (the
debounced check runs), given a profile panel, a tools dialog, the export panel, another model or a child designer, and
closed, on a running event loop as in the kernel (so the fast channel's socket exists), with real sockets and threads
counted from /proc; every count must come back to what it was before, and no closed designer may stay referenced.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import shutil
import tempfile
import threading
import weakref
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ipywidgets.widgets.widget import _instances  # what `ipywidgets.Widget.widgets` returns (deprecated name)

import dld_jupyter as dld
from dld_jupyter.frontdoor.designers import registry
from dld_jupyter.frontdoor.tools import MENU
from dld_jupyter.widgets.designer.designer import Designer, open_designer

ROOT = Path(__file__).resolve().parents[2]
RESNET8 = ROOT / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
GRU = ROOT / "tests" / "data" / "real" / "gru_scripted.onnx"  # a Loop: its body opens in a child designer


def listening_inodes() -> set[str]:
    with open("/proc/net/unix") as table:
        next(table)
        return {fields[6] for fields in map(str.split, table) if int(fields[3], 16) & 0x10000}  # __SO_ACCEPTCON


def census(channel_dir: Path) -> dict[str, Any]:
    gc.collect()
    links = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
    sockets = {link[8:-1] for link in links if link.startswith("socket:[")}
    return {
        "named_threads": Counter(t.name for t in threading.enumerate() if t.name[:4] == "dld-" and not _checking(t)),
        "fds": len(links),
        "listening": len(sockets & listening_inodes()),
        "socket_files": sorted(p.name for p in channel_dir.glob("dld-*.sock")),
        "widgets": len(_instances),
        "designers": len(registry),
    }


def _checking(thread: threading.Thread) -> bool:
    return thread.name == "dld-check"  # a check ends alone


def _ours(thread: threading.Thread) -> bool:
    """A thread this package started: its target (or its class) lives in dld_jupyter."""
    target = getattr(thread, "_target", None)
    module = getattr(target, "__module__", None) or type(thread).__module__
    return module.startswith("dld_jupyter") or thread.name.startswith("dld-")


async def settle(designer: Designer) -> None:
    for _ in range(400):  # the debounced check runs on its threads and publishes on the loop
        if not designer.editors.runner.busy:
            return
        await asyncio.sleep(0.025)
    raise AssertionError("the designer's check did not finish within 10 s")


async def open_edit_close(path: Path, child: bool) -> weakref.ref[Designer]:
    designer = open_designer(path)
    await asyncio.sleep(0)  # the channel socket starts listening on the loop
    assert designer.canvas.channel_token, "no fast channel: the test would not see its socket"
    document = designer.document
    node = document.nodes()[0]
    document.rename_node(node.id, f"{node.name}_edited")
    await settle(designer)
    designer.profile_panel()
    designer.tools_panel(MENU)
    designer.export_engine_panel()
    if child:
        loop = next(n.id for n in document.nodes() if n.op_type == "Loop")
        designer.open_subgraph(loop, "body")
    else:  # the toolbar's Open: another model replaces this one (its canvas, socket and editors close)
        designer.open_model(path)
        await asyncio.sleep(0)
        await settle(designer)
    designer.close()
    designer.close()  # closing again does nothing (a tab's close after the notebook's)
    await asyncio.sleep(0.05)  # the peers' and server's close callbacks run on the loop
    return weakref.ref(designer)


@pytest.fixture
def channel_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="dld-"))  # short: a socket path has at most 107 bytes; mode 0700
    monkeypatch.setenv("DLD_CHANNEL_DIR", str(folder))  # this test's sockets alone
    yield folder
    shutil.rmtree(folder)


def test_open_and_close_leaves_threads_sockets_files_and_widgets_as_they_were(channel_dir: Path) -> None:
    async def scenario() -> None:
        await open_edit_close(RESNET8, child=False)  # warm-up: lazy imports and module-level state
        await open_edit_close(GRU, child=True)
        before, threads_before = census(channel_dir), set(threading.enumerate())
        closed = []
        for _ in range(3):
            closed.append(await open_edit_close(RESNET8, child=False))
            closed.append(await open_edit_close(GRU, child=True))
        assert census(channel_dir) == before
        # Every thread these cycles started has ended (a check ends alone). Threads left by earlier tests in the same
        # process (a run's readers, Dask's) may end or start meanwhile: compared by identity, not by default name.
        left = [t for t in threading.enumerate() if t not in threads_before and not _checking(t)]
        assert [(t.name, getattr(t, "_target", None)) for t in left if _ours(t)] == []
        gc.collect()
        assert [ref() for ref in closed] == [None] * len(closed), "a closed designer is still referenced"

    asyncio.run(scenario())


def test_closing_one_designer_leaves_another_working(channel_dir: Path) -> None:
    async def scenario() -> None:
        kept, closed = open_designer(RESNET8), open_designer(RESNET8)
        await asyncio.sleep(0)
        closed.export_engine_panel()
        closed_id = closed.model_id
        closed.close()
        assert kept.comm is not None and kept.canvas.comm is not None and kept.editors.comm is not None
        assert all(w.comm is not None for w in (kept.toolbar, *kept.toolbar.children, kept.status.layout))
        assert [p.name for p in channel_dir.glob("dld-*.sock")] == [f"dld-{kept.canvas.channel_token}.sock"]
        assert registry.by_model_id(kept.model_id) is kept and registry.by_model_id(closed_id) is None
        kept.export_engine_panel()  # builds fresh field layouts: none was closed with the other designer
        assert kept.profiling.children[0].engine.layout.comm is not None
        kept.close()

    asyncio.run(scenario())


def test_closing_an_engine_graph_closes_its_canvas_and_panel() -> None:
    from tests.widgets.test_engine_graph import RESNET

    dld.open_engine(str(RESNET)).close()  # warm-up
    before = len(_instances)
    for _ in range(3):
        engine = dld.open_engine(str(RESNET))
        assert len(_instances) > before
        engine.close()
        engine.close()
    assert len(_instances) == before
