"""Tiny stand-ins for a live designer: the frontdoor registries need nothing more of one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dld_jupyter.document import Document


@dataclass
class FakeLoad:
    path: Path
    failed: bool = False


class FakeCanvas:
    def __init__(self, document: Document | None, load: FakeLoad | None) -> None:
        self.document_if_loaded = document
        self.pending_load = load
        self.title = "fake"
        self.selection: list[str] = []
        self.color_scheme = "default"
        self.show_grid = False
        self.show_constants = False
        self.saved: list[str | Path | None] = []
        self.arranged = 0

    def on_document(self, callback: Callable[[Document], None]) -> None:
        raise AssertionError("not used by these tests")

    def observe(self, handler: Callable[[dict[str, Any]], None], names: Any = None) -> None:
        pass

    def unobserve(self, handler: Callable[[dict[str, Any]], None], names: Any = None) -> None:
        pass

    def save(self, path: str | Path | None = None) -> None:
        self.saved.append(path)

    def arrange(self) -> None:
        self.arranged += 1


class FakeDesigner:
    """A designer on `path` (None: unsaved); with `load`, its model is still loading and has no document yet."""

    def __init__(self, model_id: str, path: Path | None, load: FakeLoad | None = None) -> None:
        self.model_id = model_id
        document = None if load is not None else Document.new()
        if document is not None and path is not None:
            document.path = path
        self.canvas = FakeCanvas(document, load)
        self.checked = 0

    @property
    def document(self) -> Document:
        if self.canvas.document_if_loaded is None:
            raise AssertionError("a loading designer's document was asked for: the caller would wait")
        return self.canvas.document_if_loaded

    def save(self, path: str | Path | None = None) -> None:
        self.canvas.save(path)

    def check(self) -> list[Any]:
        self.checked += 1
        return []

    def select(self, names: Sequence[str] | str, reveal: bool = False) -> list[str]:
        return [names] if isinstance(names, str) else list(names)

    def focus(self, name: str) -> str:
        return name
