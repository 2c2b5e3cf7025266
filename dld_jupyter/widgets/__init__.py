"""The notebook front door: canvas, designer, editor panels and report viewer widgets (browser halves in
js/src/widgets/, same folder names).

Importing any widget installs the designer opener in the registry of open designers, so that a report viewer can
open a model's designer without importing the designer module (that import closed a circle through the profile
panel); the designer itself is imported only when one is opened.
"""

from __future__ import annotations

from dld_jupyter.frontdoor.designers import LiveDesigner, registry


def _open_designer(path: str) -> LiveDesigner:
    from dld_jupyter.widgets.designer.designer import open_designer

    return open_designer(path)


registry.set_opener(_open_designer)
