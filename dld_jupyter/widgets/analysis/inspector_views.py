"""The Analysis panel's Channel Inspectors: the docked one and its pop-out, always shown the same tensor, and which
tensor that is (the selected node's output or weights, else the stop's output).

Why: the dock is ~330 px wide, so a 64-channel map there is 64 tiles of ~50 px (issue 42). Pop out (the docked
inspector's button, or `d.analysis_mode.pop_out_channels()`) opens a second inspector with large tiles and a histogram
under each (`detail`, channel_histograms.py) where wide results go: a JupyterLab tab beside the designer, through the
same `show_results` seam as the sweep and divergence results (frontdoor/results_tab.py), or below the designer in a
notebook. It follows the debugger as the docked one does: every show and clear reaches both. When its tab closes, the
kernel closes its widget (lab/document_tabs.forget) and it stops being drawn; Pop out again makes a new one, and while
one is open Pop out brings its tab to the front."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dld_jupyter.frontdoor.results_tab import ResultsTab
from dld_jupyter.widgets.analysis.channel_inspector import ChannelInspector

POPPED_HEIGHT = "75vh"  # the tiles' scrolling area in the tab (its toolbar and title above)
NOT_YET = "{name} has not run yet at this stop: Step or Resume past it, or Run to the end (no breakpoint)."


def computed(analysis: Any) -> set[str]:
    """The nodes that have run: none before Run or Step, all once it ran to the end, else up to the stop."""
    order, position = analysis.order_ids, analysis.position_id
    if analysis.state == "finished":
        return set(order)
    return set(order[: order.index(position) + 1]) if position in order else set()


class InspectorViews:
    """`docked`: the dock's inspector; `popped`: the pop-out (None until Pop out; closed once its tab closes).
    `designer`: what the inspectors are of (its document's weights, its `show_results`)."""

    def __init__(self, designer: Any) -> None:
        self._designer = designer
        self.docked = ChannelInspector(height="300px", on_pop_out=self.pop_out)
        self.popped: ChannelInspector | None = None
        self._shown: tuple[Any, str] | None = None  # the values and title shown, else None (a message)
        self._message = self.docked.message

    def _views(self) -> list[ChannelInspector]:
        popped = self.popped
        live = popped is not None and popped.comm is not None
        return [self.docked, popped] if live and popped is not None else [self.docked]

    def show(self, values: Any, title: str) -> None:
        self._shown = (values, title)
        for view in self._views():
            view.show(values, title)

    def clear(self, message: str) -> None:
        self._shown, self._message = None, message
        for view in self._views():
            view.clear(message)

    def inspect(self, analysis: Any, node: str | None, weights: bool, label: Callable[[str], str],
                guard: Callable[[Callable[[], Any]], Any]) -> None:
        """Show `node`'s output (`weights`: its largest initializer) in `analysis`, or say why not; `label` names a
        node, `guard` runs a request to the worker and shows its error."""
        if analysis is None or node is None:
            self.clear("Select a node to inspect its output or its weights.")
        elif weights:
            self._weights(node, label)
        elif node not in computed(analysis):
            self.clear(NOT_YET.format(name=label(node)))
        else:
            tensor = guard(lambda: analysis.tensor(node))
            if tensor is not None:
                self.show(tensor, f"{label(node)} output")

    def _weights(self, node_id: str, label: Callable[[str], str]) -> None:
        node = self._designer.document.ir_node(node_id)
        weights = [v for v in (node.inputs if node is not None else ()) if v is not None and v.const_value is not None]
        if not weights:
            self.clear(f"{label(node_id)} reads no weights (initializers).")
            return
        value = max(weights, key=lambda v: v.const_value.size)  # the kernel of a Conv, the matrix of a Gemm
        self.show(value.const_value.numpy(), f"{label(node_id)} weights {value.name}")

    def pop_out(self) -> ChannelInspector:
        """Open the pop-out (a new one unless one is still open), showing what the dock shows; returns it."""
        popped = self.popped
        if popped is None or popped.comm is None:
            popped = self.popped = ChannelInspector(detail=True, height=POPPED_HEIGHT)
            if self._shown is not None:
                popped.show(*self._shown)
            else:
                popped.clear(self._message)
        self._designer.show_results(ResultsTab("channels", f"Channels: {self._designer.document.name}", "", popped))
        return popped

    def close(self) -> None:
        """The panel closes: the pop-out goes with it (its tab, if any, shows nothing more)."""
        if self.popped is not None:
            self.popped.close()
            self.popped = None
