"""The designer's Sweep… button (issue 28 front door): a registered operation that shows the Sweep form for the
designer's saved model in its dock, and says why it cannot for a model never saved or a bare canvas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.frontdoor.operations import OperationUnavailable, operations
from dld_jupyter.widgets.sweep.sweep_form import SweepPanel


def test_sweep_opens_the_form_for_the_saved_model_in_the_dock(mobilenet_designer: Any) -> None:
    designer = mobilenet_designer
    sweep = operations.get("dld:sweep")
    assert sweep.enabled(designer) is True
    assert any(getattr(b, "description", "") == "Sweep…" for b in designer.toolbar.children)
    panel = sweep(designer, batch="1,2")
    assert isinstance(panel, SweepPanel) and panel in designer.tools.children
    assert panel.models.value == str(designer.document.path)
    assert Path(panel.out.value).name == "model-sweep"
    with pytest.raises(OperationUnavailable, match="shows in a designer"):
        sweep(designer.canvas)


def test_a_model_never_saved_cannot_be_swept_and_says_so() -> None:
    from dld_jupyter.widgets.designer.designer import new_designer

    designer = new_designer(opset=21)
    try:
        sweep = operations.get("sweep")
        assert sweep.enabled(designer) == "save the model first: a sweep runs model files, each point in its own worker"
        with pytest.raises(OperationUnavailable, match="save the model first"):
            sweep(designer)
    finally:
        designer.close()
