"""ChildDocument: a part of a model (a subgraph, a local function) edited as a document of its own.

A child is a Document in every respect (edits, undo, views, checks, layout) over a copy of the part. While it is
open its parent is read-only (``Document.read_only`` says why). ``confirm()`` validates the part against its contract
and writes it back into the parent as ONE undo step of the parent; ``close()`` drops unconfirmed edits and releases
the parent. A child is never saved itself: confirm it and save the parent model (``save_copy`` writes what the
part is on its own, for profiling: a subgraph document writes its body as a standalone model).

A subclass supplies the part's contract and write-back:
- ``kind`` ("subgraph" | "function") and ``confirm_label`` (the parent's undo label);
- ``validate()``: raise DocumentError (what, why, fix) when the part breaks its contract;
- ``write_back_command()``: a Command on the parent's context that puts the edited part in place (its inverse puts
  the old one back, so undoing the parent's step restores the old part).
"""

from __future__ import annotations

import abc
import os
import re
from typing import ClassVar

import onnx_ir as ir

from dld_jupyter.document.edits.commands import Command
from dld_jupyter.document.model.document import Document
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.events import DirtyChanged, ReadOnlyChanged


class ChildDocument(Document, abc.ABC):
    """A document over a part of ``parent``'s model; see the module docstring."""

    kind: ClassVar[str] = ""
    confirm_label: ClassVar[str] = "Confirm Edits"

    def __init__(self, parent: Document, model: ir.Model, title: str) -> None:
        super().__init__(model, None)
        self.parent: Document = parent
        self.title = title
        self._closed = False
        self._lock.holders = parent._lock.holders  # shared: what holds the parent read-only holds its children
        was = parent.read_only
        parent._lock.attach(self)
        if parent.read_only != was:
            parent._emit([ReadOnlyChanged(parent.read_only)])

    # ------------------------------------------------------------ the contract of a subclass
    @property
    @abc.abstractmethod
    def lock_reason(self) -> str:
        """Why the parent is read-only while this child is open (shown to the user)."""

    @abc.abstractmethod
    def validate(self) -> None:
        """Raise DocumentError when the edited part breaks its contract."""

    @abc.abstractmethod
    def write_back_command(self) -> Command:
        """The command that puts the edited part into the parent's model (built fresh on each confirm)."""

    # ------------------------------------------------------------ state
    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def read_only(self) -> str | None:
        if self._closed:
            return f"{self.title} is closed: open it again from its parent document to edit it."
        return super().read_only

    @property
    def name(self) -> str:
        """The title made fit for a file name ("gru / Loop_12 / body" -> "gru_Loop_12_body")."""
        return re.sub(r"[^\w.-]+", "_", self.title).strip("_.") or self.kind or "child"

    def _require_open(self, what: str) -> None:
        if self._closed:
            raise DocumentError(what, f"{self.title} is closed.", "Open it again from its parent document.")

    # ------------------------------------------------------------ confirm, close, save
    def confirm(self) -> None:
        """Write the part back into the parent as one undo step of the parent (label ``confirm_label``); refused
        (parent unchanged) when the part breaks its contract or a child of this one is still open. The child stays
        open and its save point is marked (``dirty`` False)."""
        what = self.confirm_label
        self._require_open(what)
        if self._lock.children:
            raise DocumentError(what, str(self._lock.children[0].lock_reason), "Confirm or close that one first.")
        if self.parent._history.in_transaction:
            raise DocumentError(what, "the parent document is inside a transaction.", "Finish it first.")
        self.validate()
        self.parent._write_back(what, self.write_back_command())
        was_dirty = self.dirty
        self._history.mark_saved()
        if was_dirty:
            self._emit([DirtyChanged(False)])

    def close(self) -> None:
        """Stop editing: unconfirmed edits are dropped, children of this one are closed, the parent is released.
        Closing twice does nothing."""
        if self._closed:
            return
        for child in list(self._lock.children):
            child.close()
        self._closed = True
        was = self.parent.read_only
        self.parent._lock.detach(self)
        if self.parent.read_only != was:
            self.parent._emit([ReadOnlyChanged(self.parent.read_only)])

    def save(self, path: str | os.PathLike[str] | None = None) -> None:
        raise DocumentError(
            "Save",
            f"{self.title} is part of its parent model and is not saved on its own.",
            "Confirm the edits (child.confirm()) and save the parent model.",
        )
