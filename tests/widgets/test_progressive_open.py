"""A big model's first view is drawn from its outline (in a forked child) while its document loads; the view is
the one the loaded document gives, and everything that needs the document waits for it."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from pathlib import Path
from typing import Any

import onnx
import pytest

import dld_jupyter.document.files.loading as loading
from dld_jupyter.document import Document
from dld_jupyter.document.files import gc_pause
from dld_jupyter.document.files.gc_pause import gc_paused
from dld_jupyter.document.files.loading import DocumentLoad, open_for_view
from dld_jupyter.lab.kernel_sidebar import SidebarSession
from dld_jupyter.widgets.canvas.canvas import GraphCanvas
from dld_jupyter.widgets.canvas.canvas_view import CanvasView
from dld_jupyter.widgets.canvas.preview_view import Overview, overview_in_child
from dld_jupyter.widgets.designer.designer import Designer, open_designer
from tests.models import generated_graph, transformer_like
from tests.widgets.test_canvas import Recorder


@pytest.fixture(params=["generated", "transformer"])
def big(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / f"{request.param}.onnx"
    onnx.save(generated_graph(3000) if request.param == "generated" else transformer_like(layers=40), path)
    return path


def _load(path: Path) -> DocumentLoad:
    load = open_for_view(path, min_nodes=100)
    assert isinstance(load, DocumentLoad)
    return load


def test_the_overview_is_the_documents_collapsed_view(big: Path) -> None:
    expected = CanvasView(Document.open(big), "auto").snapshot()
    assert len(expected[0]) < 100  # grouped: an overview, not 3,000 nodes
    assert Overview.of(_load(big).outline, "auto", False).snapshot() == expected
    assert overview_in_child(_load(big), "auto", False)().snapshot() == expected  # drawn in a forked child


def _structure(view: CanvasView) -> tuple[Any, ...]:
    g = view.grouping
    edges = [(k, e.src, e.si, e.dst, e.di, e.value, e.label) for k, e in view.edges.items()]
    return (view.order, view.op_type, view.scope_size, view.plumbing, view.plumbing_feeds, edges, g.enabled,
            g.wrappers, g.path, g.count, g.labels, g.by_id, g.expanded)


def test_the_documents_view_adopts_the_structure_the_child_read(big: Path, monkeypatch: Any) -> None:
    """The child sends the structure its overview read from the outline after the overview; the document's view
    takes it instead of reading every ir node again (0.25 s of the kernel's CPU on 50,000 nodes), and it is what
    the view would have read from the document."""
    overview = overview_in_child(_load(big), "auto", False)()
    doc = Document.open(big)
    expected = _structure(CanvasView(doc, "auto"))

    def no_reading(*_args: Any) -> Any:
        raise AssertionError("the document's view read the model again")

    monkeypatch.setattr(CanvasView, "_read_structure", no_reading)
    view = overview.view_of(doc)
    assert _structure(view) == expected
    assert not view.resync()  # nothing to correct on screen
    monkeypatch.undo()
    # Without the structure (a child that died after the overview) the view reads its own.
    overview = overview_in_child(_load(big), "auto", False)()
    assert overview.rest is not None
    overview.rest._read.wait(30)
    overview.rest._data = overview.rest._data[:100]
    assert _structure(overview.view_of(doc)) == expected


def _wait_loaded(canvas: GraphCanvas) -> Document:
    arrived = threading.Event()
    found: list[Document] = []
    canvas.on_document(lambda doc: (found.append(doc), arrived.set()))
    assert arrived.wait(60), "the document never arrived"
    return found[0]


def _wait_sent(rec: Recorder, kind: str) -> None:
    """Until `kind` was sent (the palette and "loaded" follow the document's callbacks on the loading thread)."""
    for _ in range(400):
        if any(m["kind"] == kind for m in rec.sent):
            return
        threading.Event().wait(0.05)
    raise AssertionError(f"{kind!r} was never sent: {[m['kind'] for m in rec.sent]}")


def test_canvas_draws_the_overview_then_takes_the_document(big: Path) -> None:
    canvas = GraphCanvas(_load(big))
    rec = Recorder(canvas)
    assert canvas.loading and canvas.pending_load is not None
    canvas._on_msg(canvas, {"kind": "hello"}, [])
    snapshot, buffers = rec.last("snapshot")
    assert snapshot["loading"] is True and len(buffers) == 1
    doc = _wait_loaded(canvas)
    assert not canvas.loading and canvas.document is doc
    _wait_sent(rec, "loaded")
    kinds = [m["kind"] for m in rec.sent]
    assert kinds[-1] == "loaded" and "patch" not in kinds  # the overview was right: nothing to correct
    # The view goes on from what was sent: expanding a group patches the overview.
    group = next(n["id"] for n in snapshot["graph"]["nodes"] if n["kind"] == "group")
    reply = canvas.handle_intent({"kind": "intent", "request": 1, "action": "expand", "args": {"group": group}})
    assert reply["ok"], reply["error"]
    added = [n["id"] for p in rec.patches() for op in p["ops"] if op["op"] == "add_nodes" for n in op["nodes"]]
    ids = {v.id for v in doc.nodes()}
    assert added and all(n in ids or n.startswith("g:") for n in added)


def test_the_document_is_built_as_soon_as_the_overview_is_sent(tmp_path: Path) -> None:
    """The build starts on the hello that sends the overview, on the kernel's loop as there, not when the browser
    says it has painted it: waiting for the paint cost the paint's time again before edits worked (issue 42)."""
    path = tmp_path / "g.onnx"
    onnx.save(generated_graph(3000), path)
    canvas = GraphCanvas(_load(path))
    load = canvas.pending_load
    assert load is not None
    rec = Recorder(canvas)
    record = canvas.send
    started_when_sent: list[float | None] = []

    def send(message: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        if message["kind"] == "snapshot":
            started_when_sent.append(load.started_at)
        record(message, buffers)

    canvas.send = send  # type: ignore[method-assign]

    async def hello() -> None:  # handled as the kernel handles it: on its running event loop
        canvas._on_msg(canvas, {"kind": "hello"}, [])

    asyncio.run(hello())
    assert started_when_sent == [None]  # the overview goes out first (the build must not delay the first paint)
    assert load.started_at is not None  # and the build is under way with no message from the browser
    _wait_sent(rec, "loaded")
    kinds = [m["kind"] for m in rec.sent]
    assert kinds == ["snapshot", "ops", "loaded"]  # the palette (it adds nodes: an edit) comes with the document
    assert any(op["name"] == "Conv" for op in rec.last("ops")[0]["ops"])


def test_an_edit_sent_while_loading_waits_for_the_document(tmp_path: Path) -> None:
    path = tmp_path / "g.onnx"
    onnx.save(generated_graph(3000), path)
    canvas = GraphCanvas(_load(path))
    rec = Recorder(canvas)
    canvas._on_msg(canvas, {"kind": "hello"}, [])
    reply = canvas.handle_intent({"kind": "intent", "request": 7, "action": "rename",
                                  "args": {"node": "n10", "name": "renamed_node"}})
    assert reply["ok"], reply["error"]
    assert canvas.document.node("n10").name == "renamed_node"
    assert rec.sent[-1]["kind"] == "reply"


def test_designer_and_sidebar_do_not_wait_for_a_loading_model(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "g.onnx"
    onnx.save(generated_graph(3000), path)
    monkeypatch.setattr(loading, "PROGRESSIVE_MIN_NODES", 100)
    designer = open_designer(path)
    assert isinstance(designer, Designer) and designer.canvas.loading
    assert "loading the model (3,000 nodes)" in designer.status.value
    assert designer.panels.children == ()  # the editors need the document
    sent: list[dict[str, Any]] = []
    session = SidebarSession(sent.append)
    session.handle({"kind": "hello", "candidates": [designer.model_id]})  # answers at once, listing it
    assert sent[-1] == {"kind": "designers",
                        "items": [{"model_id": designer.model_id, "title": "g", "path": str(path)}]}
    session.handle({"kind": "bind", "model_id": designer.model_id})  # bound once loaded
    assert designer.canvas.loading
    # the browser hears at once that the bind arrived (it asks again only for a bind that got no answer)
    assert sent[-1] == {"kind": "loading", "model_id": designer.model_id, "title": "g", "path": str(path)}
    designer.canvas._on_msg(designer.canvas, {"kind": "hello"}, [])
    doc = _wait_loaded(designer.canvas)
    assert designer.editors.document is doc and designer.panels.children == (designer.editors,)
    assert "3,000" not in designer.status.value and "0 steps" in designer.status.value
    for _ in range(100):  # the sidebar's binding runs on the loading thread, after the designer's
        if any(m.get("kind") == "state" for m in sent):
            break
        threading.Event().wait(0.05)
    state = next(m for m in sent if m.get("kind") == "state")
    assert state["model_id"] == designer.model_id and len(state["layers"]["ids"]) == 3000


def test_a_model_that_fails_to_load_says_so_in_the_designer(tmp_path: Path, monkeypatch: Any) -> None:
    model = generated_graph(3000)
    model.graph.input[0].type.tensor_type.elem_type = 999  # passes the checks of opening; onnx-ir refuses it
    path = tmp_path / "bad.onnx"
    onnx.save(model, path)
    monkeypatch.setattr(loading, "PROGRESSIVE_MIN_NODES", 100)
    designer = open_designer(path)
    rec = Recorder(designer.canvas)
    designer.canvas._on_msg(designer.canvas, {"kind": "hello"}, [])
    assert rec.last("snapshot")[0]["loading"] is True  # the outline does not need the element types
    for _ in range(400):
        if any(m["kind"] == "load_failed" for m in rec.sent):
            break
        threading.Event().wait(0.05)
    failed = next(m for m in rec.sent if m["kind"] == "load_failed")
    assert "bad.onnx" in failed["message"]
    assert "could not be loaded" in designer.status.value
    assert any("bad.onnx" in text for text in designer.canvas.js_errors)  # what the Designer prints below


def test_the_document_and_the_canvas_view_of_it_are_built_without_collector_passes(tmp_path: Path) -> None:
    """The collector's passes were half of a 50,000-node build's CPU (gc_pause.py): it is off while the loading thread
    builds the document and the canvas takes it, and back on after; a collector the user had turned off stays off."""
    path = tmp_path / "big.onnx"
    onnx.save(generated_graph(3000), path)
    assert gc.isenabled()
    canvas = GraphCanvas(_load(path))
    seen: list[bool] = []
    canvas.on_document(lambda _doc: seen.append(gc.isenabled()))  # on the loading thread, after the view is taken
    canvas._on_msg(canvas, {"kind": "hello"}, [])
    _wait_loaded(canvas)
    assert canvas._load is not None and canvas._load._thread is not None
    canvas._load._thread.join(10)  # the pause ends with the loading thread
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        load = _load(path)
        load.result(60)
        assert load._thread is not None
        load._thread.join(10)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_pauses_of_two_loads_at_once_end_with_the_last() -> None:
    first, second = gc_paused(), gc_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_what_a_pause_made_is_left_in_the_oldest_generation() -> None:
    """The next young collections do not walk what a build made (550,000 objects for 50,000 nodes: 0.3 s of passes
    right when the kernel sent "edits work"); objects a user froze stay frozen."""
    # The last pause to end moves them: a model an earlier test opened may still be building on its loading thread.
    deadline = time.monotonic() + 60
    while gc_pause._depth and time.monotonic() < deadline:
        time.sleep(0.05)
    with gc_paused():
        made = [[i] for i in range(100_000)]
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(made[0]) in oldest and id(made[-1]) in oldest  # failed before: young (in generation 0, then 1)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    del made
    gc.freeze()  # a user's (a fork server's) frozen objects
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            more = [[i] for i in range(1_000)]
        # theirs stay frozen (some may die meanwhile: a frozen object is still freed by reference counting)
        assert 0 < gc.get_freeze_count() <= frozen and gc.isenabled() and len(more) == 1_000
    finally:
        gc.unfreeze()
