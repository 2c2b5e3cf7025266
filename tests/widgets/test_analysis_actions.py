"""The analysis requests' one vocabulary on the widget side (issue 38): the Analysis panel dispatches its debugger
moves and every canvas menu request through a table with a handler per member, the browser's ANALYSIS_REQUESTS
(js overlays/analysis.ts) are the `AnalysisRequest` words, and the overlay hands the panel a typed request or
refuses one it does not know, in the log, naming the known ones (it used to drop it silently, and the panel
dispatched with getattr on the Analysis)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import onnx
import pytest

from dld_jupyter.activities.analysis.actions import MOVES as DEBUGGER_MOVES
from dld_jupyter.widgets.analysis.analysis_panel import MENU, MOVES
from dld_jupyter.widgets.canvas.overlays.analysis import AnalysisOverlay, AnalysisRequest
from tests.models import resnet_like
from tests.widgets.test_canvas import make

TS = Path(__file__).resolve().parents[2] / "js" / "src" / "widgets" / "canvas" / "overlays" / "analysis.ts"


def test_the_panel_has_a_handler_for_every_move_and_menu_request() -> None:
    assert set(MOVES) == set(DEBUGGER_MOVES)
    assert set(MENU) == set(AnalysisRequest)


def test_the_browsers_request_words_are_the_enums() -> None:
    source = TS.read_text()
    declared = re.search(r"ANALYSIS_REQUESTS = (\[[^\]]*\]) as const", source)
    assert declared is not None, "overlays/analysis.ts declares ANALYSIS_REQUESTS"
    assert json.loads(declared.group(1)) == [request.value for request in AnalysisRequest]
    asked = set(re.findall(r'ask\((?:[^()]*\? )?"(\w+)"', source)) | set(re.findall(r': "(\w+)"\)', source))
    assert asked == {request.value for request in AnalysisRequest}  # the menu asks each, and nothing else


def test_the_overlay_hands_on_a_typed_request_and_refuses_an_unknown_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    onnx.save(resnet_like(), tmp_path / "resnet.onnx")
    canvas, _rec = make(tmp_path / "resnet.onnx")
    overlay = AnalysisOverlay(canvas)
    asked: list[tuple[object, str, str, str]] = []
    overlay.on_request = lambda *request: asked.append(request)
    node = canvas.document.nodes()[0].id
    message = {"kind": "overlay", "overlay": "analysis", "id": node}
    canvas._on_msg(canvas, {**message, "action": "add_layer", "layer": "Noise"}, [])
    assert asked == [(AnalysisRequest.ADD_LAYER, node, "Noise", "")] and type(asked[0][0]) is AnalysisRequest
    with caplog.at_level(logging.WARNING):
        canvas._on_msg(canvas, {**message, "action": "__init__"}, [])
    assert len(asked) == 1
    assert "'__init__' is no request of the analysis overlay (one of add_breakpoint, remove_breakpoint, inspect" in (
        caplog.text) and "reinstall dld_jupyter" in caplog.text
