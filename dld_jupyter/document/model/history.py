"""Undo/redo history of a document: named steps, nested transactions with rollback, the save point."""

from __future__ import annotations

from dataclasses import dataclass

from dld_jupyter.document.edits.commands import Command, Composite, Context


@dataclass
class Step:
    label: str
    command: Command  # what to apply to move across this step (the inverse while it is done)


class History:
    """Done and undone steps. ``index`` counts done steps; ``dirty`` compares it with the save point."""

    def __init__(self) -> None:
        self._done: list[Step] = []
        self._undone: list[Step] = []
        self._saved: int | None = 0
        self._open: list[Command] = []
        self._marks: list[int] = []
        self._label = ""

    # -- transactions --
    @property
    def in_transaction(self) -> bool:
        return bool(self._marks)

    def begin(self, label: str) -> None:
        if not self._marks:
            self._label = label
            self._open = []
        self._marks.append(len(self._open))

    def do(self, ctx: Context, command: Command) -> None:
        """Apply ``command`` inside the open transaction."""
        assert self._marks, "History.do needs an open transaction"
        self._open.append(command.apply(ctx))

    def end(self, ctx: Context, ok: bool) -> bool:
        """Close the innermost transaction; on failure undo what it did. True when a step was recorded."""
        mark = self._marks.pop()
        if not ok:
            undo = self._open[mark:]
            del self._open[mark:]
            Composite(tuple(reversed(undo))).apply(ctx)
        if self._marks or not self._open:
            return False
        self._done.append(Step(self._label, Composite(tuple(reversed(self._open)))))
        self._open = []
        if self._saved is not None and self._saved > len(self._done) - 1 and self._undone:
            self._saved = None  # the saved state was in the discarded redo branch
        self._undone.clear()
        return True

    # -- undo / redo --
    @property
    def can_undo(self) -> bool:
        return bool(self._done) and not self._marks

    @property
    def can_redo(self) -> bool:
        return bool(self._undone) and not self._marks

    def undo(self, ctx: Context) -> str:
        step = self._done.pop()
        try:
            redo = step.command.apply(ctx)
        except BaseException:
            self._done.append(step)
            raise
        self._undone.append(Step(step.label, redo))
        return step.label

    def redo(self, ctx: Context) -> str:
        step = self._undone.pop()
        try:
            undo = step.command.apply(ctx)
        except BaseException:
            self._undone.append(step)
            raise
        self._done.append(Step(step.label, undo))
        return step.label

    # -- listing and save point --
    @property
    def labels(self) -> list[str]:
        return [s.label for s in self._done] + [s.label for s in reversed(self._undone)]

    @property
    def index(self) -> int:
        return len(self._done)

    @property
    def dirty(self) -> bool:
        return self._saved != len(self._done)

    def mark_saved(self) -> None:
        self._saved = len(self._done)

    def mark_unsaved(self) -> None:
        self._saved = None
