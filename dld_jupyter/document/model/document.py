"""Document: one ONNX model being edited, with its history, save point, path, read-model and events.

The document is the only writer of its model: every edit below runs as commands inside a transaction, is one undo
step (or part of the caller's ``transaction``), and leaves the model unchanged when refused (DocumentError).
See docs/document-api.md for the contract.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

import onnx_ir as ir

from dld_jupyter.document.edits import graph_io_edits as gio
from dld_jupyter.document.edits import property_edits as v
from dld_jupyter.document.edits import structure_edits as g
from dld_jupyter.document.edits.commands import Command, Context, SetPositions
from dld_jupyter.document.files import io
from dld_jupyter.document.files.versions import empty_model
from dld_jupyter.document.functions.local_functions import LocalFunctions
from dld_jupyter.document.layout.metadata import POSITIONS_KEY, decode_positions, encode_positions
from dld_jupyter.document.model import inferred_types
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.events import (
    DiagnosticsChanged,
    DirtyChanged,
    Event,
    ReadOnlyChanged,
    Subscriber,
    Subscribers,
)
from dld_jupyter.document.model.history import History
from dld_jupyter.document.model.ids import IdMap
from dld_jupyter.document.model.names import NameIndex
from dld_jupyter.document.model.steps import Steps
from dld_jupyter.document.model.view_cache import ViewCache
from dld_jupyter.document.model.views import EdgeView, NodeView, ReadModel
from dld_jupyter.document.subgraphs.child_lock import ChildLock
from dld_jupyter.document.subgraphs.node_subgraphs import Subgraphs
from dld_jupyter.document.tensorrt.trt_attributes import TensorRtAttributes

T = TypeVar("T")


def _numbered(graph: ir.Graph) -> IdMap:
    """Ids in file order: nodes n0, n1…, then the values of the graph inputs and outputs v0, v1… (an outline read
    from the protobuf, outline.py, hands out the same ids before the ir model exists)."""
    ids = IdMap()
    for node in graph:
        ids.node_id(node)
    for value in (*graph.inputs, *graph.outputs):
        ids.value_id(value)
    return ids


class Document:
    """An editable ONNX model. Create with ``Document.open(path)`` or ``Document.new(opset=...)``.

    Its local functions, the subgraphs of its nodes and its TensorRT attributes are collaborators it owns:
    ``doc.functions``, ``doc.subgraphs``, ``doc.trt``."""

    kind: ClassVar[str] = ""  # a child document's kind ("subgraph" | "function"); "" for a main model

    def __init__(self, model: ir.Model, path: pathlib.Path | None = None) -> None:
        self._ctx = Context(model, _numbered(model.graph), NameIndex(model.graph))
        self._ctx.positions.update(decode_positions(model, self._ctx.ids))
        self._history = History()
        self._subscribers = Subscribers()
        self.path: pathlib.Path | None = path
        self.inferred: dict[str, tuple[str | None, list[int | str] | None]] = {}
        self.diagnostics: list[Any] = []
        self._views = ViewCache()
        self._lock = ChildLock()
        self._steps = Steps(  # read_only through the document: a child document answers it its own way
            self._ctx, self._history, self._lock, self._views, self._subscribers, lambda: self.read_only
        )
        self.parent: Document | None = None  # the document a child document edits a part of (child_document.py)
        self.functions = LocalFunctions(self)
        self.subgraphs = Subgraphs(self)
        self.trt = TensorRtAttributes(self)

    # ------------------------------------------------------------ files
    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Document:
        """Open an .onnx file (structure only: external tensors stay on disk until used)."""
        file = pathlib.Path(path)
        return cls(io.load(file), file)

    @classmethod
    def new(cls, opset: int = 21, contrib: bool = False, name: str = "model") -> Document:
        """An empty model importing ai.onnx ``opset`` (and com.microsoft 1 with ``contrib``)."""
        return cls(empty_model(opset, contrib, name))

    def save(self, path: str | os.PathLike[str] | None = None) -> None:
        """Save atomically to ``path`` (save as) or to the document's path."""
        target = pathlib.Path(path) if path is not None else self.path
        if target is None:
            raise DocumentError("Save", "the document has no file yet.", "Pass a path: doc.save('model.onnx').")
        self.save_copy(target)
        io.names_written(self.model)  # the names opening gave are the file's own now
        self.path = target
        was_dirty = self.dirty
        self._history.mark_saved()
        if was_dirty:
            self._emit([DirtyChanged(False)])

    def save_copy(self, path: str | os.PathLike[str]) -> None:
        """Write the model to ``path`` atomically without making it the document's file (path and dirty state
        stay): what profiling an unsaved edit or exporting a copy needs."""
        positions = encode_positions(self.model.graph, self._ctx.ids, self._ctx.positions)
        io.save(self.model, pathlib.Path(path), {POSITIONS_KEY: positions})

    @property
    def name(self) -> str:
        if self.path is not None:
            return self.path.stem
        return self.model.graph.name or "untitled"

    @property
    def model(self) -> ir.Model:
        """The onnx-ir model. Read it; never mutate it outside the document's edits."""
        return self._ctx.model

    # ------------------------------------------------------------ read-model
    def _read(self) -> ReadModel:
        return ReadModel(self.model, self._ctx.ids, self._ctx.positions, self.inferred)

    def nodes(self) -> list[NodeView]:
        """Op and I/O nodes in graph order (cached between edits: do not mutate the views)."""
        return self._views.nodes(self._read(), cached=not self._history.in_transaction)

    def node(self, node_id: str) -> NodeView:
        return self._read().node(node_id)

    def edges(self) -> list[EdgeView]:
        return self._views.edges(self._read(), cached=not self._history.in_transaction)

    def node_id(self, node: ir.Node) -> str:
        """The UI id of an ir node of the graph (for transforms that walk ``doc.model``)."""
        return self._ctx.ids.node_id(node)

    def ir_node(self, node_id: str) -> ir.Node | None:
        """The ir node of the main graph with this id; None when it is not in the graph now (removed, undone)."""
        try:
            node = self._ctx.ids.node(node_id)
        except DocumentError:
            return None
        return node if node.graph is self.model.graph else None

    def value_id(self, value: ir.Value) -> str:
        return self._ctx.ids.value_id(value)

    # ------------------------------------------------------------ history
    @property
    def dirty(self) -> bool:
        return self._history.dirty

    @property
    def can_undo(self) -> bool:
        return self._history.can_undo

    @property
    def can_redo(self) -> bool:
        return self._history.can_redo

    @property
    def history(self) -> list[str]:
        return self._history.labels

    @property
    def history_index(self) -> int:
        return self._history.index

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(events)`` after every committed step, undo and redo; returns the unsubscriber."""
        return self._subscribers.add(callback)

    def _emit(self, events: list[Event]) -> None:
        self._subscribers.emit(events)

    # ------------------------------------------------------------ child documents (child_lock.py)
    @property
    def read_only(self) -> str | None:
        """None, or why every edit, undo and redo is refused now (a child document is open for editing)."""
        return self._lock.reason

    def hold(self, holder: Any, release: bool = False) -> None:
        """Make this document and its children read-only while ``holder`` (a live analysis; its ``lock_reason`` and
        ``lock_fix`` are the refusal's text) holds it, or no longer (``release``)."""
        was = self.read_only
        self._lock.hold(holder, release)
        if self.read_only != was:
            self._emit([ReadOnlyChanged(self.read_only)])

    @property
    def open_children(self) -> list[Any]:
        """The child documents (ChildDocument) open for editing on this one, in opening order."""
        return list(self._lock.children)

    def _write_back(self, label: str, command: Command) -> None:
        """Apply a child's write-back ``command`` as one undo step, past the lock its child holds."""
        with self._lock.bypassed(), self.transaction(label):
            self._do(command)

    def transaction(self, label: str) -> contextlib.AbstractContextManager[None]:
        """Group the edits made inside into one undo step; on an exception every one of them is undone."""
        return self._steps.transaction(label)

    def _do(self, command: Command) -> None:
        self._history.do(self._ctx, command)

    def undo(self) -> str:
        """Undo the last step; returns its label."""
        return self._steps.travel(self._history.can_undo, self._history.undo, "Undo")

    def redo(self) -> str:
        """Redo the last undone step; returns its label."""
        return self._steps.travel(self._history.can_redo, self._history.redo, "Redo")

    # ------------------------------------------------------------ edits
    def add_node(
        self, op_type: str, domain: str = "", name: str | None = None, position: tuple[float, float] | None = None
    ) -> str:
        with self.transaction(f"Add {op_type}"):
            return g.add_node(self._ctx, self._do, op_type, domain, name, position)

    def remove_nodes(self, node_ids: Iterable[str]) -> None:
        ids = list(node_ids)
        with self.transaction(f"Remove {len(ids)} node{'s' if len(ids) != 1 else ''}"):
            g.remove_nodes(self._ctx, self._do, ids)

    def connect(self, src_id: str, src_index: int, dst_id: str, dst_index: int) -> None:
        with self.transaction("Connect"):
            g.connect(self._ctx, self._do, src_id, src_index, dst_id, dst_index)

    def disconnect(self, dst_id: str, dst_index: int) -> None:
        with self.transaction("Disconnect"):
            g.disconnect(self._ctx, self._do, dst_id, dst_index)

    def add_graph_input(
        self, node_id: str, input_index: int, name: str | None = None, dtype: Any = None, shape: Any = None
    ) -> str:
        with self.transaction("Add graph input"):
            return gio.add_graph_input(self._ctx, self._do, node_id, input_index, name, dtype, shape)

    def add_graph_output(self, node_id: str, output_index: int, name: str | None = None) -> str:
        with self.transaction("Add graph output"):
            return gio.add_graph_output(self._ctx, self._do, node_id, output_index, name)

    def rename_node(self, node_id: str, new_name: str) -> None:
        with self.transaction(f"Rename to {new_name}"):
            v.rename_node(self._ctx, self._do, node_id, new_name)

    def rename_value(self, value_id: str, new_name: str) -> None:
        with self.transaction(f"Rename tensor to {new_name}"):
            value = v.graph_value(self._ctx, value_id, f"Rename {value_id}")
            v.rename_value(self._ctx, self._do, value, new_name)

    def set_io_type(self, node_id: str, dtype: Any, shape: list[int | str | None] | None) -> None:
        with self.transaction("Set input/output type"):
            v.set_io_type(self._ctx, self._do, node_id, dtype, shape)

    def set_attribute(self, node_id: str, attr_name: str, value: Any) -> None:
        with self.transaction(f"Set {attr_name}"):
            v.set_attribute(self._ctx, self._do, node_id, attr_name, value)

    def reset_attribute(self, node_id: str, attr_name: str) -> None:
        with self.transaction(f"Reset {attr_name}"):
            v.reset_attribute(self._ctx, self._do, node_id, attr_name)

    def move_nodes(self, positions: Mapping[str, tuple[float, float]]) -> None:
        with self.transaction(f"Move {len(positions)} node{'s' if len(positions) != 1 else ''}"):
            v.move_nodes(self._ctx, self._do, positions)

    def create_initializer(self, name: str, array: Any) -> str:
        with self.transaction(f"Create initializer {name}"):
            return v.create_initializer(self._ctx, self._do, name, array)

    def delete_initializer(self, value_id: str) -> None:
        with self.transaction("Delete initializer"):
            v.delete_initializer(self._ctx, self._do, value_id)

    def set_initializer_value(self, value_id: str, array: Any) -> None:
        with self.transaction("Edit initializer"):
            v.set_initializer_value(self._ctx, self._do, value_id, array)

    def connect_initializer(self, value_id: str, node_id: str, input_index: int) -> None:
        with self.transaction("Connect initializer"):
            v.connect_initializer(self._ctx, self._do, value_id, node_id, input_index)

    def set_metadata(self, key: str, value: str | None) -> None:
        with self.transaction(f"Set metadata {key}"):
            v.set_metadata(self._ctx, self._do, key, value)

    def set_model_info(self, **fields: Any) -> None:
        with self.transaction("Edit model information"):
            v.set_model_info(self._ctx, self._do, fields)

    def edit(self, label: str, function: Callable[[Context, Callable[[Command], None]], T]) -> T:
        """Run ``function(ctx, do)`` from a sibling edit module (initializer_commands) as one undo step."""
        with self.transaction(label):
            return function(self._ctx, self._do)

    def query(self, function: Callable[[Context], T]) -> T:
        """``function(ctx)`` of a sibling module that reads the model through the edit context (trt_edits)."""
        return function(self._ctx)

    # ------------------------------------------------------------ checks and layout
    def check_input(self) -> tuple[ir.Model, Callable[[ir.Node], str | None]]:
        """The model a check runs on and how its nodes map to this document's ids (a subgraph document checks a
        standalone copy whose outer references are graph inputs)."""
        return self.model, self._ctx.ids.node_id

    def check(self) -> list[Any]:
        """Checker + strict shape inference + structural checks; fills ``inferred``; returns Diagnostics."""
        from dld_jupyter.document.checks.checks import check_model

        return self.apply_check(check_model(*self.check_input()))

    def apply_check(self, result: Any) -> list[Any]:
        """Adopt a CheckResult computed off the main thread (editor panels' background checks)."""
        self.diagnostics = list(result.diagnostics)
        self.inferred, stale = inferred_types.adopt(self._ctx, self.inferred, result.inferred)
        self._views.invalidate(stale)
        self._emit([DiagnosticsChanged()])
        return self.diagnostics

    def arrange(self, sizes: Mapping[str, tuple[float, float]] | None = None) -> None:
        """Sugiyama layout of every node (one undo step); ``sizes`` are (width, height) by node id."""
        from dld_jupyter.document.layout.layered_layout import sugiyama_layout

        node_ids = [n.id for n in self.nodes()]
        edges = [(e.src, e.dst) for e in self.edges()]
        positions = sugiyama_layout(node_ids, edges, sizes)
        with self.transaction("Arrange nodes"):
            self._do(SetPositions(tuple((nid, (float(x), float(y))) for nid, (x, y) in positions.items())))
