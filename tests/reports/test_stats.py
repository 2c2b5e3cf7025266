"""Statistics over selections, per-type aggregates, name filter, top layers."""

from __future__ import annotations

import pytest

from dld_jupyter.report_format.model import Layer, Report, Summary
from dld_jupyter.reports import stats
from tests.reports._factory import make_report


def tiny() -> Report:
    layers = [
        Layer(0, "Conv_0", "Conv", precision="FP16", provider="CUDA", input_dims=[[1, 3, 8, 8]], median_ms=2.0),
        Layer(1, "relu_0", "Relu", precision="FP16", provider="CUDA", input_dims=[[1, 8, 8, 8]], median_ms=1.0),
        Layer(2, "CONV_1", "Conv", precision="FP32", provider="CPU", input_dims=[[1, 8, 8, 8]], median_ms=4.0),
        Layer(3, "add", "Add", precision="FP16", provider="CUDA", input_dims=[[1, 8, 8, 8], [1]], median_ms=1.0),
        Layer(4, "copy", "Reformat", precision="FP16", provider="CUDA", median_ms=2.0, overhead=True),
    ]
    summary = Summary("m", "", "onnxruntime", "CUDA", "GPU", median_ms=20.0, passes=1)
    return Report(summary=summary, layers=layers)


def test_summary_of_everything() -> None:
    result = stats.summarize(tiny())
    assert result.count == 5 and not result.full_pass
    precision = result.discrete["precision"]
    assert precision.most_common == ["FP16"] and precision.counts == [("FP16", 4), ("FP32", 1)]
    assert result.discrete["type"].counts == [("Conv", 2), ("Relu", 1), ("Add", 1), ("Reformat", 1)]
    assert result.discrete["input_dims"].most_common == ["1x8x8x8"]
    assert ("1x8x8x8; 1", 1) in result.discrete["input_dims"].counts and ("", 1) in result.discrete["input_dims"].counts
    t = result.times["median_ms"]
    assert (t.count, t.min, t.max, t.mean, t.total) == (5, 1.0, 4.0, 2.0, 10.0)
    p = result.times["percent"]
    assert (p.min, p.max, p.total) == pytest.approx((10.0, 40.0, 100.0))


def test_selection_and_full_pass() -> None:
    report = tiny()
    result = stats.summarize(report, [1, 3], full_pass=True)
    assert result.count == 2 and result.discrete["type"].most_common == ["Relu", "Add"]  # a tie: both, seen order
    assert result.times["median_ms"].total == 2.0
    assert result.times["percent"].total == pytest.approx(10.0)  # 2 of the 20 ms pass
    assert stats.summarize(report, [1, 3]).times["percent"].total == pytest.approx(20.0)  # 2 of the 10 ms layer sum
    with pytest.raises(IndexError):
        stats.summarize(report, [9])


def test_selection_rule_of_the_table() -> None:
    report = tiny()
    assert stats.summarize_selection(report, [2]).count == 5  # one row: whole pass
    assert stats.summarize_selection(report, []).count == 5
    assert stats.summarize_selection(report, [0, 2, 4]).count == 3


def test_empty_selection() -> None:
    result = stats.summarize(tiny(), [])
    assert result.count == 0 and result.discrete["type"].most_common == [] and result.times["median_ms"].total == 0


def test_percent_bases() -> None:
    report = tiny()
    assert stats.layer_sum_ms(report) == 10.0
    assert stats.percent_base_ms(report, full_pass=True) == 20.0
    assert stats.percentages(report) == [20.0, 10.0, 40.0, 10.0, 20.0]
    report.summary.median_ms = 0.0  # no pass time known: fall back to the layer sum
    assert stats.percentages(report, full_pass=True) == [20.0, 10.0, 40.0, 10.0, 20.0]
    assert stats.percentages(Report(summary=report.summary)) == []


def test_time_by_type() -> None:
    rows = stats.time_by_type(tiny())
    assert [r.type for r in rows] == ["Conv", "Reformat", "Add", "Relu"]  # slowest mean first, ties by name
    conv = rows[0]
    assert (conv.count, conv.total_ms, conv.mean_ms, conv.total_percent, conv.mean_percent) == (2, 6.0, 3.0, 60.0, 30.0)
    assert sum(r.total_percent for r in rows) == pytest.approx(100.0)


def test_precision_by_type() -> None:
    rows = stats.precision_by_type(tiny())
    assert rows[0].type == "Conv" and rows[0].count == 2 and dict(rows[0].precisions) == {"FP16": 1, "FP32": 1}
    assert sum(r.count for r in rows) == 5


def test_filter_by_name_is_case_insensitive_substring() -> None:
    report = tiny()
    assert stats.filter_by_name(report.layers, "conv") == [0, 2]
    assert stats.filter_by_name(report.layers, "CONV_") == [0, 2]
    assert stats.filter_by_name(report.layers, "") == [0, 1, 2, 3, 4]
    assert stats.filter_by_name(report.layers, "zzz") == []
    fast = stats.NameFilter(report.layers)
    for text in ("", "c", "co", "_0", "ADD", "ß"):
        assert fast(text) == stats.filter_by_name(report.layers, text)


def test_top_layers() -> None:
    report = tiny()
    assert [layer.index for layer in stats.top_layers(report, 3)] == [2, 0, 4]
    assert [layer.index for layer in stats.top_layers(report, 3, include_overhead=False)] == [2, 0, 1]
    assert stats.top_layers(report, 0) == [] and len(stats.top_layers(report, 99)) == 5
    assert stats.overhead_ms(report) == 2.0


def test_format_dims() -> None:
    assert stats.format_dims([[1, 3, 224, 224], ["N", 64]]) == "1x3x224x224; Nx64"
    assert stats.format_dims([[]]) == "scalar" and stats.format_dims([]) == ""


def test_large_report_stats_are_consistent() -> None:
    report = make_report(500, seed=3)
    result = stats.summarize(report)
    assert result.times["median_ms"].total == pytest.approx(stats.layer_sum_ms(report))
    assert sum(n for _, n in result.discrete["type"].counts) == 500
