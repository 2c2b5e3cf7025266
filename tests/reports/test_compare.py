"""Comparing reports: matching by (name, type), baseline differences, summary rows, colours."""

from __future__ import annotations

import copy

import pytest

from dld_jupyter.report_format.model import Layer
from dld_jupyter.reports.compare import OKABE_ITO, colours, compare, default_labels
from tests.reports._factory import make_report


def pair():
    a = make_report(10, seed=1, model="net")
    b = copy.deepcopy(a)
    for layer in b.layers:
        layer.median_ms *= 2
    b.summary.median_ms = a.summary.median_ms * 2
    b.layers.pop(3)  # only in a
    b.layers.append(Layer(10, "extra", "Conv", median_ms=0.5))  # only in b
    b.layers[0].type = "ConvFused"  # other type, same ONNX node: the same row (no other layer has its name)
    return a, b


def test_matching_and_baseline_diffs() -> None:
    a, b = pair()
    result = compare([a, b])
    assert result.labels == ["net (1)", "net (2)"] and result.baseline == 0
    by_key = {(m.name, m.type): m for m in result.layers}
    same = by_key[(a.layers[1].name, a.layers[1].type)]
    assert same.positions == [1, 1] and same.times_ms[1] == pytest.approx(2 * same.times_ms[0])
    assert same.diffs_ms == [0.0, pytest.approx(same.times_ms[0])]
    assert by_key[(a.layers[3].name, a.layers[3].type)].positions == [3, None]
    assert by_key[(a.layers[3].name, a.layers[3].type)].diffs_ms == [0.0, None]
    assert by_key[("extra", "Conv")].positions == [None, 9] and by_key[("extra", "Conv")].diffs_ms == [None, None]
    assert by_key[(a.layers[0].name, a.layers[0].type)].positions == [0, 0]
    assert [m.name for m in result.layers[: len(a.layers)]] == [layer.name for layer in a.layers]  # baseline order
    assert [m.name for m in result.only_in(1)] == ["extra"]
    assert [m.name for m in result.only_in(0)] == [a.layers[3].name]
    assert result.matched_count == len(a.layers) - 1


def test_other_baseline_and_summary_rows() -> None:
    a, b = pair()
    result = compare([a, b], labels=["fp32", "fp16"], baseline=1)
    base, other = result.summaries[1], result.summaries[0]
    assert base.diff_ms == 0 and base.diff_percent == 0
    assert other.diff_ms == pytest.approx(-a.summary.median_ms) and other.diff_percent == pytest.approx(-50.0)
    assert (other.label, other.colour, other.layers) == ("fp32", OKABE_ITO[0], 10)
    assert result.colours == [OKABE_ITO[0], OKABE_ITO[1]]
    conv = next(t for t in result.types if t.type == "Conv")
    assert conv.diffs_ms[1] == 0.0 and conv.totals_ms[0] == pytest.approx(
        sum(layer.median_ms for layer in a.layers if layer.type == "Conv")
    )


def test_repeated_names_match_by_occurrence() -> None:
    a = make_report(4)
    for layer in a.layers:
        layer.name, layer.type = "same", "Op"
    b = copy.deepcopy(a)
    b.layers.pop()
    result = compare([a, b])
    assert [m.occurrence for m in result.layers] == [0, 1, 2, 3]
    assert [m.positions for m in result.layers] == [[0, 0], [1, 1], [2, 2], [3, None]]


def test_errors_and_palette() -> None:
    a, b = pair()
    with pytest.raises(ValueError, match="at least two"):
        compare([a])
    with pytest.raises(ValueError, match="baseline 2"):
        compare([a, b], baseline=2)
    with pytest.raises(ValueError, match="1 labels for 2"):
        compare([a, b], labels=["x"])
    assert colours(10)[8] == OKABE_ITO[0] and len(set(colours(8))) == 8
    assert default_labels([make_report(1, model="x"), make_report(1, model="y")]) == ["x", "y"]


def test_layers_match_through_their_onnx_nodes_across_optimization_levels() -> None:
    """Unoptimized: Conv and Relu run as two layers; optimized: one NCHWc layer named after the Relu's output holds
    both. Matching by name gave rows with nothing to compare ("88 of 88 matched" over rows of "—")."""
    plain = make_report(3, model="net")
    plain.layers[0].name, plain.layers[0].type, plain.layers[0].onnx_nodes = "/conv/Conv", "Conv", ["/conv/Conv"]
    plain.layers[1].name, plain.layers[1].type, plain.layers[1].onnx_nodes = "/relu/Relu", "Relu", ["/relu/Relu"]
    plain.layers[2].name, plain.layers[2].type, plain.layers[2].onnx_nodes = "/fc/Gemm", "Gemm", ["/fc/Gemm"]
    fused = copy.deepcopy(plain)
    fused.layers = [
        Layer(0, "/relu/Relu_output_0_nchwc", "Conv", onnx_nodes=["/conv/Conv", "/relu/Relu"], median_ms=1.0),
        Layer(1, "ReorderOutput", "ReorderOutput", median_ms=0.1),
        Layer(2, "/fc/Gemm", "Gemm", onnx_nodes=["/fc/Gemm"], median_ms=0.5),
    ]
    result = compare([plain, fused])
    conv = result.layers[0]
    assert conv.name == "/conv/Conv + /relu/Relu" and conv.members == [[0, 1], [0]]
    assert conv.times_ms == [pytest.approx(plain.layers[0].median_ms + plain.layers[1].median_ms), 1.0]
    assert [m.name for m in result.layers] == ["/conv/Conv + /relu/Relu", "/fc/Gemm", "ReorderOutput"]
    assert result.matched_count == 2 and [m.name for m in result.only_in(1)] == ["ReorderOutput"]
