"""The parent's side of child documents: which children are open (and so lock the parent), and how to open one. A
document held by a `LockHolder` (a live analysis: ``Document.hold``) is read-only with its children, past every
write-back. A document with an open child document (a subgraph or a local function being edited) is read-only: every
edit, undo and redo refuses with the first open child's reason. The child writes back through ``write_back``, the
one way past the lock. Child document classes live in modules that import ``document.py`` (they subclass Document),
so ``document.py`` cannot import them: each registers its opener here (``register_opener``) when the package loads,
and ``doc.subgraphs.open`` / ``doc.functions.open`` look it up by kind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from dld_jupyter.document.model.errors import DocumentError


class LockHolder(Protocol):
    """What holds a document read-only without being a child of it (a live analysis): its reason and the fix."""

    @property
    def lock_reason(self) -> str: ...

    @property
    def lock_fix(self) -> str: ...


class LockingChild(Protocol):
    """What the lock needs of a child document."""

    @property
    def lock_reason(self) -> str: ...


_OPENERS: dict[str, Callable[..., Any]] = {}


def register_opener(kind: str, opener: Callable[..., Any]) -> None:
    """Register how a parent opens a child of ``kind`` ("subgraph", "function"): ``opener(parent, *args)``."""
    _OPENERS[kind] = opener


def opener(kind: str) -> Callable[..., Any]:
    found = _OPENERS.get(kind)
    if found is None:
        raise DocumentError(
            f"Open a {kind} document", f"no {kind} documents are available.", "Import dld_jupyter.document first."
        )
    return found


class ChildLock:
    """The open children of one document, in opening order, and the write-back pass."""

    def __init__(self) -> None:
        self.children: list[Any] = []
        self.holders: list[Any] = []  # what holds the document read-only besides children (a live analysis)
        self.bypass = False

    @property
    def reason(self) -> str | None:
        """Why the document is read-only (a holder's reason, else the first open child's), or None."""
        if self.holders:
            return str(self.holders[0].lock_reason)
        if self.bypass or not self.children:
            return None
        return str(self.children[0].lock_reason)

    def refuse(self, what: str, reason: str | None) -> None:
        """Raise the refusal of ``what`` when ``reason`` says the document is read-only."""
        if reason is not None:
            fix = self.holders[0].lock_fix if self.holders else "Confirm or close the open child document first."
            raise DocumentError(what, reason, str(fix))

    def hold(self, holder: Any, release: bool) -> None:
        """Add ``holder`` to what holds the document read-only, or remove it (``release``)."""
        if not release:
            self.holders.append(holder)
        elif holder in self.holders:
            self.holders.remove(holder)

    @contextlib.contextmanager
    def bypassed(self) -> Iterator[None]:
        """Let a child's write-back past the lock its child holds (no holder's lock is bypassed)."""
        self.bypass = True
        try:
            yield
        finally:
            self.bypass = False

    def attach(self, child: Any) -> None:
        self.children.append(child)

    def detach(self, child: Any) -> None:
        self.children = [c for c in self.children if c is not child]
