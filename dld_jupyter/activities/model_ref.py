"""What a run is asked to run on, said once: `ModelRef.of(path | Document | designer)`.

Every front door (dld.profile, dld.export_engine, the Profile and Export panels, an analysis, a sweep, a user tool) is
handed a model path, a Document or a live designer, and each used to work out on its own which file the run reads, where
the report goes, whether unsaved edits need a copy and who removes it (`getattr(x, "document")` in fifteen places).
A ModelRef answers all of it:

- `path`: the file the run reads: the path given, the document's own file when it is saved and clean, else a copy of
  its unsaved edits, written on first ask to a private temporary folder that `release()` removes (the run's end, a
  `with` block's end, at the latest the process exit; a full copy beside every report was never removed: 46 MB for
  ResNet-18, 435 MB for BERT-base). With `keep=True` the copy goes beside the run's report instead
  (`<report stem>.profiled.onnx`: `model-2.dld-report.json` keeps `model-2.profiled.onnx`, so a later kept run
  never replaces the copy an earlier report names) and stays.
- `home`: the user's own file (a new model: `<name>.onnx` in the working folder; a subgraph or function document:
  beside its root model's file), where default outputs go; `copy_of`: that file when `path` is a copy of it, which a
  report records (`source_document`) so its links find the live designer, then the file.
- `document` and `origin`: the document, and the live designer the run came from (front doors hand it to the artifact
  policy for heat and links).

This is the only module that reaches for a designer's `.document` (tests/core/test_run_inputs.py holds it to that).
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, TypeVar, Union, overload, runtime_checkable

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.spec import REPORT_SUFFIX, default_report_path

if TYPE_CHECKING:
    from dld_jupyter.document import Document

PROFILED_COPY_SUFFIX = ".profiled.onnx"
_temporary: set[str] = set()  # private folders holding copies of unsaved edits that a run still needs
_temporary_lock = threading.Lock()


@runtime_checkable
class ShowsDocument(Protocol):
    """A live designer as this layer sees it: something showing a document (front doors' `RunSource` is one)."""

    @property
    def document(self) -> Document: ...


ModelLike = Union[str, "os.PathLike[str]", "Document", ShowsDocument]
M = TypeVar("M")


class ModelRef:
    """See the module docstring; build one with `ModelRef.of`."""

    def __init__(self, home: str, *, file: str | None = None, document: Document | None = None,
                 origin: ShowsDocument | None = None, keep: bool = False, new: bool = False,
                 prefix: str = "dld-profiled-") -> None:
        self.home = home
        self.prefix = prefix  # of the temporary folder a copy goes to (a user tool's: "dld_tool_model_")
        self.new = new  # a document never saved: `home` is only where it would live
        self.document = document
        self.origin = origin
        self.keep = keep
        self.report: str | None = None  # the run's report, set by the spec builder: a kept copy goes beside it
        self._file = file  # the file to run when no copy is needed
        self._copy: str | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, model: ModelLike, *, keep: bool = False, prefix: str = "dld-profiled-") -> ModelRef:
        """The reference of a model path, a Document or a live designer (its document); no file is written yet.
        `keep`: a copy of unsaved edits is kept beside the default report rather than in a temporary folder (named
        `prefix…`)."""
        if isinstance(model, (str, os.PathLike)):
            path = os.fspath(model)
            return cls(path, file=path, keep=keep, prefix=prefix)
        from dld_jupyter.document import Document  # not for a path: dld-prof and the CLI need no document layer

        origin: ShowsDocument | None = None
        if isinstance(model, Document):
            document = model
        else:
            shown = getattr(model, "document", None)  # a designer: the one place that asks for its document
            if not isinstance(shown, Document):
                raise SpecError(f"expected a model path, a Document or a designer, got {type(model).__name__}")
            document, origin = shown, model
        own = os.fspath(document.path) if document.path is not None else None
        saved = own is not None and not document.dirty and os.path.isfile(own)
        return cls(own or _new_home(document), file=own if saved else None, document=document, origin=origin,
                   keep=keep, new=own is None, prefix=prefix)

    # -- what a run reads ------------------------------------------------------------------------------------------
    @property
    def saved(self) -> bool:
        """Whether the run reads the user's own file (a path, or a clean document whose file exists)."""
        return self._file is not None

    @property
    def path(self) -> str:
        """The file the run reads; a copy of unsaved edits is written on the first ask."""
        if self._file is not None:
            return self._file
        with self._lock:
            if self._copy is None:
                self._copy = self._write_copy()
            return self._copy

    @property
    def user_file(self) -> str | None:
        """The user's own file: the path given, or the document's file; None for a document never saved."""
        return None if self.new else self.home

    @property
    def copy_of(self) -> str | None:
        """The document's own file when the run reads a copy of its unsaved edits, else None."""
        return None if self._file is not None else self.home

    @property
    def temporary(self) -> str | None:
        """The temporary copy written so far (removed by `release`), or None."""
        return None if self.keep else self._copy

    @property
    def default_report(self) -> str:
        """`<home stem>.dld-report.json` beside the user's own file (never beside a temporary copy)."""
        return default_report_path(self.home)

    def release(self) -> None:
        """Remove the temporary copy of unsaved edits (a kept copy and the user's file stay); again: nothing."""
        with self._lock:
            copy, self._copy = self._copy, None
        if copy is not None and not self.keep:
            release_copy(copy)

    def __enter__(self) -> ModelRef:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"ModelRef({self.home!r}, saved={self.saved}, keep={self.keep})"

    def _write_copy(self) -> str:
        assert self.document is not None
        if self.keep:
            copy = kept_copy_path(self.report or self.default_report)
            self.document.save_copy(copy)
            return copy
        copy = os.path.join(temporary_folder(self.prefix), os.path.basename(self.home))
        try:
            self.document.save_copy(copy)
        except BaseException:
            release_copy(copy)
            raise
        return copy


