"""The Designer's overlays: a report's heat on its canvas (`show_heat`, `clear_heat`) and the overlay manager
(`designer.overlays`: which overlays are shown, which one owns the node colours; hide, show, clear them).

A mixin of Designer (designer.py), as compare_actions.py is; the overlays themselves live in the canvas overlays room
(widgets/canvas/overlays/: heat.py, and base.py's Overlays with the strip of strip.py). `clear_overlays` is the
registered operation "Clear Canvas Overlays" (frontdoor/overlay_operations.py: the JupyterLab command).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dld_jupyter.frontdoor.overlay_operations  # noqa: F401  (registers "Clear Canvas Overlays" for the Lab)
from dld_jupyter.widgets.canvas.overlays.base import Overlays

if TYPE_CHECKING:
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas
    from dld_jupyter.widgets.canvas.overlays.heat import HeatOverlay


class OverlayActions:
    """Designer methods for the overlays of its canvas."""

    canvas: GraphCanvas  # what the Designer provides

    @property
    def overlays(self) -> Overlays:
        """The canvas's overlays, as its strip shows them: `.active` (name, label, visible, owns_colour; in the
        order shown), `.owner` (the one whose colours the nodes wear), `.hide(name)`, `.show(name)` (shown again or
        picked: it takes the colours), `.clear(name)` or `.clear()` (all), `.note` (what the last edit cleared)."""
        return self.canvas.overlays

    def clear_overlays(self) -> None:
        """Clear every overlay of the canvas (JupyterLab: View → Clear Canvas Overlays)."""
        self.canvas.overlays.clear()

    @property
    def _heat(self) -> HeatOverlay:
        from dld_jupyter.widgets.canvas.overlays.heat import HeatOverlay  # with its report payload: when first used

        found = self.canvas.overlays.get(HeatOverlay.name)
        return found if isinstance(found, HeatOverlay) else HeatOverlay(self.canvas)

    def show_heat(self, report_or_path: Any, metric: str = "time") -> Any:
        """Colour the canvas by a report's layer times: `metric` "time" (median ms) or "share" (% of the layer
        sum). A node gets the time of its layer(s); a group the sum of its members' distinct layers; a node without
        a layer (removed by the optimizer, or new) stays neutral and says why on hover. Returns the Heat. The heat
        takes the node colours from the overlay shown before (the strip lists both)."""
        return self._heat.show(report_or_path, metric)

    def clear_heat(self) -> None:
        """Back to the category colours (the legend's X does the same)."""
        self._heat.clear()

    @property
    def heat(self) -> Any:
        """The Heat shown on the canvas (reports/heat.py), None when none is."""
        return self._heat.heat

    @property
    def heat_metric(self) -> str:
        return self._heat.metric
