"""Confidence intervals of medians, and a profiling overhead judged against them."""

from __future__ import annotations

import random

import pytest

from dld_jupyter.report_format.builder import LayerRecord, RunInfo, build_report
from dld_jupyter.report_format.passes import intervals_overlap, median_interval
from dld_jupyter.reports.summary_text import median_text, overhead_text

RUN = RunInfo(model="m", model_path="m.onnx", backend="onnxruntime", provider="CPUExecutionProvider", device="CPU")


def test_order_statistics_match_the_textbook_pair() -> None:
    # n = 100: the 95 % interval of the median is (x_(40), x_(61)) (binomial(100, 1/2) tails).
    assert median_interval([float(v) for v in range(1, 101)]) == (40.0, 61.0)
    assert median_interval([float(v) for v in range(1, 6)]) is None  # 5 values: no pair reaches 95 %
    assert median_interval([3.0, 1.0, 2.0, 6.0, 5.0, 4.0]) == (1.0, 6.0)


def test_the_interval_covers_the_true_median_at_least_95_percent_of_the_time() -> None:
    rng = random.Random(7)
    for n in (6, 11, 50, 1500):
        hits = 0
        for _ in range(400):
            values = [rng.expovariate(1.0) for _ in range(n)]
            low, high = median_interval(values) or (0.0, 0.0)
            hits += low <= 0.693147 <= high  # the median of Exp(1) is ln 2
        assert hits / 400 >= 0.92, n  # 95 % nominal, binomial noise of 400 trials


def test_an_overhead_inside_both_intervals_is_within_noise() -> None:
    rng = random.Random(1)
    plain = [10.0 + rng.gauss(0, 0.5) for _ in range(50)]
    profiled = [9.9 + rng.gauss(0, 0.5) for _ in range(50)]  # "negative overhead": the profiled run was faster
    report = build_report(RUN, plain, [LayerRecord("a", "Conv", times_ms=profiled)], profiled_passes_ms=profiled)
    s = report.summary
    assert s.profiling_overhead_ms is not None and s.overhead_within_noise is True
    text = overhead_text(s)
    assert text is not None and text.startswith("within noise (") and "intervals overlap" in text
    assert s.median_ci_ms is not None and s.median_ci_ms[0] <= s.median_ms <= s.median_ci_ms[1]
    assert "95% CI" in median_text(s)
    layer = report.layers[0]
    assert layer.ci_ms is not None and layer.ci_ms[0] <= layer.ci_ms[1]


def test_a_real_overhead_is_shown_as_a_figure() -> None:
    plain = [10.0 + 0.01 * i for i in range(50)]
    profiled = [12.0 + 0.01 * i for i in range(50)]
    report = build_report(RUN, plain, [], profiled_passes_ms=profiled)
    assert report.summary.overhead_within_noise is False
    assert overhead_text(report.summary) == f"{report.summary.profiling_overhead_ms:+.4f} ms"
    assert report.summary.profiling_overhead_ms == pytest.approx(2.0, abs=0.02)


def test_intervals_overlap() -> None:
    assert intervals_overlap((1.0, 2.0), (2.0, 3.0)) is True
    assert intervals_overlap((1.0, 2.0), (2.5, 3.0)) is False
    assert intervals_overlap(None, (1.0, 2.0)) is None
