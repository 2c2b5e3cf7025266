"""The one report builder: summary from passes, layer statistics and percent, median pass, aggregates, fallbacks."""

from __future__ import annotations

import pytest

from dld_jupyter.report_format.builder import LayerRecord, LayerTimes, RunInfo, build_report, layer_pass_index
from dld_jupyter.report_format.io import report_from_data, to_data
from dld_jupyter.report_format.model import TimelineEvent

RUN = RunInfo(model="m", model_path="m.onnx", backend="onnxruntime", provider="CPUExecutionProvider", device="CPU")


def test_summary_layers_and_percent_from_passes() -> None:
    passes = [3.0, 1.0, 2.0, 4.0, 2.5]  # median pass: index 4 (2.5)
    layers = [
        LayerRecord("a", "Conv", times_ms=[1.0, 0.4, 0.8, 1.6, 1.5]),
        LayerRecord("b", "Relu", times_ms=[0.5, None, 0.2, 0.4, 0.5]),  # did not run in pass 1
    ]
    timeline = [TimelineEvent(0, "a", 0, 0.0, 1.5), TimelineEvent(1, "b", 0, 1.5, 0.5)]
    report = build_report(RUN, passes, layers, timeline=timeline, warmup_passes=2, removed_nodes=["gone"])
    s = report.summary
    assert (s.median_ms, s.median_pass_index, s.passes, s.warmup_passes) == (2.5, 4, 5, 2)
    assert (s.min_ms, s.max_ms, s.mean_ms) == (1.0, 4.0, pytest.approx(2.5))
    assert s.profiled_median_ms is None and s.profiling_overhead_ms is None and s.created
    a, b = report.layers
    assert (a.index, a.median_ms, a.min_ms, a.max_ms, a.mean_ms) == (0, 1.5, 0.4, 1.6, pytest.approx(1.06))
    assert (b.index, b.median_ms, b.min_ms, b.mean_ms) == (1, 0.5, 0.2, pytest.approx(0.4))
    assert (a.percent, b.percent) == (pytest.approx(75.0), pytest.approx(25.0))
    assert report.timeline == timeline and report.removed_nodes == ["gone"]
    assert report_from_data(to_data(report)) == report  # what the builder makes is a valid report


def test_layers_timed_in_profiled_passes() -> None:
    plain, profiled = [1.0, 1.1, 1.2], [2.0, 1.5, 1.8]
    assert layer_pass_index(plain, profiled) == 2  # the median of the profiled passes
    report = build_report(RUN, plain, [LayerRecord("a", "Conv", times_ms=[0.9, 0.7, 0.8])], profiled_passes_ms=profiled)
    s = report.summary
    assert s.median_ms == 1.1 and s.profiled_median_ms == 1.8
    assert s.profiling_overhead_ms == pytest.approx(0.7) and report.layers[0].median_ms == 0.8


def test_aggregates_and_no_pass_times() -> None:
    layers = [
        LayerRecord("x", "Reformat", aggregate=LayerTimes(0.5, 0.6, 0.5, 0.5), overhead=True),
        LayerRecord("y", "Conv", aggregate=LayerTimes(1.5, 1.4, 1.5, 1.5)),
    ]
    report = build_report(RUN, [], layers, pass_count=7)
    s = report.summary
    assert (s.median_ms, s.passes, s.stable, s.stability_note) == (2.0, 7, True, "")  # the sum of its layers
    assert report.layers[0].mean_ms == 0.6 and report.layers[0].overhead and report.layers[1].percent == 75.0


def test_unstable_passes_are_said_so_and_no_layers_is_fine() -> None:
    report = build_report(RUN, [1.0, 1.0])
    assert not report.summary.stable and "too few" in report.summary.stability_note
    assert report.layers == [] and report.timeline == []
