"""Heat on the designer's canvas, kernel side: `show_heat` / `clear_heat` on a real model with a real ONNX Runtime
CPU profile, the compact message the browser gets, and the report viewer's layer selection reaching the canvas."""

from __future__ import annotations

import math
import shutil
from array import array
from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.widgets.canvas.grouping import group_id
from dld_jupyter.widgets.canvas.overlays.heat_payload import node_names
from dld_jupyter.widgets.designer.designer import Designer, open_designer
from dld_jupyter.widgets.report.report_viewer import show_report
from tests.widgets.test_canvas import Recorder

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


@pytest.fixture
def profiled(tmp_path: Path) -> tuple[Designer, Recorder, Path]:
    shutil.copy(MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx", grouping="scopes")
    rec = Recorder(designer.canvas)
    designer.canvas._on_msg(designer.canvas, {"kind": "hello"}, [])
    report_path = tmp_path / "m.dld-report.json"
    designer.profile(iterations=8, warmup=1, output=str(report_path))  # 8 passes: the layers get a CI
    return designer, rec, report_path


def decode(message: dict[str, Any], data: bytes) -> dict[str, Any]:
    values = array("d")
    values.frombytes(data)
    n, count = message["count"], message["layer_count"]
    ids = message["ids"].split("\x1f")
    assert len(values) == 3 * n + 4 * count
    ci = list(zip(values[3 * n + 2 * count : 3 * n + 3 * count], values[3 * n + 3 * count :], strict=True))
    return {
        "ids": ids,
        "ci": ci,
        "time": dict(zip(ids, values[:n], strict=True)),
        "share": dict(zip(ids, values[n : 2 * n], strict=True)),
        "reasons": dict(zip(ids, message["reasons"].split("\x1f"), strict=True)),
    }


def test_show_heat_sends_one_compact_message_with_every_node_and_group(profiled: Any) -> None:
    designer, rec, report_path = profiled
    before = len(rec.messages)
    heat = designer.show_heat(str(report_path), metric="share")
    sent = rec.messages[before:]
    # the overlay strip (heat listed, owning the colours), then the values in one message
    assert [(m["kind"], m["overlay"], m["action"]) for m, _ in sent] == [("overlay", "strip", "set"),
                                                                         ("overlay", "heat", "set")]
    assert sent[0][0]["owner"] == "heat"
    message, buffers = sent[1]
    assert message["metric"] == "share" and message["source"] == "m.dld-report.json"
    got = decode(message, buffers[0])
    names = node_names(designer.document)
    grouping = designer.canvas.view.grouping
    assert set(names) <= set(got["ids"])
    for node, name in names.items():
        value = heat.node_value(name, "time")
        if value is None:
            assert math.isnan(got["time"][node])
            assert message["reason_texts"][int(got["reasons"][node])] == heat.reason(name)
        else:
            assert got["time"][node] == pytest.approx(value)
            assert got["share"][node] == pytest.approx(heat.node_value(name, "share"))
    for layer, (low, high) in zip(heat.report.layers, got["ci"], strict=True):
        assert [low, high] == layer.ci_ms if layer.ci_ms else math.isnan(low) and math.isnan(high)
    assert any(layer.ci_ms for layer in heat.report.layers)
    top = next(path for path in grouping.count if len(path) == 1 and grouping.count[path] > 10)
    members = [names[n] for n, path in grouping.path.items() if path[:1] == top and n in names]
    assert got["time"][group_id(top)] == pytest.approx(heat.group_value(members, "time"))
    assert designer.heat is heat and designer.heat_metric == "share"


def test_a_new_view_gets_the_heat_after_its_snapshot_and_clear_takes_it_off(profiled: Any) -> None:
    designer, rec, report_path = profiled
    designer.show_heat(report_path)
    before = len(rec.messages)
    designer.canvas._on_msg(designer.canvas, {"kind": "hello", "view": "v2"}, [])  # the canvas's one handler
    kinds = [(m["kind"], m.get("action")) for m, _ in rec.messages[before:]]
    assert kinds.index(("snapshot", None)) < kinds.index(("overlay", "set"))
    designer.clear_heat()
    assert rec.messages[-2][0] == {"kind": "overlay", "overlay": "heat", "action": "clear"} and designer.heat is None
    assert rec.messages[-1][0]["overlay"] == "strip" and rec.messages[-1][0]["entries"] == []
    before = len(rec.messages)
    designer.canvas._on_msg(designer.canvas, {"kind": "hello", "view": "v3"}, [])
    assert not [m for m, _ in rec.messages[before:] if m["kind"] == "overlay"]  # no heat: nothing to draw


def test_the_legends_close_and_metric_switch_reach_python(profiled: Any) -> None:
    designer, _rec, report_path = profiled
    designer.show_heat(report_path)
    canvas = designer.canvas
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "heat", "action": "metric", "metric": "share"}, [])
    assert designer.heat_metric == "share"
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "heat", "action": "metric", "metric": "bogus"}, [])
    assert designer.heat_metric == "share"
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "heat", "action": "closed"}, [])
    assert designer.heat is None


def test_bad_input_says_what_is_wrong(profiled: Any, tmp_path: Path) -> None:
    designer, _rec, report_path = profiled
    with pytest.raises(ValueError, match="'time'"):
        designer.show_heat(report_path, metric="percent")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        designer.show_heat(tmp_path / "nope.dld-report.json")
    assert designer.heat is None


def test_selecting_layers_in_the_viewer_selects_their_nodes_on_the_linked_canvas(profiled: Any) -> None:
    designer, _rec, report_path = profiled
    viewer = show_report(report_path)
    viewer.designer = designer
    fused = next(i for i, layer in enumerate(viewer.report.layers) if len(layer.onnx_nodes) > 1)
    viewer.selection = [fused]
    by_name = {n.name: n.id for n in designer.document.nodes()}
    assert designer.canvas.selection == [by_name[n] for n in viewer.report.layers[fused].onnx_nodes]


def test_a_report_of_unsaved_edits_links_to_the_live_designer_of_its_document(tmp_path: Path) -> None:
    from dld_jupyter.widgets.designer.profile_panel import profile_in_notebook

    shutil.copy(MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx")
    first = designer.document.nodes()[0]
    designer.document.move_nodes({first.id: (10.0, 10.0)})  # an edit: the profile runs on a kept copy
    panel = profile_in_notebook(designer, run=True, iterations=2, warmup=0)
    result = panel.wait(120)
    assert result is not None and result.ok, result and result.error
    assert designer.heat is not None  # profiled from the designer: its canvas shows the heat
    designer.clear_heat()
    panel.heat_button.click()  # the panel's button shows it again
    assert designer.heat is not None and designer.heat.report.layers == panel.viewer.report.layers
    report = panel.viewer.report
    assert report.summary.settings["source_document"] == str(tmp_path / "m.onnx")
    assert report.summary.model_path != str(tmp_path / "m.onnx")  # the copy ran
    other = show_report(panel.result.report_path)  # a viewer that knows no designer
    layer = next(i for i, la in enumerate(other.report.layers) if la.onnx_nodes)
    assert other.open_layer(layer) is designer  # the live designer, not a new one on the copy
    designer.close()
