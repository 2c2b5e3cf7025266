"""Statistics over layers: the selection summary, time and precision by layer type, name filter, top layers.

Seed 000: discrete columns (precision, type, dimensions, provider) show their most common values with the full
list by frequency; time columns show min/max/mean/total; percentages are of the sum of layer times, or of the
full pass time when the user asks. Everything here is plain Python over the report's dataclasses, fast enough
for a keystroke on 5,000 layers (see benchmarks/report_data_bench.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from dld_jupyter.report_format.model import Layer, Report


def format_dims(dims: Sequence[Sequence[int | str]]) -> str:
    """`[[1, 3, 224, 224], [64]]` -> "1x3x224x224; 64" (a scalar tensor shows as "scalar", none as "")."""
    return "; ".join("x".join(str(d) for d in tensor) if tensor else "scalar" for tensor in dims)


# Discrete columns of the layer table and how to read each from a layer.
DISCRETE_COLUMNS: dict[str, Callable[[Layer], str]] = {
    "type": lambda layer: layer.type,
    "precision": lambda layer: layer.precision,
    "provider": lambda layer: layer.provider,
    "input_dims": lambda layer: format_dims(layer.input_dims),
    "output_dims": lambda layer: format_dims(layer.output_dims),
}


@dataclass(frozen=True)
class ValueCounts:
    """A discrete column over a selection: most common value(s) and every value by descending frequency."""

    column: str
    most_common: list[str]  # all values tied for the highest count, in first-seen order
    counts: list[tuple[str, int]]  # every value, most frequent first (ties in first-seen order)


@dataclass(frozen=True)
class TimeStats:
    """A time column over a selection."""

    column: str
    count: int
    min: float
    max: float
    mean: float
    total: float


@dataclass(frozen=True)
class SelectionSummary:
    count: int
    full_pass: bool  # percentages are of the full pass time instead of the sum of layer times
    discrete: dict[str, ValueCounts]
    times: dict[str, TimeStats]  # "median_ms" (Inference Time (ms)) and "percent" (Inference Time (%))


@dataclass(frozen=True)
class TypeTime:
    """Time of one layer type (seed 000 "Average Latency per Layer Type")."""

    type: str
    count: int
    total_ms: float
    mean_ms: float
    total_percent: float  # total of the type, % of the sum of layer times
    mean_percent: float  # mean of the type, % of the sum of layer times (the chart's "View as Percentage")


@dataclass(frozen=True)
class TypePrecision:
    """Precisions of one layer type (seed 000 "Precision per Layer Type": types inside, precisions out)."""

    type: str
    count: int
    precisions: list[tuple[str, int]]  # most frequent first


def value_counts(column: str, values: Iterable[str]) -> ValueCounts:
    counts = Counter(values)  # insertion-ordered, so ties keep first-seen order under a stable sort
    ordered = sorted(counts.items(), key=lambda kv: -kv[1])
    top = ordered[0][1] if ordered else 0
    return ValueCounts(column, [v for v, n in ordered if n == top], ordered)


def time_stats(column: str, values: Sequence[float]) -> TimeStats:
    if not values:
        return TimeStats(column, 0, 0.0, 0.0, 0.0, 0.0)
    total = float(sum(values))
    return TimeStats(column, len(values), float(min(values)), float(max(values)), total / len(values), total)


def layer_sum_ms(report: Report) -> float:
    """Sum of the median-pass times of all layers: the default 100% of the percentages."""
    return float(sum(layer.median_ms for layer in report.layers))


def percent_base_ms(report: Report, full_pass: bool = False) -> float:
    """What 100% means: the sum of layer times, or with `full_pass` the median pass wall time (seed 000)."""
    if full_pass and report.summary.median_ms > 0:
        return float(report.summary.median_ms)
    return layer_sum_ms(report)


def percentages(report: Report, layers: Sequence[Layer] | None = None, full_pass: bool = False) -> list[float]:
    """Share of each layer (default all) in percent of the sum of layer times or of the full pass."""
    chosen = report.layers if layers is None else layers
    base = percent_base_ms(report, full_pass)
    if base <= 0:
        return [0.0] * len(chosen)
    return [100.0 * layer.median_ms / base for layer in chosen]


def select(report: Report, positions: Iterable[int] | None) -> list[Layer]:
    """Layers at `positions` in report.layers (None: all); out-of-range positions raise IndexError."""
    return list(report.layers) if positions is None else [report.layers[p] for p in positions]


def summarize(report: Report, positions: Iterable[int] | None = None, full_pass: bool = False) -> SelectionSummary:
    """Summary of the layers at `positions` (all layers when None)."""
    layers = select(report, positions)
    discrete = {name: value_counts(name, map(read, layers)) for name, read in DISCRETE_COLUMNS.items()}
    times = {
        "median_ms": time_stats("median_ms", [layer.median_ms for layer in layers]),
        "percent": time_stats("percent", percentages(report, layers, full_pass)),
    }
    return SelectionSummary(len(layers), full_pass, discrete, times)


def summarize_selection(report: Report, selected: Sequence[int], full_pass: bool = False) -> SelectionSummary:
    """The table's rule (seed 000): several selected rows summarize them; one or none, the whole pass."""
    return summarize(report, selected if len(selected) > 1 else None, full_pass)


