"""The overlay manager's operation (issue 42): "Clear Canvas Overlays" from JupyterLab's palette and View menu, on the
current designer: every overlay of its canvas (heat, divergence, diff, node data, the analysis's marks) cleared at
once. Each overlay also has its own × in the canvas's overlay strip, and `designer.overlays` does the rest.

Registered in the one operation registry when imported (the Designer's overlay actions import it); a target must be
a designer whose canvas has overlays (`ClearsOverlays`).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from dld_jupyter.frontdoor.operation_target import OperationTarget
from dld_jupyter.frontdoor.operations import Enabled, Operation, OperationUnavailable, operations, ready


@runtime_checkable
class ClearsOverlays(Protocol):
    """A target whose canvas has overlays (the notebook Designer: widgets/designer/overlay_actions.py)."""

    def clear_overlays(self) -> object: ...


def _can(target: OperationTarget) -> Enabled:
    return ready(target) if isinstance(target, ClearsOverlays) else "overlays are drawn on a designer (dld.open)"


def _clear(target: OperationTarget, **_: Any) -> object:
    if not isinstance(target, ClearsOverlays):
        raise OperationUnavailable(str(_can(target)))
    return target.clear_overlays()


CLEAR_OVERLAYS = operations.add(Operation(
    "dld:clear-overlays", "clear_overlays", "Clear Canvas Overlays",
    "Clear every overlay of the canvas (heat, divergence, changes, node data, analysis marks): back to the category "
    "colours", _can, _clear))
