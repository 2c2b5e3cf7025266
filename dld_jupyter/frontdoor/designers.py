"""The kernel's registry of open designers: every front door finds a live designer here, by the widget model id the
browser names, by the file it shows, or by its document.

Before it, the JupyterLab sidebar and the report viewer's layer links each walked ipywidgets' private `_instances`
and guessed which widgets were designers by their attributes; the report links also imported the designer module,
closing an import circle (designer → profile panel → report viewer → links → designer). A designer registers
itself when it is built and leaves when it is closed; the widgets package installs the opener that builds one for
a path, so a report viewer can open a model without importing the designer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from dld_jupyter.document import Document


class PendingLoad(Protocol):
    """A big model still loading (document/loading.py): where it comes from and whether it failed."""

    @property
    def path(self) -> Path: ...

    @property
    def failed(self) -> bool: ...


class LiveCanvas(Protocol):
    """What front doors use of a designer's canvas: its synced view settings, its selection and its load."""

    title: str
    selection: list[str]
    color_scheme: str
    show_grid: bool
    show_constants: bool

    @property
    def pending_load(self) -> PendingLoad | None: ...

    def on_document(self, callback: Callable[[Document], None]) -> None: ...

    def observe(self, handler: Callable[[dict[str, Any]], None], names: Any = ...) -> None: ...

    def unobserve(self, handler: Callable[[dict[str, Any]], None], names: Any = ...) -> None: ...

    def save(self, path: str | Path | None = None) -> None: ...

    def arrange(self) -> None: ...


class LiveDesigner(Protocol):
    """A designer open in this kernel, as every front door sees it (the notebook Designer widget is one)."""

    @property
    def model_id(self) -> str: ...

    @property
    def canvas(self) -> LiveCanvas: ...

    @property
    def document(self) -> Document:
        """The designer's document; while a big model loads, asking for it waits (see `loading`)."""
        ...

    def select(self, names: Sequence[str] | str) -> list[str]: ...

    def focus(self, name: str) -> str: ...


Opener = Callable[[str], LiveDesigner]


def loading(designer: LiveDesigner) -> PendingLoad | None:
    """The load under way when the designer's model is still loading (its document would make the caller wait)."""
    return designer.canvas.pending_load


def shown_path(designer: LiveDesigner) -> Path | None:
    """The file a designer shows, without waiting for a loading model; None for an unsaved or failed one."""
    load = loading(designer)
    if load is not None:
        return None if load.failed else load.path
    path = designer.document.path
    return Path(path) if path is not None else None


class DesignerRegistry:
    """Open designers by widget model id, in the order they were opened."""

    def __init__(self) -> None:
        self._open: dict[str, LiveDesigner] = {}
        self._opener: Opener | None = None

    def register(self, designer: LiveDesigner) -> None:
        self._open[designer.model_id] = designer

    def unregister(self, designer: LiveDesigner) -> None:
        for model_id, known in list(self._open.items()):
            if known is designer:
                del self._open[model_id]

    def __iter__(self) -> Iterator[LiveDesigner]:
        return iter(list(self._open.values()))

    def __len__(self) -> int:
        return len(self._open)

    def by_model_id(self, model_id: str) -> LiveDesigner | None:
        return self._open.get(model_id)

    def by_path(self, path: str | Path) -> LiveDesigner | None:
        """The first open designer showing the file at `path` (a loading one included, a failed one not)."""
        target = Path(path).resolve()
        for designer in self:
            own = shown_path(designer)
            if own is not None and own.resolve() == target:
                return designer
        return None

    def by_document(self, document: Document) -> LiveDesigner | None:
        for designer in self:
            if loading(designer) is None and designer.document is document:
                return designer
        return None

    def set_opener(self, opener: Opener) -> None:
        """Install what builds a designer for a path (the widgets package does, when it is imported)."""
        self._opener = opener

    def open(self, path: str) -> LiveDesigner:
        """A new designer on `path`, built by the installed opener."""
        if self._opener is None:
            raise LookupError("no designer can be opened here: the notebook widgets (dld_jupyter.widgets) are not"
                              " loaded in this kernel")
        return self._opener(path)


registry = DesignerRegistry()
"""The kernel's one registry: designers register here, front doors look them up here."""
