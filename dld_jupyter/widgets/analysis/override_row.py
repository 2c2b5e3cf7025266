"""The Analysis panel's runtime options row (seed 001 §4.3): an attribute or initializer name and a value typed for
the selected node, Override (for this analysis only, never the document, never saved) and Revert all. A part the
panel owns, with a typed handle on what it uses of the panel (``OverrideHost``)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, Protocol

import ipywidgets as w
import numpy as np

from dld_jupyter.formats.html_text import small
from dld_jupyter.widgets.widget_base import action_button


def parse_value(text: str) -> Any:
    """An override typed in the panel: a Python literal (2.0, [1, 2], "same"), else the text itself."""
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        return text.strip()


class OverrideHost(Protocol):
    """What the row uses of the Analysis panel."""

    designer: Any
    analysis: Any
    error: w.HTML

    def launch(self) -> Any: ...

    def refresh(self) -> None: ...

    def _quiet(self, action: Callable[[], object]) -> Any: ...

    def _selected_node(self) -> str | None: ...


class OverrideRow:
    """``panel.overrides``: `member` and `value` (the fields), `apply()`, `revert_all()`, and `box` (the row)."""

    def __init__(self, panel: OverrideHost) -> None:
        self._panel = panel
        self.member = w.Text(placeholder="attribute or initializer", layout=w.Layout(width="150px"))
        self.value = w.Text(placeholder="value (2.0, [1, 2])", layout=w.Layout(width="120px"))
        self.member.add_class("dld-an-member")
        self.value.add_class("dld-an-value")
        tip = "Set it on the selected node for this analysis only (never saved)"
        override = action_button("Override", "pencil", tip, self.apply, "dld-an-override")
        revert = action_button("Revert all", "undo", "Drop every analysis override", self.revert_all, "dld-an-revert")
        self.box = w.HBox([self.member, self.value, override, revert], layout=w.Layout(flex_flow="row wrap"))

    def apply(self) -> None:
        """Override the typed attribute or initializer of the selected node for this analysis only."""
        panel = self._panel
        node = panel._selected_node()
        name, text = self.member.value.strip(), self.value.value
        if node is None or not name:
            panel.error.value = small("Override: select a node and type an attribute or initializer name.")
            return
        analysis = panel.launch()
        if analysis is not None:
            panel._quiet(lambda: analysis.override(node, name, self._typed(name, text)))
            panel.refresh()

    def _typed(self, name: str, text: str) -> Any:
        """The typed value; for an initializer, broadcast to its shape in its dtype."""
        value = parse_value(text)
        weight = self._panel.designer.document.model.graph.initializers.get(name)
        if weight is None or weight.const_value is None:
            return value
        original = weight.const_value.numpy()
        return np.broadcast_to(np.asarray(value, dtype=original.dtype), original.shape).copy()

    def revert_all(self) -> None:
        panel = self._panel
        if panel.analysis is not None:
            panel._quiet(panel.analysis.revert_all)
            panel.refresh()
