"""The canvas intent of the palette's Analysis category (seed 001 §4, issue 37): an analysis layer dropped on a node
while analysing, inserted after it through the registered Add Analysis Layer operation on the designer that hosts
the canvas (`canvas.host`), the one way the canvas menu, the sidebar and the JupyterLab command take too.

Why an intent and not an overlay message: a drop can come while nothing is analysed (or on empty canvas), and the
intent's reply carries the refusal, which the browser shows as a toast. Self-contained (no import of intents.py,
which registers it) so that the two modules form no import circle.
"""

from __future__ import annotations

from typing import Any

from dld_jupyter.document import DocumentError
from dld_jupyter.frontdoor.analysis_operations import ADD_ANALYSIS_LAYER
from dld_jupyter.frontdoor.operations import OperationUnavailable

Reply = dict[str, object] | None
WHAT = "Add analysis layer"


def add_analysis_layer(c: Any, a: dict[str, Any], _b: list[bytes]) -> Reply:
    """args: kind (Mix, Affine, Noise, Snapshot), node (the drop's node id, "" on empty canvas), other (a Mix's
    second node, "" for none). Reply data: {name} of the layer inserted."""
    host = getattr(c, "host", None)
    if host is None:
        raise DocumentError(WHAT, "this canvas stands alone, without a designer that analyses it.",
                            "Open the model with dld.open(path), Launch Analysis, then drop the layer on a node.")
    kind, node, other = (str(a.get(key) or "") for key in ("kind", "node", "other"))
    if not node:
        raise DocumentError(WHAT, f"the {kind or 'analysis'} layer was dropped on no node.",
                            "Drop it on the node it should follow (a Mix: on one node, with the other selected).")
    try:
        name = ADD_ANALYSIS_LAYER(host, kind=kind, nodes=[node, other] if other else [node])
    except (OperationUnavailable, ValueError) as error:  # SpecError: what and how to fix are in its text
        raise DocumentError(WHAT, str(error), "") from error
    return {"name": str(name)}


ANALYSIS_HANDLERS = {"add_analysis_layer": add_analysis_layer}
