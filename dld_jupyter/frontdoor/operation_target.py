"""What a user operation acts on, as a protocol: a live designer's document and canvas. The notebook Designer is
one; a canvas standing alone is another (widgets/canvas/intents.py). Front doors hand a target to the operation
registry, which therefore needs no widget import. It is an ``OperationTarget``: a plain ``Target`` is where a run
happens (activities/targets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from dld_jupyter.document import Document


class PendingLoad(Protocol):
    """A big model still loading (document/files/loading.py): where it comes from and whether it failed."""

    @property
    def path(self) -> Path: ...

    @property
    def failed(self) -> bool: ...


class LiveCanvas(Protocol):
    """What front doors use of a canvas: its synced view settings, its selection, its load, save and arrange."""

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


class OperationTarget(Protocol):
    """The thing an operation acts on."""

    @property
    def canvas(self) -> LiveCanvas: ...

    @property
    def document(self) -> Document:
        """The document; while a big model loads, asking for it waits (check `canvas.pending_load` first)."""
        ...

    def save(self, path: str | Path | None = None) -> None: ...

    def check(self) -> Sequence[Any]:
        """Check the model; returns its Diagnostics (a designer also lists them in its output)."""
        ...


@runtime_checkable
class Profiles(Protocol):
    """A target that can show the profiling panel (the notebook Designer)."""

    def profile_panel(self, run: bool = False, **settings: Any) -> object: ...


@runtime_checkable
class ShowsTools(Protocol):
    """A target with a dock for the Tools dialogs, Remote Connections and the Sweep form (the notebook Designer)."""

    def tools_panel(self, kind: str, **settings: Any) -> object: ...


@runtime_checkable
class ExportsImages(Protocol):
    """A target that can export its canvas as an image (the notebook Designer)."""

    def export(self, path: str | Path, background: str = ..., grid: bool = ...) -> Path: ...


@runtime_checkable
class EditsTensorRT(Protocol):
    """A target whose canvas shows the TensorRT dialogs and that has the engine export panel (the Designer)."""

    def open_trt_dialog(self, dialog: str, nodes: Sequence[str] = ()) -> None: ...

    def export_engine_panel(self, **settings: Any) -> object: ...


class PanelLayouts(Protocol):
    """A designer's named layouts (widgets/designer/layouts.py)."""

    def save(self, name: str, shell: Any = None) -> object: ...

    def apply(self, name: str) -> object: ...

    def reset(self) -> object: ...

    def delete(self, name: str) -> None: ...


class Dock(Protocol):
    def move(self, side: str, size: int | None = None) -> None: ...


@runtime_checkable
class ArrangesPanels(Protocol):
    """A target whose panels sit in a dock that named layouts arrange (the Designer)."""

    @property
    def layouts(self) -> PanelLayouts: ...

    @property
    def side_dock(self) -> Dock: ...
