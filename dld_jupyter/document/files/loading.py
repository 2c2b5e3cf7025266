"""Opening a big model in two halves, so its first view does not wait for the ir model.

`open_for_view(path)` checks the file (the checks of `Document.open`, so a broken file is refused at once) and, for a
big sorted model, returns a `DocumentLoad`: the file's `Outline` now, its `Document` built on a thread when
`start()` is called. A view draws the outline, starts the load once it has sent it, and waits for `result()` before
anything needs the model. Smaller models are opened whole, as `Document.open` does.
"""

from __future__ import annotations

import os
import pathlib
import threading
import time
from collections.abc import Callable

from dld_jupyter.document.files import io
from dld_jupyter.document.files.gc_pause import gc_paused
from dld_jupyter.document.layout.outline import Outline
from dld_jupyter.document.model.document import Document
from dld_jupyter.document.model.errors import DocumentError

PROGRESSIVE_MIN_NODES = int(os.environ.get("DLD_PROGRESSIVE_MIN_NODES", "10000"))


class DocumentLoad:
    """A Document being built on a thread from a checked file; its outline is there from the start."""

    def __init__(self, checked: io.CheckedProto) -> None:
        self.path = checked.file
        self.name = checked.file.stem
        self._outline: Outline | None = None
        self.node_count = len(checked.proto.graph.node)
        self.opsets = {o.domain: o.version for o in checked.proto.opset_import}
        self._checked: io.CheckedProto | None = checked
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._outline_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._document: Document | None = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[DocumentLoad], None]] = []
        self.started_at: float | None = None
        self.seconds: float | None = None  # how long building the document took

    @property
    def outline(self) -> Outline:
        """The file's outline, read on first use (about 12 µs a node: read it off the thread that answers the
        user, as the canvas does)."""
        with self._outline_lock:
            if self._outline is None:
                checked = self._checked
                if checked is None:
                    raise DocumentError(f"Outline {self.name}", "the model has loaded already.",
                                        "Use the document.")
                self._outline = Outline(checked.proto)
            return self._outline

    def start(self) -> None:
        """Build the document on a thread (once; later calls do nothing)."""
        with self._lock:
            if self._thread is not None:
                return
            self.started_at = time.perf_counter()
            self._thread = threading.Thread(target=self._build, name=f"dld-load-{self.name}", daemon=True)
            self._thread.start()

    def _build(self) -> None:
        """The document, then the callbacks (a canvas builds its view of it), without the garbage collector's
        passes over the objects being made (gc_pause.py)."""
        with gc_paused():
            self._build_document()
            with self._lock:
                callbacks, self._callbacks = self._callbacks, []
            for callback in callbacks:
                callback(self)

    def _build_document(self) -> None:
        checked = self._checked
        assert checked is not None
        try:
            self._document = Document(io.build(checked), checked.file)
        except BaseException as error:  # kept for result(): the thread must not die with it unseen
            self._error = error
        finally:
            self._checked = None  # the protobuf's memory goes with it (the outline keeps what the view needs)
            self.seconds = time.perf_counter() - (self.started_at or 0.0)
            self._done.set()

    def done(self) -> bool:
        return self._done.is_set()

    @property
    def failed(self) -> bool:
        """Building the document ended with an error (result() raises it)."""
        return self._done.is_set() and self._error is not None

    def result(self, timeout: float | None = None) -> Document:
        """The document, once built (starts the build when nobody has yet). Raises what building raised."""
        self.start()
        if not self._done.wait(timeout):
            raise TimeoutError(f"{self.name}: the model is still loading after {timeout} s.")
        if self._error is not None:
            if isinstance(self._error, DocumentError):
                raise self._error
            raise DocumentError(f"Open {self.path.name}", f"loading failed ({self._error}).",
                                "Run onnx.checker on the model to find the cause.") from self._error
        assert self._document is not None
        return self._document

    def on_done(self, callback: Callable[[DocumentLoad], None]) -> None:
        """Call ``callback(load)`` when the build ends, on the loading thread (at once when it has ended)."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)


def open_for_view(path: str | os.PathLike[str], min_nodes: int | None = None) -> Document | DocumentLoad:
    """A Document, or a DocumentLoad for a sorted model of at least ``min_nodes`` nodes (PROGRESSIVE_MIN_NODES)."""
    checked = io.read_checked(pathlib.Path(path))
    limit = PROGRESSIVE_MIN_NODES if min_nodes is None else min_nodes
    if checked.sorted and len(checked.proto.graph.node) >= limit:
        return DocumentLoad(checked)
    return Document(io.build(checked), checked.file)
