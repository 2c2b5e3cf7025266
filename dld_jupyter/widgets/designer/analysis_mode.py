"""Analysis mode in the Designer (seed 001 §4): Launch/Stop Analysis on its toolbar, the Analysis panel in its dock.

Why a mixin beside the engine's `AnalysisActions` (frontdoor/analysis.py, `d.analyse(...)`): that one starts an
analysis for a script; this one shows it. `d.launch_analysis(inputs)` opens the panel (widgets/analysis/
analysis_panel.py), sets the Model Inputs and launches, so a cell and the toolbar give the same view; the returned
`Analysis` is the same handle `d.analyse` returns, and `d.analysis` is the live one (None when not analysing).
While it runs the document is read-only and the designer's banner says so (Document.hold → ReadOnlyChanged).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.frontdoor.analysis import Analysis, AnalysisActions
from dld_jupyter.frontdoor.analysis_operations import LAUNCH_ANALYSIS, STOP_ANALYSIS
from dld_jupyter.widgets.canvas.overlays.analysis import AnalysisOverlay, AnalysisRequest
from dld_jupyter.widgets.closing import replace_children


class AnalysisMode(AnalysisActions):
    """What a Designer gains: `analysis_panel()`, `launch_analysis()`, `pop_out_channels()`, `stop_analysis()`,
    `analysis`."""

    _analysis_panel: Any = None
    _analysis_toolbar_button: w.Button | None = None

    def analysis_button(self) -> w.Button:
        """The toolbar's Launch / Stop Analysis button (its label follows the panel's)."""
        button = w.Button(
            description="Launch Analysis",
            icon="play-circle",
            layout=w.Layout(width="auto"),
            tooltip="Launch Analysis: run the model on real inputs, step through it, inspect its "
            "channels (the model is read-only until Stop Analysis)",
        )
        button.add_class("dld-launch-analysis")
        button.on_click(lambda _b: self._guard(self._toggle_analysis))  # type: ignore[attr-defined]
        self._analysis_toolbar_button = button
        return button

    def _toggle_analysis(self) -> None:
        """The toolbar button: the registered operation that applies now (frontdoor/analysis_operations.py)."""
        operation = STOP_ANALYSIS if self.analysis is not None else LAUNCH_ANALYSIS
        operation(self)  # type: ignore[arg-type]  # a Designer is an OperationTarget; this mixin alone is not

    def analysis_panel(self, provider: str = "cpu") -> Any:
        """Show the Analysis panel in the dock (made once per designer) and return it."""
        from dld_jupyter.widgets.analysis.analysis_panel import AnalysisPanel

        panel = self._analysis_panel
        if panel is None or panel.comm is None:
            panel = AnalysisPanel(self, provider)
            if self._analysis_toolbar_button is not None:
                w.dlink((panel.launch_button, "description"), (self._analysis_toolbar_button, "description"))
                w.dlink((panel.launch_button, "icon"), (self._analysis_toolbar_button, "icon"))
            self._analysis_panel = panel
        if panel not in self.profiling.children:  # type: ignore[attr-defined]
            replace_children(self.profiling, [panel])  # type: ignore[attr-defined]
        self.side_dock.reveal()  # type: ignore[attr-defined]
        return panel

    def launch_analysis(
        self, inputs: Mapping[str, Any] | None = None, provider: str = "cpu", target: Any = None
    ) -> Analysis | None:
        """Open the panel, feed `inputs` ({input: "cat.png", "x.npy", an array, "random", "zeros"}) and launch
        (`target`: "local", a saved connection's name (chosen in the panel's Target chooser), ssh://…, or a Target:
        the worker runs there, the panel shows its values as local ones; None: the chooser's choice); returns the
        live Analysis (None when it could not start: the panel says why)."""
        panel = self.analysis_panel(provider)
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
        return self.analysis_panel().channels.pop_out()

    def stop_analysis(self) -> None:
        """Stop Analysis: back to editing."""
        if self._analysis_panel is not None:
            self._analysis_panel.stop()

    def set_breakpoints(self, nodes: Sequence[str], add: bool = True) -> None:
        """Add (or remove) a breakpoint on each of `nodes` (node ids) as the canvas menu does: adding launches the
        analysis if it is not running and stops at the first breakpoint; the overlay and the panel follow."""
        panel = self.analysis_panel()
        for node in nodes:
            panel._on_request(AnalysisRequest.ADD_BREAKPOINT if add else AnalysisRequest.REMOVE_BREAKPOINT, node)

    def watch_breakpoints(self, listener: Callable[[list[str]], object]) -> Callable[[], None]:
        """Call `listener(node ids)` now and whenever the breakpoints change (none once stopped): the layer
        explorer's badges. The canvas's analysis overlay is the one source (the panel draws through it)."""
        canvas = self.canvas  # type: ignore[attr-defined]
        found = canvas.overlays.get(AnalysisOverlay.name)
        overlay = found if isinstance(found, AnalysisOverlay) else AnalysisOverlay(canvas)
        overlay.watchers.append(listener)
        listener(overlay.breakpoints)
        return lambda: overlay.watchers.remove(listener) if listener in overlay.watchers else None

    def add_analysis_layer(self, kind: str, node: str, other: str = "") -> str:
        """Insert a `kind` analysis layer (Mix, Affine, Noise, Snapshot) after the canvas node `node` (a Mix: of it
        and `other`) in the live analysis's copy, as the canvas menu and the palette's Analysis category do; the
        panel (badges, outputs, Parameter Editor) follows. Returns the layer's name."""
        from dld_jupyter.widgets.analysis.canvas_layers import add_after
        from dld_jupyter.widgets.analysis.layer_editor import HINT

        analysis, panel = self.analysis, self._analysis_panel
        if analysis is None or panel is None:
            raise SpecError(HINT)
        name = add_after(analysis, self.document, kind, node, other)
        panel.refresh()
        return name

    @property
    def analysis(self) -> Analysis | None:
        panel = self._analysis_panel
        live: Analysis | None = panel.analysis if panel is not None and panel.comm is not None else None
        return live
