"""How a document's edits become undo steps and events: a transaction opens one step (nested ones join it), the
changes of its commands are collected in the edit context, and when the outer one ends the read-model's cache drops
what changed and the subscribers hear it (DirtyChanged too when the save point was crossed); undo and redo move
across a step the same way. Both are refused, with the reason, while the document is read-only (child_lock.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.events import Changes, DirtyChanged, Subscribers
from dld_jupyter.document.model.history import History
from dld_jupyter.document.model.view_cache import ViewCache
from dld_jupyter.document.subgraphs.child_lock import ChildLock


class Steps:
    """The document's transactions, undo and redo over its history, context, cache and subscribers."""

    def __init__(self, ctx: Context, history: History, lock: ChildLock, views: ViewCache, subscribers: Subscribers,
                 read_only: Callable[[], str | None]) -> None:
        self._ctx, self._history, self._lock = ctx, history, lock
        self._views, self._subscribers, self._read_only = views, subscribers, read_only

    @contextlib.contextmanager
    def transaction(self, label: str) -> Iterator[None]:
        """Group the edits made inside into one undo step; on an exception every one of them is undone."""
        history, ctx = self._history, self._ctx
        outer = not history.in_transaction
        if outer:
            self._lock.refuse(label, self._read_only())
        was_dirty = history.dirty
        if outer:
            ctx.changes = Changes()
        history.begin(label)
        ok = False
        try:
            yield
            ok = True
        finally:
            history.end(ctx, ok)
            if outer:
                changes, ctx.changes = ctx.changes, Changes()
                if ok:
                    self._finish(changes, was_dirty)

    def travel(self, possible: bool, move: Callable[[Context], str], what: str) -> str:
        """Undo or redo (``move``) one step; returns its label."""
        self._lock.refuse(what, self._read_only())
        if not possible:
            raise DocumentError(what, "there is nothing to " + what.lower() + ".", "Check can_undo/can_redo.")
        was_dirty = self._history.dirty
        self._ctx.changes = Changes()
        try:
            label = move(self._ctx)
        except BaseException:
            self._views.clear()
            raise
        finally:
            changes, self._ctx.changes = self._ctx.changes, Changes()
        self._finish(changes, was_dirty)
        return label

    def _finish(self, changes: Changes, was_dirty: bool) -> None:
        self._views.invalidate(changes)
        events = changes.events()
        if self._history.dirty != was_dirty:
            events.append(DirtyChanged(self._history.dirty))
        self._subscribers.emit(events)