def time_by_type(report: Report, layers: Sequence[Layer] | None = None) -> list[TypeTime]:
    """Per layer type: count, total and mean time, slowest mean first; % are of the sum of layer times."""
    chosen = report.layers if layers is None else layers
    totals: dict[str, list[float]] = {}
    for layer in chosen:
        totals.setdefault(layer.type, []).append(layer.median_ms)
    base = layer_sum_ms(report)
    scale = 100.0 / base if base > 0 else 0.0
    result = [
        TypeTime(kind, len(ts), sum(ts), sum(ts) / len(ts), sum(ts) * scale, sum(ts) / len(ts) * scale)
        for kind, ts in totals.items()
    ]
    return sorted(result, key=lambda t: (-t.mean_ms, t.type))


def precision_by_type(report: Report, layers: Sequence[Layer] | None = None) -> list[TypePrecision]:
    """Per layer type: how many layers run in each precision; most common type first."""
    chosen = report.layers if layers is None else layers
    per_type: dict[str, Counter[str]] = {}
    for layer in chosen:
        per_type.setdefault(layer.type, Counter())[layer.precision] += 1
    result = [TypePrecision(kind, sum(c.values()), c.most_common()) for kind, c in per_type.items()]
    return sorted(result, key=lambda t: (-t.count, t.type))


def filter_by_name(layers: Sequence[Layer], text: str) -> list[int]:
    """Positions of the layers whose name contains `text`, ignoring case (seed 000 "Filter by layer name")."""
    needle = text.casefold()
    if not needle:
        return list(range(len(layers)))
    return [i for i, layer in enumerate(layers) if needle in layer.name.casefold()]


class NameFilter:
    """`filter_by_name` with the folded names computed once, for filtering on every keystroke."""

    def __init__(self, layers: Sequence[Layer]) -> None:
        self._names = [layer.name.casefold() for layer in layers]

    def __call__(self, text: str) -> list[int]:
        needle = text.casefold()
        if not needle:
            return list(range(len(self._names)))
        return [i for i, name in enumerate(self._names) if needle in name]


def top_layers(report: Report, n: int = 10, include_overhead: bool = True) -> list[Layer]:
    """The `n` slowest layers of the median pass, slowest first (ties in inference order)."""
    chosen = [layer for layer in report.layers if include_overhead or not layer.overhead]
    return sorted(chosen, key=lambda layer: (-layer.median_ms, layer.index))[: max(n, 0)]


def overhead_ms(report: Report) -> float:
    """Time of the overhead layers (reformats, copies, NoOps, H2D/D2H) in the median pass."""
    return float(sum(layer.median_ms for layer in report.layers if layer.overhead))
