"""The comparison operations (issue 30): "Compare with…" (the structural diff of another model against the open one,
drawn on its canvas) and "Check against original" (the divergence of the open, edited model against its saved
file: after Convert to FP16 or Sanitize applied in place, a confirmed subgraph edit, any hand edit).

Registered in the one operation registry when imported (the Designer imports it), so every front door that lists
operations reaches them by id; a target must be a designer that draws comparisons (`Compares`).

"Check against original" starts the divergence as a run on the designer (progress, Cancel) and returns at once: a
toolbar click or a JupyterLab command must leave the kernel free, or Cancel would never be heard.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from dld_jupyter.activities.errors import ActivityError
from dld_jupyter.frontdoor.operation_target import OperationTarget
from dld_jupyter.frontdoor.operations import Enabled, Operation, OperationUnavailable, operations, ready


@runtime_checkable
class Compares(Protocol):
    """A target that draws comparisons on its canvas (the notebook Designer: widgets/designer/compare_actions.py)."""

    def compare_with(self, other: Any) -> object: ...

    def check_against_original(self, **options: Any) -> object: ...

    def start_check_against_original(self, **options: Any) -> object:
        """The divergence as a run shown with progress and Cancel; returns without waiting for it."""

    def show_node_data(self, path: Any) -> object:
        """Colour the canvas by a Model Explorer node-data file."""


def _can(target: OperationTarget) -> Enabled:
    return ready(target) if isinstance(target, Compares) else "comparisons are drawn on a designer (dld.open)"


def _compare_with(target: OperationTarget, path: str = "", **_: Any) -> object:
    if not isinstance(target, Compares):
        raise OperationUnavailable(str(_can(target)))
    if not str(path).strip():
        raise ValueError("Compare with…: type the other model's path (the older version) in the path box.")
    return target.compare_with(str(path).strip())


def _check(target: OperationTarget, **options: Any) -> object:
    if not isinstance(target, Compares):
        raise OperationUnavailable(str(_can(target)))
    try:
        return target.start_check_against_original(**options)  # a run: progress and Cancel on the designer
    except ActivityError as error:  # a model that fails to run, a provider not installed: shown as the button's error
        raise ValueError(f"Check against original: {error}") from error


COMPARE_WITH = operations.add(Operation(
    "dld:compare-with", "compare_with", "Compare with…",
    "Diff the model at the path (older) against this one: added and changed nodes on the canvas, Previous/Next",
    _can, _compare_with))
CHECK_AGAINST_ORIGINAL = operations.add(Operation(
    "dld:check-against-original", "check_against_original", "Check against original",
    "Run this model and its saved file on the same inputs: the first diverging node and the per-node table",
    _can, _check))


def _open_node_data(target: OperationTarget, path: str = "", **_: Any) -> object:
    if not isinstance(target, Compares):
        raise OperationUnavailable(str(_can(target)))
    return target.show_node_data(str(path))


OPEN_NODE_DATA = operations.add(Operation(
    "dld:open-node-data", "show_node_data", "Open Node Data…",
    "Colour the canvas by a Model Explorer node-data file (keys: its ONNX adapter's node ids), with its legend",
    _can, _open_node_data))
