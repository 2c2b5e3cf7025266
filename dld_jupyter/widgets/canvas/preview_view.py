"""The first view of a big model whose Document is still loading (document/files/loading.py), drawn from its outline.

`PreviewView` draws what CanvasView would draw of the loaded document, with the same ids and layout, from the
file's outline. Computing it is most of a 50,000-node model's time to its first view, so `overview_in_child`
runs it in a forked child process: the outline's per-node objects never exist in the kernel, and the kernel stays
free to answer the browser meanwhile (a thread would share the interpreter lock with it). The child sends back an
`Overview`, what the canvas sends first, and then, while the kernel builds the document, the structure its view read
(`ViewStructure`: order, scopes, grouping, links). When the document arrives, `Overview.view_of` gives the CanvasView
of the document that adopts that structure (reading it again from 50,000 ir nodes was 0.25 s of the kernel's CPU
before edits worked, issue 42) and knows what was sent; its first resync corrects any difference (usually none).
"""

from __future__ import annotations

import gc
import os
import pickle
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from dld_jupyter.document import Document, NodeView
from dld_jupyter.document.files.loading import DocumentLoad
from dld_jupyter.document.layout.outline import Outline, RawEdge
from dld_jupyter.document.model.ids import kind_of
from dld_jupyter.widgets.canvas.canvas_view import CanvasView, ViewStructure
from dld_jupyter.widgets.canvas.grouping import GroupPath
from dld_jupyter.widgets.canvas.protocol import EdgeData, NodeData
from dld_jupyter.widgets.canvas.scope_paths import ScopePaths
from dld_jupyter.widgets.canvas.view_events import Point
from dld_jupyter.widgets.canvas.view_links import visible_links
from dld_jupyter.widgets.canvas.weight_plumbing import PLUMBING_OPS, NodeRow


class PreviewView(CanvasView):
    def __init__(self, outline: Outline, grouping: str = "auto", show_constants: bool = False) -> None:
        self.outline = outline
        self._init_state(grouping, show_constants)
        self.rebuild()

    def _read_structure(self, paths: dict[str, GroupPath]) -> dict[str, RawEdge]:
        outline = self.outline
        self.order = list(outline.order)
        self.op_type = dict(outline.op_type)
        names, scope_path = outline.names, ScopePaths()
        protos = outline.node_protos
        for node_id in self.order:
            if node_id not in protos:  # an input or output node (the outline holds op nodes' protos)
                paths[node_id] = ()
                continue
            node = protos[node_id]
            self._count_scope(names[node_id])
            paths[node_id] = scope_path(names[node_id], {m.key: m.value for m in node.metadata_props}
                                        if "/" not in names[node_id] and node.metadata_props else None)
        rows: list[NodeRow] = [
            (n, op, protos[n].domain, protos[n].input[:], protos[n].output[:])
            for n, op in outline.op_type.items() if op in PLUMBING_OPS and kind_of(n) == "op"
        ]
        self._plumbing_input = {protos[n].output[0]: protos[n].input[0] for n, *_ in rows  # a plumbing op's first input
                                if protos[n].output and protos[n].input}
        self._find_plumbing(rows, outline.initializers.__contains__, outline.graph_outputs,
                            ((s, d, di) for s, _, d, di, _ in outline.links))
        return {}  # links are read from the outline's tuples in compute(); objects only when constants show

    def find_plumbing(self) -> None:
        """Found with the structure above, from the outline's tuples (there is no document yet)."""

    def _precision(self, node_id: str) -> str | None:
        """No badge in the overview drawn from the outline: the document's view, once loaded, carries them."""
        return None

    def _weight_shape(self, node_id: str, index: int) -> list[int | str] | None:
        """The initializer's dims behind input `index`, through the plumbing that feeds it (as the document's view)."""
        protos, dims = self.outline.node_protos, self.outline.initializer_dims
        inputs = protos[node_id].input
        name = inputs[index] if index < len(inputs) else ""
        for _ in range(8):
            if name in dims:
                return dims[name]
            name = self._plumbing_input.get(name, "")
        return None

    def _views(self, leaves: list[str]) -> dict[str, NodeView]:
        return {n: self.outline.node_view(n) for n in leaves}

    def compute(self) -> tuple[dict[str, NodeData], dict[str, EdgeData]]:
        if self.show_constants or self.shown_constants:
            self.edges = self.outline.edges  # a shown Constant draws its link: node_data looks links up
        return super().compute()

    def _visible_edges(self, rep: dict[str, str | None]) -> dict[str, EdgeData]:
        # From the outline's tuples: no link objects (most links of an overview lie inside a collapsed group).
        return visible_links(((s, si, d, di, v, None) for s, si, d, di, v in self.outline.links), rep)


