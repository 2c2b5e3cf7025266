"""The designer's Analysis panel (seed 001 §4): Model Inputs, Launch/Stop, Run/Step/Resume, breakpoints, analysis
overrides, and the Analysis Output and Channel Inspector tabs, wired to one live `Analysis` (frontdoor/analysis.py).

Why one controller: the canvas (Network Overview overlay, its context menu), the inspector and the outputs all
follow the same analysis state, and that state changes from this panel, from the canvas's menu and from a cell
(`d.analysis.step()`); the analysis calls `_changed` after each of those, and this panel redraws what follows it
(reentry guarded: redrawing asks the worker for outputs and tensors, which are requests too). Selecting a node on
the canvas shows its output (or its weights) in the Channel Inspector, as the seed's Network Overview does.
The Target chooser (the run panels' own, widgets/runs/target_chooser.py) says where the analysis worker runs: this
machine or a saved SSH connection; the status line names it, and choosing another while analysing starts the analysis
again there, breakpoints and analysis layers kept, as a new input source does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import ipywidgets as w
import onnx_ir as ir

from dld_jupyter.activities.analysis.actions import AnalysisAction
from dld_jupyter.activities.analysis.inputs import model_input_specs
from dld_jupyter.formats.html_text import small
from dld_jupyter.widgets.analysis import canvas_layers
from dld_jupyter.widgets.analysis.inspector_views import InspectorViews
from dld_jupyter.widgets.analysis.layer_editor import LayerEditor
from dld_jupyter.widgets.analysis.layer_timings import layer_times, time_text
from dld_jupyter.widgets.analysis.model_inputs import ModelInputs
from dld_jupyter.widgets.analysis.output_view import AnalysisOutput
from dld_jupyter.widgets.analysis.override_row import OverrideRow
from dld_jupyter.widgets.analysis.overview import inferred_shapes, node_lines
from dld_jupyter.widgets.analysis.panel_target import AnalysisPlace
from dld_jupyter.widgets.analysis.video_controls import VideoControls
from dld_jupyter.widgets.canvas.overlays.analysis import AnalysisOverlay, AnalysisRequest
from dld_jupyter.widgets.widget_base import DldVBox, action_button

TABS = ("Model Inputs", "Analysis Output", "Channel Inspector", "Parameter Editor")


class AnalysisPanel(AnalysisPlace, DldVBox, css="dld-analysis-panel"):
    """The panel of one designer; `launch()` starts an analysis with the Model Inputs' sources, `stop()` ends it."""

    def __init__(self, designer: Any, provider: str = "cpu") -> None:
        self.designer = designer
        self.provider = provider
        self.targets = self._target_chooser(designer)  # where it runs (panel_target.py)
        self.analysis: Any = None
        self._busy = False
        self._detach: Any = lambda: None
        self._times: dict[str, float] = {}
        self._proto = ir.to_proto(designer.document.model)
        self.model_inputs = ModelInputs(model_input_specs(self._proto))
        self.model_inputs.on_change(lambda _sources: self._inputs_changed())
        self.video = VideoControls(self)  # Play / Pause / Step frame of a video input, in step with the debugger
        self.outputs_view = AnalysisOutput()
        self.channels = InspectorViews(designer)  # the docked inspector and its pop-out
        self.inspector = self.channels.docked
        canvas = designer.canvas
        found = canvas.overlays.get(AnalysisOverlay.name)
        self.overlay: AnalysisOverlay = found if isinstance(found, AnalysisOverlay) else AnalysisOverlay(canvas)
        self.overlay.on_request = self._on_request
        canvas.observe(self._selected, names="selection")
        self.status = w.HTML()
        self.error = w.HTML()
        self.launch_button = action_button(
            "Launch Analysis",
            "play-circle",
            "Run the model on the Model Inputs and inspect it; the model is read-only until Stop",
            self.toggle,
            "dld-an-launch",
        )
        self.run_button = action_button("Run", "play", "From the start to the first breakpoint", self.run, "dld-an-run")
        self.step_button = action_button("Step", "step-forward", "To the next node", self.step, "dld-an-step")
        self.resume_button = action_button(
            "Resume", "forward", "To the next breakpoint or the end", self.resume, "dld-an-resume"
        )
        self.show_weights = w.ToggleButtons(
            options=["Output", "Weights"],
            value="Output",
            tooltips=["The selected node's output", "Its weights (initializers)"],
        )
        self.show_weights.observe(lambda _c: self.inspect(), names="value")
        self.timings = w.ToggleButton(
            description="Profile Layer Timings",
            icon="clock-o",
            value=False,
            tooltip="Each node shows its latest time (a short ONNX Runtime profile on "
            "these inputs, run again with each launch)",
            layout=w.Layout(width="auto"),
        )
        self.timings.add_class("dld-an-timings")
        self.timings.observe(lambda _c: self._profile_timings(), names="value")
        self.overrides = OverrideRow(self)  # Override / Revert all for this analysis only
        inspector = w.VBox([self.show_weights, self.inspector])
        self.layers = LayerEditor(self)  # the Analysis palette category and the Parameter Editor's sliders
        self.tabs = w.Tab(children=[self.model_inputs, self.outputs_view, inspector, self.layers])
        for index, title in enumerate(TABS):
            self.tabs.set_title(index, title)
        super().__init__(
            [
                self.status,
                self.targets.slot,
                w.HBox(
                    [self.launch_button, self.run_button, self.step_button, self.resume_button, self.timings],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.overrides.box,
                self.error,
                self.tabs,
            ]
        )
        self._refresh_controls()

    # ------------------------------------------------------------ launch / stop
    def toggle(self) -> None:
        self.stop() if self.analysis is not None else self.launch()

    def launch(self) -> Any:
        """Start the analysis on the Model Inputs (the document turns read-only); returns the `Analysis`."""
        if self.analysis is None:
            self.analysis = self._guard(lambda: self.designer.analyse(self.model_inputs.sources(), self.provider,
                                                                       target=self.target))
            if self.analysis is not None:
                self._detach = self.analysis.subscribe(self._changed)
                self.tabs.selected_index = TABS.index("Analysis Output")
                self._profile_timings(refresh=False)
                self.refresh()
        return self.analysis

    def stop(self) -> None:
        """Stop Analysis: the worker ends, the overlay goes, the document is editable again."""
        analysis, self.analysis = self.analysis, None
        self._detach()
        if analysis is not None:
            analysis.stop()
        self.overlay.clear()
        self.outputs_view.clear("Analysis stopped: Launch Analysis to run the model again.")
        self.channels.clear("Launch Analysis, then select a node to inspect its output or its weights.")
        self._refresh_controls()

    def close(self) -> None:
        self.stop()
        self.channels.close()
        self.overlay.on_request = None
        with contextlib.suppress(ValueError):
            self.designer.canvas.unobserve(self._selected, names="selection")
        super().close()

    def _inputs_changed(self) -> None:
        if self.analysis is not None:  # the analysis reads its inputs once: a new source starts it again
            self._relaunch()

    def _relaunch(self) -> None:
        """Stop and launch again (new inputs, another target), with the breakpoints and analysis layers."""
        if self.analysis is not None:
            breakpoints = list(self.analysis.breakpoints)
            layers = [layer for layer in self.analysis.analysis_layers if layer.kind != "Snapshot"]
            self.stop()
            if self.launch() is not None:
                for node in breakpoints:
                    self.analysis.add_breakpoint(node)
                for layer in layers:  # the analysis layers come along (a snapshot was of the old inputs)
                    self._guard(lambda layer=layer: self.analysis.add_layer(layer.kind, *layer.inputs, **layer.options))
                if layers:
                    self.refresh()

    # ------------------------------------------------------------ debugger
    def run(self) -> None:
        self._act(AnalysisAction.RUN)

    def step(self) -> None:
        self._act(AnalysisAction.STEP)

    def resume(self) -> None:
        self._act(AnalysisAction.RESUME)

    def _act(self, action: AnalysisAction) -> None:
        """Run, Step or Resume (`MOVES`), launching first if needed."""
        analysis = self.launch()
        if analysis is not None:
            self._quiet(lambda: MOVES[action](analysis))
            self.refresh()

    def _quiet(self, action: Any) -> Any:
        """Run an analysis request of this panel's own (its redraw follows; the analysis's callback skips it)."""
        self._busy = True
        try:
            return self._guard(action)
        finally:
            self._busy = False

    def _on_request(self, request: AnalysisRequest, node: str, layer: str = "", other: str = "") -> None:
        """The canvas menu's `request` (`MENU`: Add/Remove Breakpoint, launching the analysis if needed, Inspect
        Channels, Add/Remove Analysis Layer only while analysing: `layer` the kind to add or the name to remove,
        `other` a Mix's second node)."""
        MENU[AnalysisRequest.parse(request)](self, node, layer, other)

    def _breakpoint(self, node: str, add: bool) -> None:
        analysis = self.launch()
        if analysis is None:
            return
        self._quiet(lambda: analysis.add_breakpoint(node) if add else analysis.remove_breakpoint(node))
        if add and analysis.state != "paused":  # the seed: it also stops there
            self._quiet(analysis.run)
        self.refresh()

    def _inspect(self, node: str) -> None:
        if self.launch() is not None:
            self.designer.canvas.selection = [node]
            self.tabs.selected_index = TABS.index("Channel Inspector")

    def _profile_timings(self, refresh: bool = True) -> None:
        """Profile Layer Timings on: each node's latest time from a short profile on the analysis's inputs."""
        self._times = {}
        if self.timings.value and self.analysis is not None:
            self.status.value = small("Analysis — profiling layer timings…")
            self._times = (
                self._guard(lambda: layer_times(self.designer.document, self.analysis.feeds, self.provider,
                                                    self.analysis.activity)) or {}
            )
        if refresh:
            self.refresh()
        self._refresh_controls()

    # ------------------------------------------------------------ views
    def _changed(self, _analysis: Any) -> None:
        if not self._busy and self.analysis is not None and self.analysis.live:
            self.refresh()

    def refresh(self) -> None:
        """Redraw what follows the analysis: status, overlay, outputs, inspector, buttons."""
        analysis = self.analysis
        if analysis is None or self._busy:
            return
        self._busy = True
        try:
            self.error.value = ""
            outputs = self._guard(lambda: analysis.outputs(finish=analysis.state != "paused")) or {}
            self.overlay.show(self._lines(analysis, outputs), analysis.breakpoint_ids, analysis.position_id,
                              canvas_layers.badges(self.designer.document, analysis.analysis_layers))
            self.outputs_view.show({**outputs, **analysis.snapshots}, self._where(analysis))
            self.inspect()
        finally:
            self._busy = False
        self._refresh_controls()

    def _lines(self, analysis: Any, outputs: dict[str, Any]) -> dict[str, str]:
        document = self.designer.document
        known: dict[str, Any] = {name: list(array.shape) for name, array in outputs.items()}
        position = analysis.position_id
        nodes = []
        for node in document.model.graph:
            output = node.outputs[0].name if node.outputs else None
            nodes.append((document.node_id(node), output))
            if position == nodes[-1][0] and output:
                summary = self._guard(lambda: analysis.summary(position)) or {}
                if "shape" in summary:
                    known[output] = summary["shape"]
        lines = node_lines(nodes, inferred_shapes(self._proto, self.analysis.feeds if self.analysis else {}), known)
        for node_id, ms in self._times.items():
            lines[node_id] = f"{lines[node_id]} · {time_text(ms)}" if node_id in lines else time_text(ms)
        return lines

    def _where(self, analysis: Any) -> str:
        state, position = analysis.state, analysis.position_id
        overrides = f" · {len(analysis.overrides)} analysis override(s)" if analysis.overrides else ""
        if state == "paused" and position is not None:
            order = analysis.order_ids
            return f"Paused at {self._label(position)}, node {order.index(position) + 1} of {len(order)}{overrides}"
        if state == "finished":
            return f"Ran to the end{overrides}"
        return f"Ready: Run, Step or add a breakpoint{overrides}"

    def _label(self, node_id: str) -> str:
        node = self.designer.document.ir_node(node_id)
        return f"{node.name or node_id} ({node.op_type})" if node is not None else node_id

    def _selected_node(self) -> str | None:
        selection = [n for n in self.designer.canvas.selection if self.designer.document.ir_node(n) is not None]
        return selection[0] if selection else None

    def _selected(self, _change: Any) -> None:
        if self.analysis is not None and not self._busy:
            self.inspect()

    def inspect(self) -> None:
        """The Channel Inspectors show the selected node's output or weights (else the stop's output)."""
        analysis = self.analysis
        node = self._selected_node() or (analysis.position_id if analysis is not None else None)
        self.channels.inspect(analysis, node, self.show_weights.value == "Weights", self._label, self._guard)

    def _refresh_controls(self) -> None:
        live = self.analysis is not None
        self.layers.refresh()
        self.launch_button.description = "Stop Analysis" if live else "Launch Analysis"
        self.launch_button.icon = "stop-circle" if live else "play-circle"
        paused = live and self.analysis.state == "paused"
        self.step_button.disabled = self.resume_button.disabled = not paused
        where = self._where(self.analysis) if live else "Not analysing: choose the Model Inputs, then Launch."
        place = f" on {self.place(self.analysis)}" if live else ""
        self.status.value = small(f"Analysis{place} — ", where)

    def _guard(self, action: Any) -> Any:
        try:
            return action()
        except (ValueError, OSError, RuntimeError) as error:  # SpecError, RunFailed, UnavailableError say the fix
            self.error.value = small(str(error))
            return None


MOVES: dict[AnalysisAction, Callable[[Any], object]] = {  # the debugger buttons' moves, by the Analysis's methods
    AnalysisAction.RUN: lambda analysis: analysis.run(),
    AnalysisAction.STEP: lambda analysis: analysis.step(),
    AnalysisAction.RESUME: lambda analysis: analysis.resume(),
}
MENU: dict[AnalysisRequest, Callable[[AnalysisPanel, str, str, str], None]] = {  # the canvas menu's requests
    AnalysisRequest.ADD_BREAKPOINT: lambda panel, node, layer, other: panel._breakpoint(node, True),
    AnalysisRequest.REMOVE_BREAKPOINT: lambda panel, node, layer, other: panel._breakpoint(node, False),
    AnalysisRequest.INSPECT: lambda panel, node, layer, other: panel._inspect(node),
    AnalysisRequest.ADD_LAYER: lambda panel, node, layer, other: canvas_layers.add_requested(panel, layer, node, other),
    AnalysisRequest.REMOVE_LAYER: lambda panel, node, layer, other: canvas_layers.remove_requested(panel, layer),
}
