"""Analysis mode in the Designer (seed 001 §4): Launch/Stop Analysis on its toolbar, the Analysis panel in its dock.

``d.analysis_mode`` is this, a collaborator the Designer owns (it was a mixin reaching its host through six type
ignores): it holds the Analysis panel and the toolbar's button, and a typed handle on what it needs of the designer
(``AnalysisHost``). Why beside `d.analyse(...)` (frontdoor/analysis.py's `analyse`): that one starts an analysis
for a script; this one shows it. `d.launch_analysis(inputs)` opens the panel (widgets/analysis/
analysis_panel.py), sets the Model Inputs and launches, so a cell and the toolbar give the same view; the returned
`Analysis` is the same handle `d.analyse` returns, and `d.analysis` is the live one (None when not analysing).
While it runs the document is read-only and the designer's banner says so (Document.hold → ReadOnlyChanged).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import ipywidgets as w

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.frontdoor.analysis_operations import LAUNCH_ANALYSIS, STOP_ANALYSIS
from dld_jupyter.frontdoor.operation_target import OperationTarget
from dld_jupyter.widgets.canvas.overlays.analysis import AnalysisOverlay
from dld_jupyter.widgets.closing import replace_children

if TYPE_CHECKING:
    from dld_jupyter.frontdoor.analysis import Analysis
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas
    from dld_jupyter.widgets.designer.dock import SideDock


class AnalysisHost(OperationTarget, Protocol):
    """What analysis mode uses of its designer: its canvas, its dock and the slot the panel shows in."""

    @property
    def canvas(self) -> GraphCanvas: ...

    @property
    def profiling(self) -> w.Box: ...

    @property
    def side_dock(self) -> SideDock: ...

    def _guard(self, action: Any) -> None: ...


class AnalysisMode:
    """``d.analysis_mode``: `show_panel()`, `launch()`, `pop_out_channels()`, `stop()`, breakpoints and analysis
    layers, `live` (the Designer answers the same under its documented names: `d.launch_analysis(...)`...)."""

    def __init__(self, host: AnalysisHost) -> None:
        self._host = host
        self.panel: Any = None  # the Analysis panel, once shown (AnalysisPanel)
        self.button: w.Button | None = None  # the toolbar's Launch / Stop Analysis, once made

    def make_button(self) -> w.Button:
        """The toolbar's Launch / Stop Analysis button (its label follows the panel's)."""
        button = w.Button(
            description="Launch Analysis",
            icon="play-circle",
            layout=w.Layout(width="auto"),
            tooltip="Launch Analysis: run the model on real inputs, step through it, inspect its "
            "channels (the model is read-only until Stop Analysis)",
        )
        button.add_class("dld-launch-analysis")
        button.on_click(lambda _b: self._host._guard(self._toggle))
        self.button = button
        return button

    def _toggle(self) -> None:
        """The toolbar button: the registered operation that applies now (frontdoor/analysis_operations.py)."""
        operation = STOP_ANALYSIS if self.live is not None else LAUNCH_ANALYSIS
        operation(self._host)

    def show_panel(self, provider: str = "cpu") -> Any:
        """Show the Analysis panel in the dock (made once per designer) and return it."""
        from dld_jupyter.widgets.analysis.analysis_panel import AnalysisPanel

        panel = self.panel
        if panel is None or panel.comm is None:
            panel = AnalysisPanel(self._host, provider)
            if self.button is not None:
                w.dlink((panel.launch_button, "description"), (self.button, "description"))
                w.dlink((panel.launch_button, "icon"), (self.button, "icon"))
            self.panel = panel
        if panel not in self._host.profiling.children:
            replace_children(self._host.profiling, [panel])
        self._host.side_dock.reveal()
        return panel

    def launch(self, inputs: Mapping[str, Any] | None = None, provider: str = "cpu", target: Any = None
               ) -> Analysis | None:
        """Open the panel, feed `inputs` ({input: "cat.png", "x.npy", an array, "random", "zeros"}) and launch
        (`target`: "local", a saved connection's name (chosen in the panel's Target chooser), ssh://…, or a Target:
        the worker runs there, the panel shows its values as local ones; None: the chooser's choice); returns the
        live Analysis (None when it could not start: the panel says why)."""
        panel = self.show_panel(provider)
        if target is not None:
            panel.target = target
        for name, value in (inputs or {}).items():
            panel.model_inputs.set_source(name, value)
        analysis: Analysis | None = panel.launch()
        return analysis

    def pop_out_channels(self) -> Any:
        """Open the Channel Inspector in a tab beside the designer (JupyterLab; below it in a notebook): large tiles,
        each with its histogram and min/max/mean/std, following the debugger and the selection as the docked one does
        (Pop out in the dock does the same). Returns that ChannelInspector."""
        return self.show_panel().channels.pop_out()

    def stop(self) -> None:
        """Stop Analysis: back to editing."""
        if self.panel is not None:
            self.panel.stop()

    def set_breakpoints(self, nodes: Sequence[str], add: bool = True) -> None:
        """Add (or remove) a breakpoint on each of `nodes` (node ids) as the canvas menu does: adding launches the
        analysis if it is not running and stops at the first breakpoint; the overlay and the panel follow."""
        panel = self.show_panel()
        for node in nodes:
            panel._on_request("add_breakpoint" if add else "remove_breakpoint", node)

    def watch_breakpoints(self, listener: Callable[[list[str]], object]) -> Callable[[], None]:
        """Call `listener(node ids)` now and whenever the breakpoints change (none once stopped): the layer
        explorer's badges. The canvas's analysis overlay is the one source (the panel draws through it)."""
        canvas = self._host.canvas
        found = canvas.overlays.get(AnalysisOverlay.name)
        overlay = found if isinstance(found, AnalysisOverlay) else AnalysisOverlay(canvas)
        overlay.watchers.append(listener)
        listener(overlay.breakpoints)
        return lambda: overlay.watchers.remove(listener) if listener in overlay.watchers else None

    def add_layer(self, kind: str, node: str, other: str = "") -> str:
        """Insert a `kind` analysis layer (Mix, Affine, Noise, Snapshot) after the canvas node `node` (a Mix: of it
        and `other`) in the live analysis's copy, as the canvas menu and the palette's Analysis category do; the
        panel (badges, outputs, Parameter Editor) follows. Returns the layer's name."""
        from dld_jupyter.widgets.analysis.canvas_layers import add_after
        from dld_jupyter.widgets.analysis.layer_editor import HINT

        analysis, panel = self.live, self.panel
        if analysis is None or panel is None:
            raise SpecError(HINT)
        name = add_after(analysis, self._host.document, kind, node, other)
        panel.refresh()
        return name

    @property
    def live(self) -> Analysis | None:
        """The live Analysis; None when not analysing."""
        panel = self.panel
        live: Analysis | None = panel.analysis if panel is not None and panel.comm is not None else None
        return live