@dataclass
class Overview:
    """What a PreviewView drew: the first snapshot, and the layout the document's view goes on from."""

    mode: str
    show_constants: bool
    nodes: list[NodeData]
    edges: list[EdgeData]
    points: list[Point]
    layout_pos: dict[str, Point]
    # The structure the overview's view read, sent after it by the child (None: the document's view reads its own).
    rest: _Rest | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, outline: Outline, grouping: str, show_constants: bool) -> Overview:
        return cls.drawn_by(PreviewView(outline, grouping, show_constants))

    @classmethod
    def drawn_by(cls, view: PreviewView) -> Overview:
        nodes, edges, points = view.snapshot()
        return cls(view.mode, view.show_constants, nodes, edges, points, view.layout_pos)

    def snapshot(self) -> tuple[list[NodeData], list[EdgeData], list[Point]]:
        return self.nodes, self.edges, self.points

    def view_of(self, doc: Document) -> CanvasView:
        """A view of the loaded document that knows what was sent (resync it to correct any difference)."""
        structure = self.rest.structure() if self.rest is not None else None  # None: the view reads its own
        view = CanvasView(doc, self.mode, self.show_constants, structure)
        view.take_over(self.nodes, self.edges, self.points, self.layout_pos)
        return view


def structure_of(view: PreviewView) -> ViewStructure:
    """What the overview's view read from the outline (the grouping as drawn: the overview's expansion)."""
    return ViewStructure(view.order, view.op_type, view.scope_size, view.plumbing, view.plumbing_feeds,
                         view.grouping, view.outline.links)


STRUCTURE_WAIT_S = 30.0  # the child sends it ~75 ms after a 50,000-node overview; past this the view reads its own


class _Rest:
    """The rest of the child's pipe, its `ViewStructure`: read on a thread of its own (the child exits once it is
    read, whether or not a document ever takes it), unpickled by the view that adopts it."""

    def __init__(self, pipe: BinaryIO, pid: int) -> None:
        self._data = b""
        self._read = threading.Event()
        threading.Thread(target=self._drain, args=(pipe, pid), daemon=True, name="dld-overview-rest").start()

    def _drain(self, pipe: BinaryIO, pid: int) -> None:
        try:
            with pipe:
                self._data = pipe.read()
            os.waitpid(pid, 0)
        except OSError:  # ChildProcessError too: reaped elsewhere (SIGCHLD ignored)
            pass
        finally:
            self._read.set()

    def structure(self) -> ViewStructure | None:
        """The structure (once; None when the child could not send it, or not within STRUCTURE_WAIT_S)."""
        if not self._read.wait(STRUCTURE_WAIT_S):
            return None
        data, self._data = self._data, b""
        try:
            found = pickle.loads(data) if data else None
        except Exception:  # a child that died while writing: the document's view reads its own
            found = None
        return found if isinstance(found, ViewStructure) else None


def overview_in_child(load: DocumentLoad, grouping: str, show_constants: bool) -> Callable[[], Overview]:
    """Start drawing the overview of a loading model in a forked child; the returned function waits for it
    (and computes it here when the child failed). Where fork is missing, it is computed on first call."""
    if not hasattr(os, "fork"):
        return lambda: Overview.of(load.outline, grouping, show_constants)
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():  # the child only computes and writes its pipe: no lock of another thread
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            gc.disable()  # it makes the overview and exits: no collector passes (an eighth of its CPU, 0.37 -> 0.32 s)
            os.close(read_end)
            view = PreviewView(load.outline, grouping, show_constants)
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(Overview.drawn_by(view), pipe, pickle.HIGHEST_PROTOCOL)
                pipe.flush()  # the page waits for the overview; the structure follows while the document builds
                pickle.dump(structure_of(view), pipe, pickle.HIGHEST_PROTOCOL)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)

    def wait() -> Overview:
        pipe = os.fdopen(read_end, "rb")
        try:
            found = pickle.load(pipe)  # one pickle: the structure after it is left in the pipe
        except Exception:  # the child died before the overview was written
            found = None
        if isinstance(found, Overview):
            found.rest = _Rest(pipe, pid)
            return found
        with pipe:
            os.waitpid(pid, 0)
        return Overview.of(load.outline, grouping, show_constants)  # the child died: draw it here

    return wait
