"""The contract of a transform: a model-wide edit that is ONE undo step, or a new file written beside the model.

Extract-subgraph, paste, and next FP16 conversion, sanitize, tensor conversion and create/inline function are
transforms. Each declares its `name` (the id front doors call it by), its `label` (menus, the undo history), what
it `requires` of the document (a selection, the clipboard, a saved file) and whether it `writes_new_file` instead
of editing. `plan(doc, **args)` checks its preconditions and returns a plan without touching anything:
- an `EditPlan`: a function in the document's edit convention, `edit(ctx, do)`, issuing document Commands through
  `do`; `execute` runs it with `Document.edit`, one transaction, so the whole transform is one undo step and a
  refused edit leaves the model as it was;
- a `FilePlan`: writes a new file (through the document layer's atomic save); the document is not changed.
`apply(doc, **args)` is `plan(...).execute(doc)`.

Model-wide transforms pass one post-condition (`postcondition`: full checker and an onnxruntime load) before their
result is a success: a rewritten protobuf (FP16, sanitize) is verified before it is compared, written or swapped in
(`model_swap`); an `EditPlan` given `verified` runs it inside its transaction, so a result that breaks the model
rolls back with nothing recorded (undo-clean), and a problem the model had before is kept in the result's verdict.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits.commands import Command, Context
from dld_jupyter.document.model.ids import kind_of
from dld_jupyter.transforms.clipboard import has_clip
from dld_jupyter.transforms.postcondition import Verdict, judged, verify

T = TypeVar("T")
Do = Callable[[Command], None]


class Requirement(str, enum.Enum):
    """What a transform needs before it can run; front doors disable it until then."""

    SELECTION = "selection"  # at least one operator node selected (`node_ids`)
    CLIPBOARD = "clipboard"  # something copied (`transforms.clipboard`)
    SAVED_PATH = "saved path"  # the document has a file


@dataclass(frozen=True)
class EditPlan(Generic[T]):
    """Commands on the document, as one undo step labelled `label`; with `verified` (a model-wide edit) the result
    passes the post-condition first, and `verified(result, verdict)` returns the result holding its verdict."""

    label: str
    edit: Callable[[Context, Do], T]
    verified: Callable[[T, Verdict], T] | None = None

    def execute(self, doc: Document) -> T:
        if self.verified is None:
            return doc.edit(self.label, self.edit)
        attach = self.verified

        def checked(ctx: Context, do: Do) -> T:
            result = self.edit(ctx, do)
            verdict = verify(doc.check_input()[0])
            if verdict.problems:
                raise _Broken(verdict)  # rolls the transaction back: the model is as it was
            return attach(result, verdict)

        try:
            return doc.edit(self.label, checked)
        except _Broken as broken:
            kept = judged(self.label, broken.verdict, lambda: doc.check_input()[0])
        # The model failed the same checks before: apply it again, the verdict says the problems are not new.
        return attach(doc.edit(self.label, self.edit), kept)


class _Broken(Exception):
    def __init__(self, verdict: Verdict) -> None:
        super().__init__("the edited model fails the post-condition")
        self.verdict = verdict


@dataclass(frozen=True)
class FilePlan(Generic[T]):
    """A new file; the document is left as it is (nothing to undo)."""

    label: str
    write: Callable[[], T]

    def execute(self, doc: Document) -> T:
        return self.write()


Plan = EditPlan[T] | FilePlan[T]


def selected_ops(doc: Document, node_ids: list[str]) -> list[str]:
    """The operator nodes among `node_ids` (graph inputs/outputs, `g:` ids, are not operators)."""
    return [n for n in node_ids if kind_of(n) != "group" and doc.node(n).kind == "op"]


class Transform(abc.ABC):
    """Base of every transform; subclasses set the class attributes and write `plan`."""

    name: ClassVar[str]
    label: ClassVar[str]
    requires: ClassVar[frozenset[Requirement]] = frozenset()
    writes_new_file: ClassVar[bool] = False

    def unmet(self, doc: Document, **args: Any) -> list[Requirement]:
        """The requirements `doc` and `args` do not meet (empty: the transform can run)."""
        met = {
            Requirement.SELECTION: bool(selected_ops(doc, list(args.get("node_ids") or []))),
            Requirement.CLIPBOARD: has_clip(),
            Requirement.SAVED_PATH: doc.path is not None,
        }
        return [r for r in sorted(self.requires, key=lambda r: r.value) if not met[r]]

    def check(self, doc: Document, **args: Any) -> None:
        """Raise DocumentError (what, why, fix) for the first unmet requirement."""
        fixes = {
            Requirement.SELECTION: ("no operator is selected.", "Select the nodes first."),
            Requirement.CLIPBOARD: ("the clipboard is empty.", "Copy or cut nodes first."),
            Requirement.SAVED_PATH: ("the document has no file yet.", "Save it first."),
        }
        for requirement in self.unmet(doc, **args):
            why, fix = fixes[requirement]
            raise DocumentError(self.label, why, fix)

    @abc.abstractmethod
    def plan(self, doc: Document, **args: Any) -> Plan[Any]:
        """Check preconditions and return what to do; must not change `doc`."""

    def apply(self, doc: Document, **args: Any) -> Any:
        """Plan and execute: one undo step for edits, a new file for file-writing transforms."""
        return self.plan(doc, **args).execute(doc)
