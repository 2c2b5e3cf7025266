"""`designer.layouts`: save, apply and reset named layouts of this designer's panels (seed 000 "save, apply or
reset layouts", issue 41). The layouts are kept in the user's JupyterLab settings (frontdoor/layout_store.py), so a
layout saved here is in JupyterLab's View ▸ DL Designer Layouts ▸ Apply menu, and one saved there applies here.

What is arranged is the dock of widgets/designer/dock.py (side, size, shown) and the editors' tab in front. A
designer still loading its model has no editors yet: the tab is set once they are built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from dld_jupyter.frontdoor.layout_store import (
    DEFAULT,
    LayoutError,
    PanelLayout,
    check_name,
    delete_layout,
    get_layout,
    load_layouts,
    save_layout,
)
from dld_jupyter.widgets.designer.dock import SideDock


class Layouts:
    """The named layouts (in the user's settings), applied to one designer's dock and editors."""

    def __init__(self, dock: SideDock, editors: Callable[[], Any],
                 on_document: Callable[[Callable[[Any], None]], None]) -> None:
        self._dock = dock
        self._editors = editors  # the EditorPanels, None while the model loads
        self._on_document = on_document  # the canvas's: calls back once the model is there (and the editors built)

    def current(self) -> PanelLayout:
        """The arrangement shown now (no JupyterLab part: Python does not see the shell)."""
        editors = self._editors()
        tab = str(editors.tab) if editors is not None else "parameters"
        return PanelLayout(side=self._dock.side, size=self._dock.size, shown=self._dock.shown, tab=tab)

    def names(self) -> list[str]:
        """The saved layouts' names, in the order they were first saved."""
        return list(load_layouts())

    def save(self, name: str, shell: Mapping[str, Mapping[str, Any]] | None = None) -> PanelLayout:
        """Keep the current arrangement as `name` (replacing a layout of that name); `shell`: JupyterLab's side
        bars, as the Lab's Save Layout… sends them."""
        layout = dataclasses.replace(self.current(), shell=dict(shell or {}))
        save_layout(check_name(name), layout)
        return layout

    def apply(self, name: str | PanelLayout) -> PanelLayout:
        """Arrange the panels as the layout `name` (or a PanelLayout) says; returns it."""
        layout = name if isinstance(name, PanelLayout) else get_layout(name)
        self._dock.move(layout.side, layout.size)
        self._dock.show(layout.shown)
        self._on_document(lambda _document: self._set_tab(layout.tab))
        return layout

    def reset(self) -> PanelLayout:
        """The default arrangement: panels beside the canvas at the width a designer first opens with, shown,
        the Parameters tab in front."""
        return self.apply(DEFAULT)

    def delete(self, name: str) -> None:
        delete_layout(name)

    def _set_tab(self, tab: str) -> None:
        editors = self._editors()
        if editors is not None and tab not in editors.disabled_tabs:  # a subgraph has no Initializers tab
            editors.tab = tab

    def __repr__(self) -> str:
        try:
            saved = repr(self.names())
        except LayoutError as error:  # a broken settings file: said, never raised from a repr
            saved = f"unreadable ({error.why})"
        return f"Layouts(saved={saved}, current={self.current()!r})"


