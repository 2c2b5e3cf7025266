"""The Target drop-down of a form that starts work somewhere (targets.py's choices): the run panel's (Profile, Export
TensorRT Engine, Start Activity) and the designer's Analysis panel (issue 37: an analysis on a saved SSH connection).

Why its own piece: both forms list the same targets, open Manage Remote Connections from "+ New connection…" (in the
designer's dock when there is one, else under the chooser) and choose a connection saved there at once; one class
keeps that behaviour the same in each. `slot` is what a form lays out (the drop-down, and the connections panel it
opened when there is no dock); `dropdown.value` is the chosen label; `chosen_target()` builds its Target.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.activities.targets.base import Target
from dld_jupyter.frontdoor.run_source import RunSource
from dld_jupyter.widgets.runs.targets import LOCAL, NEW_CONNECTION, chooser_options, make_target


class TargetChooser:
    """See the module docstring. `origin`: the designer the form belongs to (its dock shows Manage Remote
    Connections), or None."""

    def __init__(self, origin: RunSource | None, tooltip: str = "") -> None:
        self.origin = origin
        self.dropdown = w.Dropdown(options=chooser_options(), value=LOCAL, description="Target", tooltip=tooltip,
                                   layout=w.Layout(width="auto", max_width="300px"))
        self.dropdown.add_class("dld-target-chooser")
        self.dropdown.observe(self._chosen, "value")
        self.slot = w.HBox([self.dropdown])
        self.connections: w.Widget | None = None  # the Remote Connections panel "+ New connection…" opened

    @property
    def label(self) -> str:
        return str(self.dropdown.value)

    def chosen_target(self) -> Target:
        return make_target(self.label)

    def choose(self, label: str) -> bool:
        """Select `label` when it is offered (listing the saved connections again first); False when it is not."""
        self.refresh()
        if label not in self.dropdown.options or label == NEW_CONNECTION:
            return False
        self.dropdown.value = label
        return True

    def _chosen(self, change: dict[str, Any]) -> None:
        if change["new"] == NEW_CONNECTION:
            self.dropdown.value = change["old"] if change["old"] != NEW_CONNECTION else LOCAL
            self.new_connection()

    def new_connection(self) -> w.Widget | None:
        """Open Manage Remote Connections: in the designer's dock when the form came from one, else under the
        chooser; a saved connection is offered (and chosen) here at once."""
        if self.origin is not None:
            shown = self.origin.tools_panel("manage_connections", on_saved=self.refresh)
            self.connections = shown if isinstance(shown, w.Widget) else None
        else:
            from dld_jupyter.widgets.runs.connections import ConnectionsPanel

            self.connections = ConnectionsPanel(on_saved=self.refresh)
            self.slot.children = (self.dropdown, self.connections)
        return self.connections

    def refresh(self, chosen: str = "") -> None:
        """List the targets again (after a save or a removal); `chosen`: select that one."""
        current = self.label
        options = chooser_options()
        self.dropdown.options = options
        self.dropdown.value = chosen if chosen in options else current if current in options else LOCAL