@overload
def document_of(model: ShowsDocument) -> Document: ...


@overload
def document_of(model: M) -> M: ...


def document_of(model: object) -> object:
    """A designer's document; anything else as it is (a path, a Document, a ModelProto): for the functions that take
    several kinds of model and read, not run, it (`dld.diff`, `dld.diverge`, Compare with…)."""
    if isinstance(model, ShowsDocument):
        return model.document
    return model


def _new_home(document: Document) -> str:
    """Where a document without a file of its own would live: beside its root model's file (a subgraph or function
    document), else in the working folder; named after the document, made fit for a file name (`../x` stays in)."""
    from dld_jupyter.document.subgraphs.child_document import ChildDocument

    root: Document = document
    while isinstance(root, ChildDocument):
        root = root.parent
    folder = os.path.dirname(os.fspath(root.path)) if root is not document and root.path else os.getcwd()
    name = re.sub(r"[^\w.-]+", "_", document.name).strip("_.") or "model"
    return os.path.join(folder, f"{name}.onnx")


def kept_copy_path(report_path: str) -> str:
    """`model.dld-report.json` -> `model.profiled.onnx` beside it."""
    report = Path(report_path)
    stem = report.name[: -len(REPORT_SUFFIX)] if report.name.endswith(REPORT_SUFFIX) else report.stem
    return str(report.with_name(stem + PROFILED_COPY_SUFFIX))


def temporary_folder(prefix: str) -> str:
    """A new private folder for a copy that a run reads (profiles, user tools), removed by `release_copy` of a file
    in it or, at the latest, when the process exits."""
    folder = tempfile.mkdtemp(prefix=prefix)
    with _temporary_lock:
        _temporary.add(folder)
    return folder


def release_copy(path: str | os.PathLike[str]) -> None:
    """Remove the temporary copy `path` (its private folder from `temporary_folder`); anything else is left."""
    folder = os.path.dirname(os.path.abspath(path))
    with _temporary_lock:
        if folder not in _temporary:
            return
        _temporary.discard(folder)
    shutil.rmtree(folder, ignore_errors=True)


@atexit.register
def _release_all() -> None:
    """A kernel or script that exits while a run still held a copy leaves nothing behind either."""
    with _temporary_lock:
        folders = list(_temporary)
        _temporary.clear()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
