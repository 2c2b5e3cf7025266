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
from typing import Protocol

from dld_jupyter.document import Document
from dld_jupyter.frontdoor.operation_target import OperationTarget, PendingLoad
from dld_jupyter.frontdoor.results_tab import ResultsOpener


class LiveDesigner(OperationTarget, Protocol):
    """A designer open in this kernel, as every front door sees it (the notebook Designer widget is one)."""

    # set by a JupyterLab designer tab: opens a finished profile's report in a tab beside it (lab/document_tabs.py)
    open_report_tab: Callable[[str], bool] | None
    # set by the same link: opens a wide result (a sweep's, a divergence's table) in a tab beside it
    open_results_tab: ResultsOpener | None

    @property
    def model_id(self) -> str: ...

    def select(self, names: Sequence[str] | str, reveal: bool = False) -> list[str]:
        """Select nodes by ONNX name or id; `reveal`: bring the designer into view first (a report's name link)."""
        ...

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
