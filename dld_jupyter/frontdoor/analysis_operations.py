"""Launch Analysis and Stop Analysis as registered user operations (seed 001 §4: the quick action menu), so the
sidebar's `command` messages and any front door name them as they name Save or Profile (`dld:launch-analysis`,
`launch_analysis`). The target is a designer that can show the Analysis panel (widgets/designer/analysis_mode.py);
a bare canvas cannot, and is told so.
"""

from __future__ import annotations

from collections.abc import Mapping
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
