"""The sweep's Pareto chart is laid out so that every finished point and its label are inside the plot, no two
labels overlap, and names stay text (issue 42: the Plotly chart cut its right side, an fp16 point at 125 ms was
invisible, and no point said which it was)."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from dld_jupyter.reports.sweep_chart import Box, axis_for, pareto_chart, point_labels


def _rows(grid: list[tuple[int, str, float]], model: str = "mobilenet") -> list[dict[str, Any]]:
    return [{"id": f"{i:03d}-{model}-b{b}-cpu-{p}", "model": model, "batch": b, "provider": "cpu", "precision": p,
             "target": "local", "state": "done", "median_ms": ms, "throughput": b * 1000 / ms}
            for i, (b, p, ms) in enumerate(grid)]


def _check_inside(chart: Any) -> None:
    for point in chart.points:
        dot = Box(point.x - 5, point.y - 5, 10, 10)
        assert dot.inside(chart.plot), point.label
        assert point.box.inside(chart.plot), point.label
    for a, b in itertools.combinations(chart.points, 2):  # apart by a little more than touching (the text's descent)
        assert not a.box.grown(1.0).overlaps(b.box), (a.label, b.label)


def test_every_point_and_label_inside_the_plot_with_a_far_fp16_point() -> None:
    rows = _rows([(1, "fp32", 2.0), (1, "fp16", 125.0), (8, "fp32", 9.0), (8, "fp16", 118.0)])
    chart = pareto_chart(rows)
    assert chart is not None and len(chart.points) == 4
    _check_inside(chart)
    assert chart.x_axis.log  # 2 ms to 125 ms: a linear axis would pile the fp32 points on the left edge
    far = next(p for p in chart.points if p.row["median_ms"] == 125.0)
    assert far.x < chart.plot.x + chart.plot.width and far.label == "b1 fp16"
    svg = chart.svg()
    assert svg.count('class="dld-pareto-point"') == 4 and svg.count('class="dld-pareto-label"') == 4
    assert "Pareto front" in svg and 'viewbox="0 0 680 420"' in svg


@pytest.mark.parametrize("seed", range(6))
def test_crowded_grids_keep_labels_apart_and_inside(seed: int) -> None:
    import random

    pick = random.Random(seed)
    grid = [(b, p, pick.uniform(0.5, 150.0)) for b in (1, 4) for p in ("fp32", "fp16", "x", "y")]
    chart = pareto_chart(_rows(grid))
    assert chart is not None and len(chart.points) == 8
    for point in chart.points:
        assert point.box.inside(chart.plot) and chart.plot.x <= point.x <= chart.plot.x + chart.plot.width


def test_labels_name_what_differs_and_names_are_text() -> None:
    rows = _rows([(1, "fp32", 2.0), (2, "fp32", 3.0)], model="<img src=x onerror=alert(1)>")
    assert point_labels(rows) == ["b1", "b2"]
    rows += _rows([(1, "fp32", 4.0)], model="other")
    assert point_labels(rows)[-1] == "other b1"
    svg = pareto_chart(rows).svg()  # type: ignore[union-attr]
    assert "<img" not in svg and "&lt;img" in svg
    assert pareto_chart([{**rows[0], "state": "failed"}]) is None


def test_axes_hold_every_value() -> None:
    linear = axis_for([3.0, 5.0, 9.0])
    assert not linear.log and linear.low <= 3.0 and linear.high >= 9.0 and linear.low >= 0
    assert all(linear.low <= t <= linear.high for t in linear.ticks) and len(linear.ticks) >= 3
    log = axis_for([1.0, 500.0])
    assert log.log and log.low < 1.0 and log.high > 500.0 and 100.0 in log.ticks
    same = axis_for([4.0, 4.0])
    assert same.low < 4.0 < same.high
    assert re.fullmatch(r"[\d.]+", f"{linear.ticks[0]:g}")


def test_tick_labels_differ() -> None:
    rows = _rows([(1, "fp32", 0.0116), (2, "fp32", 0.0152), (4, "fp32", 0.0139)])
    svg = str(pareto_chart(rows).svg())  # type: ignore[union-attr]
    ticks = re.findall(r'text-anchor="end" font-size="12.0">([^<]+)<', svg)
    assert len(ticks) >= 3 and len(set(ticks)) == len(ticks), ticks  # "1e+05" named two ticks


def test_two_copies_of_one_model_keep_every_label_apart() -> None:
    """A sweep over a model and its copy draws each point twice at the same place (the last CI run's results tab had
    'sweep b1 fp32' over 'sweep_copy b2 fp32'): a label with no free place beside its point moves a few lines away,
    joined to it by a leader line."""
    grid = [(1, "fp32", 3.1), (2, "fp32", 3.3), (1, "fp16", 3.2), (2, "fp16", 3.4)]
    rows = _rows(grid, "sweep") + _rows(grid, "sweep_copy") + _rows(grid, "sweep_third")
    chart = pareto_chart(rows)
    assert chart is not None and len(chart.points) == 12
    _check_inside(chart)
    for point in chart.points:  # no label covers another point's dot
        for other in chart.points:
            if other is not point:
                assert not point.box.overlaps(Box(other.x - 4, other.y - 4, 8, 8)), (point.label, other.label)
    led = [p for p in chart.points if p.leader]
    assert led and chart.svg().count('class="dld-pareto-leader"') == len(led)
