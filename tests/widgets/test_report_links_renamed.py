"""A layer link to a node the opened model lacks says why, instead of an internal id error (issue 41)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.widgets.report.report_links import LinkError
from dld_jupyter.widgets.report.report_viewer import ReportViewer
from tests.reports._factory import make_report

MODEL = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


def test_link_to_a_node_renamed_in_unsaved_edits_of_a_closed_designer_says_why(tmp_path: Path) -> None:
    """Unsaved edits renamed a node and were profiled from a temporary copy (gone after the run); the designer was
    closed without saving. The link opens the saved file, which has no such node: "none of the id kinds" before."""
    pytest.importorskip("dld_jupyter.widgets.designer.designer")
    report = make_report(3)
    report.summary.model_path = str(tmp_path / "dld-profiled-x" / "resnet8_cifar.onnx")  # the removed copy
    report.summary.settings["source_document"] = str(MODEL)
    report.layers[0].onnx_nodes = ["my_renamed_conv"]
    report.layers[1].onnx_nodes = ["my_renamed_conv", "/stem/relu/Relu"]
    viewer = ReportViewer([report])
    viewer._links._show = lambda designer: None
    with pytest.raises(LinkError, match=r"no node named 'my_renamed_conv' in .*resnet8_cifar\.onnx: the report ran"):
        viewer.open_layer(0)
    designer = viewer.open_layer(1)  # the names it has are selected, the renamed one left out
    assert designer.canvas.selection
    sent: list[dict[str, object]] = []
    viewer.send = sent.append  # type: ignore[method-assign]
    viewer._on_message(viewer, {"kind": "open_nodes", "report": 0, "nodes": ["my_renamed_conv"]}, [])
    assert sent[-1]["level"] == "error" and "no node named 'my_renamed_conv'" in str(sent[-1]["text"])
