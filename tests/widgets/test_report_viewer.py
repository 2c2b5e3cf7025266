"""Kernel side of the report viewer: the payload carries the report exactly, CSV matches the report, a link click
selects the ONNX node in a designer, bad input shows a clear error in the widget, and the browser's selection
statistics (js/src/widgets/report/stats.ts) agree with reports/stats.py on a shared fixture."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import sys
from array import array
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from dld_jupyter.document import Document
from dld_jupyter.frontdoor.designers import registry
from dld_jupyter.report_format.io import save_report
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.export import to_csv
from dld_jupyter.reports.stats import format_dims, summarize_selection
from dld_jupyter.reports.trtexec import import_trtexec
from dld_jupyter.widgets.report.report_viewer import ReportViewer, compare_reports, show_report
from tests.reports._factory import make_report

REPO = Path(__file__).resolve().parents[2]
TRT = REPO / "tests" / "data" / "trt" / "tf-resnet50-rtx3090-fp16.engine"
MODEL = REPO / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
FIXTURE = REPO / "js" / "src" / "widgets" / "report" / "fixtures" / "selection_case.json"
SELECTION = [1, 2, 4, 7, 11]


def floats(viewer: ReportViewer) -> array[float]:
    values = array("d")
    values.frombytes(viewer.data)
    if sys.byteorder != "little":
        values.byteswap()
    return values


def column(viewer: ReportViewer, ref: list[int]) -> list[float]:
    return list(floats(viewer)[ref[0] : ref[0] + ref[1]])


def decoded(viewer: ReportViewer, coded: dict[str, Any]) -> list[str]:
    return [coded["values"][int(c)] for c in column(viewer, coded["codes"])]


@pytest.fixture(scope="module")
def trt_report() -> Report:
    return import_trtexec(f"{TRT}.profile.json", layers=f"{TRT}.graph.json", times=f"{TRT}.timing.json")


def test_payload_carries_the_report_as_columns_and_binary(trt_report: Report) -> None:
    viewer = show_report(trt_report)
    assert isinstance(viewer.data, bytes) and len(viewer.data) % 8 == 0
    p = viewer.payload["reports"][0]
    layers = p["layers"]
    assert layers["count"] == len(trt_report.layers)
    assert layers["name"].split("\x1f") == [layer.name for layer in trt_report.layers]
    assert [n.split("\x1f") if n else [] for n in layers["onnx_nodes"].split("\x1e")] == [
        layer.onnx_nodes for layer in trt_report.layers
    ]
    assert column(viewer, layers["median_ms"]) == [layer.median_ms for layer in trt_report.layers]
    assert decoded(viewer, layers["precision"]) == [layer.precision for layer in trt_report.layers]
    assert decoded(viewer, layers["input_dims"]) == [format_dims(layer.input_dims) for layer in trt_report.layers]
    assert column(viewer, layers["overhead"]) == [float(layer.overhead) for layer in trt_report.layers]
    timeline = p["timeline"]
    assert column(viewer, timeline["start_ms"]) == [e.start_ms for e in trt_report.timeline]
    assert {int(k) for k in timeline["labels"]} == {i for i, e in enumerate(trt_report.timeline) if e.layer < 0}
    assert p["summary"]["backend"] == "tensorrt" and p["summary"]["median_ms"] == trt_report.summary.median_ms
    assert not any(isinstance(v, list) and v and isinstance(v[0], float) for v in layers.values())  # no JSON floats
    json.dumps(viewer.payload)  # the JSON half is plain JSON


def test_metrics_and_passes_travel_in_the_buffer() -> None:
    report = make_report(12)
    viewer = ReportViewer([report])
    p = viewer.payload["reports"][0]
    assert column(viewer, p["passes_ms"]) == report.passes_ms
    metric = p["metrics"][0]
    assert metric["label"] == "SM Utilization"
    assert column(viewer, metric["values"]) == report.gpu_metrics[0].values
    assert [r["id"] for r in p["recommendations"]]  # reports/recommendations.py output is shown


def test_csv_matches_the_report_and_the_filters(tmp_path: Path, trt_report: Report) -> None:
    viewer = show_report(trt_report)
    assert viewer.to_csv() == to_csv(trt_report)
    rows = list(csv.reader(io.StringIO(str(viewer.to_csv()))))
    assert len(rows) == len(trt_report.layers) + 1
    assert [float(r[-1]) for r in rows[1:]] == [layer.median_ms for layer in trt_report.layers]
    viewer.filter = "CONV1"
    filtered = list(csv.reader(io.StringIO(str(viewer.to_csv(rows="filtered")))))[1:]
    assert filtered and all("conv1" in r[1].lower() for r in filtered)
    viewer.selection = [3, 1]
    assert [r[0] for r in list(csv.reader(io.StringIO(str(viewer.to_csv(rows="selected")))))[1:]] == ["1", "3"]
    written = viewer.to_csv(tmp_path / "t.csv")
    assert Path(written).read_text() == to_csv(trt_report)
    with pytest.raises(ValueError, match="rows"):
        viewer.to_csv(rows="some")


class FakeDesigner:
    instances: ClassVar[list[FakeDesigner]] = []

    def __init__(self, path: str) -> None:
        self.path, self.selected, self.focused = path, [], []  # type: ignore[var-annotated]
        self.revealed: list[bool] = []  # a name link brings the designer into view (its Lab tab activated)
        self.canvas = SimpleNamespace(pending_load=None)  # loaded: its document is there
        self.document = Document.open(path)  # the link checks its names against the designer's document
        FakeDesigner.instances.append(self)

    def select(self, names: list[str], reveal: bool = False) -> list[str]:
        self.selected.append(list(names))
        self.revealed.append(reveal)
        return names

    def focus(self, name: str) -> str:
        self.focused.append(name)
        return name


@pytest.fixture
def fake_designer(monkeypatch: pytest.MonkeyPatch) -> type[FakeDesigner]:
    FakeDesigner.instances = []
    monkeypatch.setattr(registry, "_opener", FakeDesigner)
    # Designers an earlier test of this process left open must not answer this test's links (order-dependent).
    monkeypatch.setattr(registry, "_open", {})
    return FakeDesigner


def ort_like(tmp_path: Path) -> Report:
    report = make_report(6)
    report.summary.model_path = str(MODEL)
    report.layers[2].onnx_nodes = ["/layer1/block0/conv1/conv/Conv"]
    return report


def test_link_click_selects_the_node_in_one_designer_per_model(tmp_path: Path, fake_designer: Any) -> None:
    viewer = ReportViewer([ort_like(tmp_path)])
    shown: list[Any] = []
    viewer._show_designer = shown.append  # type: ignore[method-assign]
    viewer._links._show = shown.append
    viewer._on_message(viewer, {"kind": "open_nodes", "report": 0, "nodes": ["/layer1/block0/conv1/conv/Conv"]}, [])
    viewer._on_message(viewer, {"kind": "open_nodes", "report": 0, "nodes": ["/stem/conv/Conv"]}, [])
    assert len(fake_designer.instances) == 1 and len(shown) == 1  # reused, displayed once
    designer = fake_designer.instances[0]
    assert designer.path == str(MODEL.resolve())
    assert designer.selected == [["/layer1/block0/conv1/conv/Conv"], ["/stem/conv/Conv"]]
    assert designer.revealed == [True, True], "a name link reveals the designer"
    assert viewer.open_layer(2) is designer


def test_magnifier_menu_lists_sources_producers_consumers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    viewer = ReportViewer([ort_like(tmp_path)])
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(viewer, "send", sent.append)
    viewer._on_message(viewer, {"kind": "request", "request": 7, "action": "links", "args": {"report": 0, "layer": 2}},
                       [])
    reply = sent[-1]
    assert reply["kind"] == "reply" and reply["request"] == 7 and reply["ok"] and reply["error"] is None
    assert reply["data"]["sources"] == ["/layer1/block0/conv1/conv/Conv"]
    assert reply["data"]["producers"] == ["/stem/relu/Relu"]
    assert reply["data"]["consumers"] == ["/layer1/block0/conv1/bn/BatchNormalization"]
    viewer._on_message(viewer, {"kind": "request", "request": 8, "action": "links", "args": {"report": 0, "layer": 99}},
                       [])
    assert sent[-1]["kind"] == "reply" and sent[-1]["request"] == 8 and not sent[-1]["ok"] and sent[-1]["error"]


def test_link_problems_become_notices(monkeypatch: pytest.MonkeyPatch, trt_report: Report) -> None:
    viewer = show_report(trt_report)  # imported without --model: no model path
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(viewer, "send", sent.append)
    viewer._on_message(viewer, {"kind": "open_nodes", "report": 0, "nodes": ["x"]}, [])
    assert sent[-1]["kind"] == "notice" and sent[-1]["level"] == "error"
    assert "--model" in sent[-1]["text"]
    moved = make_report(3)
    viewer = ReportViewer([moved])
    monkeypatch.setattr(viewer, "send", sent.append)
    viewer._on_message(viewer, {"kind": "open_nodes", "report": 0, "nodes": ["x"]}, [])
    assert "not found" in sent[-1]["text"]


def test_real_designer_selects_the_node() -> None:
    pytest.importorskip("dld_jupyter.widgets.designer.designer")
    report = make_report(3)
    report.summary.model_path = str(MODEL)
    viewer = ReportViewer([report])
    viewer._links._show = lambda designer: None
    designer = viewer.open_nodes(["/stem/conv/Conv"])
    assert designer.canvas.selection  # node ids; the browser view follows (tests/browser)
    assert viewer.open_nodes(["/stem/relu/Relu"]) is designer
    assert registry.by_path(str(MODEL)) is designer


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("/no/such/file.dld-report.json", "does not exist"),
        (".", "is a folder"),
    ],
)
def test_bad_paths_show_a_clear_error_in_the_widget(source: str, message: str) -> None:
    viewer = show_report(source)
    assert viewer.error.startswith("Cannot open the report") and message in viewer.error
    assert viewer.payload["reports"] == []


def test_not_a_report_is_explained(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    viewer = show_report(bad)
    assert "Cannot open the report" in viewer.error and "trtexec" in viewer.error


def test_opens_report_files_and_trtexec_profiles(tmp_path: Path) -> None:
    report = make_report(5)
    save_report(report, tmp_path / "a.dld-report.json")
    assert show_report(tmp_path / "a.dld-report.json").report.layers == report.layers
    viewer = show_report(f"{TRT}.profile.json")  # sibling layer/timing files are picked up
    assert viewer.report.summary.backend == "tensorrt" and viewer.report.layers[2].precision == "FP16"


def test_unknown_options_are_rejected_with_a_hint() -> None:
    with pytest.raises(TypeError, match="did you mean 'heat'"):
        show_report(make_report(2), heta=True)
    with pytest.raises(TypeError, match="compare_reports got an unknown argument 'zoom'"):
        compare_reports(make_report(2), make_report(2), zoom=3)


def test_compare_matches_layers_and_follows_the_baseline() -> None:
    a, b = make_report(8, seed=1), make_report(8, seed=2)
    viewer = compare_reports(a, b, labels=["opt", "no-opt"], baseline=1)
    c = viewer.payload["compare"]
    assert c["baseline"] == 1 and [s["label"] for s in c["summaries"]] == ["opt", "no-opt"]
    diffs = column(viewer, c["layers"]["diffs_ms"][0])
    assert diffs[0] == pytest.approx(a.layers[0].median_ms - b.layers[0].median_ms)
    viewer.baseline = 0  # the browser's baseline picker
    assert viewer.payload["compare"]["baseline"] == 0
    with pytest.raises(ValueError, match="at least two"):
        compare_reports(a)


def test_compare_header_counts_truly_matched_rows() -> None:
    """A row only one report has is a row, not a match: the payload carries Comparison.matched_count."""
    a, b = make_report(8, seed=1), make_report(6, seed=2)  # b lacks a's last two layers
    c = compare_reports(a, b).payload["compare"]
    assert c["layers"]["count"] == 8 and c["matched_count"] == 6


def test_figures_are_plain_plotly_figures() -> None:
    pytest.importorskip("plotly")
    figures = show_report(make_report(10)).figures()
    assert set(figures) == {"latency_per_type", "precision_per_type", "timeline"}
    assert figures["latency_per_type"].data[0].orientation == "h"
    assert figures["precision_per_type"].data[0].type == "sunburst"


def selection_case() -> dict[str, Any]:
    report = make_report(16, seed=3)
    report.layers[4].precision = "FP32"  # ties between values, to pin the tie order
    viewer = ReportViewer([report])
    expected = summarize_selection(report, SELECTION, full_pass=True)
    return {
        "payload": viewer.payload,
        "data": base64.b64encode(viewer.data).decode(),
        "selection": SELECTION,
        "full_pass": True,
        "expected": {
            "count": expected.count,
            "discrete": {k: asdict(v) for k, v in expected.discrete.items()},
            "times": {k: asdict(v) for k, v in expected.times.items()},
        },
    }


def test_browser_statistics_fixture_matches_python() -> None:
    """js/src/widgets/report/stats.test.ts checks stats.ts against this fixture; here the fixture against Python."""
    case = selection_case()
    if os.environ.get("DLD_UPDATE_FIXTURES") or not FIXTURE.exists():
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(json.dumps(case, indent=1) + "\n")
    stored = json.loads(FIXTURE.read_text())
    assert stored == json.loads(json.dumps(case)), "regenerate with DLD_UPDATE_FIXTURES=1 pytest " + __file__


def test_the_timeline_figure_has_the_median_pass_overhead_apart_and_metric_rows() -> None:
    """The design card's Plotly inference timeline: one bar per timeline event, overhead in its own trace, each GPU
    metric series a linked row below, and the layer's figures on hover."""
    import dld_jupyter as dld
    from dld_jupyter.report_format.model import MetricSeries

    report = make_report(12)
    for event in report.timeline:
        event.overhead = event is report.timeline[3]
    report.gpu_metrics = [MetricSeries("sm_utilization", "SM Utilization", "%", [0.0, 1.0, 2.0], [40.0, 60.0, 50.0])]
    figure = dld.timeline_figure(report)
    layers, overhead, metric = figure.data
    assert (layers.name, overhead.name) == ("layers", "overhead")
    assert len(layers.x) + len(overhead.x) == len(report.timeline) and len(overhead.x) == 1
    assert layers.base[0] == report.timeline[0].start_ms and set(layers.y) == {"stream 0"}
    first = report.layers[report.timeline[0].layer]
    assert first.name in layers.hovertext[0] and f"{first.median_ms:.4f} ms" in layers.hovertext[0]
    assert list(metric.y) == [40.0, 60.0, 50.0] and metric.xaxis == "x2"
    assert "SM Utilization (%, 3 samples)" in [a.text for a in figure.layout.annotations]


def test_a_link_after_its_designer_was_closed_opens_a_new_one() -> None:
    report = make_report(3)
    report.summary.model_path = str(MODEL)
    while (left := registry.by_path(str(MODEL))) is not None:  # designers earlier tests left open on the model
        left.close()
    viewer = ReportViewer([report])
    shown: list[Any] = []
    viewer._links._show = shown.append
    first = viewer.open_nodes(["/stem/conv/Conv"])
    assert len(shown) == 1
    first.close()  # the user closed the designer the link had opened
    second = viewer.open_nodes(["/stem/relu/Relu"])
    assert second is not first and len(shown) == 2  # not the closed one again, invisible
    assert second.canvas.selection
