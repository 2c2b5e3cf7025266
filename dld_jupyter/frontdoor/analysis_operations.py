"""Launch Analysis and Stop Analysis as registered user operations (seed 001 §4: the quick action menu), so the
sidebar's `command` messages and any front door name them as they name Save or Profile (`dld:launch-analysis`,
`launch_analysis`), and Add/Remove Breakpoint on nodes (`dld:add-breakpoint`, args `nodes`: what the layer explorer's
menu sends, going where the canvas menu's request goes), and Add Analysis Layer (`dld:add-analysis-layer`, args
`kind` and `nodes`: the palette's Analysis category dropped on a node or double-clicked with nodes selected, and the
JupyterLab command; a Mix reads the first two nodes; no nodes: the canvas selection). The target is a designer
that can show the Analysis panel (widgets/designer/analysis_mode.py); a bare canvas cannot, and is told so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from dld_jupyter.frontdoor.operation_target import OperationTarget
from dld_jupyter.frontdoor.operations import Enabled, Operation, OperationUnavailable, operations, ready

NEEDS_DESIGNER = "analysis needs a designer (dld.open)"


@runtime_checkable
class Analyses(Protocol):
    """A target that can analyse its model in its own panel (the notebook Designer)."""

    @property
    def analysis(self) -> Any: ...

    def launch_analysis(self, inputs: Mapping[str, Any] | None = None, provider: str = "cpu") -> Any: ...

    def stop_analysis(self) -> None: ...

    def set_breakpoints(self, nodes: Sequence[str], add: bool = True) -> None: ...

    def watch_breakpoints(self, listener: Callable[[list[str]], object]) -> Callable[[], None]: ...

    def add_analysis_layer(self, kind: str, node: str, other: str = "") -> str: ...


def _can_launch(target: OperationTarget) -> Enabled:
    if not isinstance(target, Analyses):
        return NEEDS_DESIGNER
    return "the model is being analysed already" if target.analysis is not None else ready(target)


def _can_stop(target: OperationTarget) -> Enabled:
    if not isinstance(target, Analyses):
        return NEEDS_DESIGNER
    return True if target.analysis is not None else "the model is not being analysed"


def _launch(target: OperationTarget, inputs: Mapping[str, Any] | None = None, provider: str = "cpu") -> object:
    if not isinstance(target, Analyses):
        raise OperationUnavailable(NEEDS_DESIGNER)
    return target.launch_analysis(inputs, provider)


def _stop(target: OperationTarget) -> None:
    if not isinstance(target, Analyses):
        raise OperationUnavailable(NEEDS_DESIGNER)
    target.stop_analysis()


def _breakpoints(add: bool) -> Callable[..., None]:
    def apply(target: OperationTarget, nodes: Sequence[str] = ()) -> None:
        if not isinstance(target, Analyses):
            raise OperationUnavailable(NEEDS_DESIGNER)
        if not nodes:
            raise OperationUnavailable("select the layers to break at first (no node was named)")
        if not add and target.analysis is None:
            raise OperationUnavailable("the model is not being analysed: no breakpoint to remove")
        target.set_breakpoints([str(node) for node in nodes], add)

    return apply


def _add_layer(target: OperationTarget, kind: str = "", nodes: Sequence[str] = ()) -> str:
    if not isinstance(target, Analyses):
        raise OperationUnavailable(NEEDS_DESIGNER)
    if target.analysis is None:
        raise OperationUnavailable("Launch Analysis first: analysis layers live in the analysis copy only, never in "
                                   "the model")
    chosen = [str(node) for node in nodes] or list(target.canvas.selection)
    if not chosen:
        raise OperationUnavailable(f"drop the {kind or 'analysis'} layer on a node, or select the node it follows "
                                   "(a Mix: two nodes) first")
    return target.add_analysis_layer(kind, chosen[0], chosen[1] if len(chosen) > 1 else "")


LAUNCH_ANALYSIS = operations.add(
    Operation(
        "dld:launch-analysis",
        "launch_analysis",
        "Launch Analysis",
        "Run the model on real inputs, step through it and inspect its channels "
        "(the model is read-only until Stop Analysis)",
        _can_launch,
        _launch,
    )
)
STOP_ANALYSIS = operations.add(
    Operation(
        "dld:stop-analysis",
        "stop_analysis",
        "Stop Analysis",
        "End the analysis and edit the model again",
        _can_stop,
        _stop,
    )
)
ADD_BREAKPOINT = operations.add(
    Operation(
        "dld:add-breakpoint",
        "add_breakpoint",
        "Add Breakpoint",
        "Stop the analysis at these nodes (Launch Analysis first if it is not running)",
        lambda target: True if isinstance(target, Analyses) else NEEDS_DESIGNER,
        _breakpoints(True),
    )
)
REMOVE_BREAKPOINT = operations.add(
    Operation(
        "dld:remove-breakpoint",
        "remove_breakpoint",
        "Remove Breakpoint",
        "No longer stop the analysis at these nodes",
        _can_stop,
        _breakpoints(False),
    )
)
ADD_ANALYSIS_LAYER = operations.add(
    Operation(
        "dld:add-analysis-layer",
        "add_analysis_layer",
        "Add Analysis Layer",
        "While analysing: a Mix, Affine, Noise or Snapshot after the selected node (a Mix: of the two selected), in "
        "the analysis copy only (never saved); its options are sliders in the Parameter Editor",
        _can_stop,
        _add_layer,
    )
)
