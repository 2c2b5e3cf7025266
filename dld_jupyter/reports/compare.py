"""Compare several reports side by side (seed 001 "Compare Inference Reports").

Each report gets a label and a colour (Okabe-Ito, safe for the common colour-vision deficiencies); layers are
matched by (name, type), the k-th occurrence of a key with the k-th occurrence in the other report; every time
is also given as a difference against a chosen baseline report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.stats import layer_sum_ms, time_by_type

# Okabe & Ito (2008), "Color Universal Design": distinguishable with protanopia, deuteranopia and tritanopia.
# Yellow comes late: it is hard to read on white.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")

LayerKey = tuple[str, str, int]  # (name, type, occurrence of that name and type in its report)


@dataclass(frozen=True)
class SummaryRow:
    """One report's line in the comparison summary."""

    label: str
    colour: str
    model: str
    backend: str
    provider: str
    device: str
    median_ms: float
    passes: int
    layers: int
    layer_sum_ms: float
    stable: bool
    diff_ms: float  # median_ms minus the baseline's
    diff_percent: float | None  # diff_ms in % of the baseline's median (None when that is 0)


@dataclass(frozen=True)
class MatchedLayer:
    """A layer (name, type) across the reports; None where a report lacks it."""

    name: str
    type: str
    occurrence: int
    positions: list[int | None]  # position in each report's layers
    times_ms: list[float | None]  # median-pass time in each report
    diffs_ms: list[float | None]  # time minus the baseline's time (None when either is missing)


@dataclass(frozen=True)
class TypeRow:
    """Total time of one layer type in every report (for per-report charts)."""

    type: str
    totals_ms: list[float]
    diffs_ms: list[float]


@dataclass(frozen=True)
class Comparison:
    labels: list[str]
    colours: list[str]
    baseline: int
    summaries: list[SummaryRow]
    layers: list[MatchedLayer]
    types: list[TypeRow]

    def only_in(self, position: int) -> list[MatchedLayer]:
        """Layers present in report `position` and in no other report."""
        return [
            m for m in self.layers if sum(p is not None for p in m.positions) == 1 and m.positions[position] is not None
        ]


def colours(count: int) -> list[str]:
    """`count` colours, Okabe-Ito order, repeating when there are more reports than colours."""
    return [OKABE_ITO[i % len(OKABE_ITO)] for i in range(count)]


def default_labels(reports: Sequence[Report]) -> list[str]:
    """Model names, numbered when two reports share one ("resnet (1)", "resnet (2)")."""
    names = [r.summary.model or "report" for r in reports]
    counts = {n: names.count(n) for n in names}
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(f"{name} ({seen[name]})" if counts[name] > 1 else name)
    return labels


def _keys(report: Report) -> dict[LayerKey, int]:
    seen: dict[tuple[str, str], int] = {}
    keyed: dict[LayerKey, int] = {}
    for pos, layer in enumerate(report.layers):
        k = seen.get((layer.name, layer.type), 0)
        seen[(layer.name, layer.type)] = k + 1
        keyed[(layer.name, layer.type, k)] = pos
    return keyed


def _diff(value: float | None, base: float | None) -> float | None:
    return None if value is None or base is None else value - base


def compare(reports: Sequence[Report], labels: Sequence[str] | None = None, baseline: int = 0) -> Comparison:
    """Compare `reports` (at least two) against `reports[baseline]`."""
    if len(reports) < 2:
        raise ValueError(f"compare needs at least two reports, got {len(reports)}")
    if not 0 <= baseline < len(reports):
        raise ValueError(f"baseline {baseline} is not one of the {len(reports)} reports (0-based)")
    names = list(labels) if labels is not None else default_labels(reports)
    if len(names) != len(reports):
        raise ValueError(f"{len(names)} labels for {len(reports)} reports")
    palette = colours(len(reports))
    keyed = [_keys(r) for r in reports]
    order: list[LayerKey] = list(keyed[baseline])  # baseline order first, then what only others have
    known = set(order)
    for k in keyed:
        for key in k:
            if key not in known:
                known.add(key)
                order.append(key)
    layers = []
    for key in order:
        positions = [k.get(key) for k in keyed]
        times = [None if p is None else reports[i].layers[p].median_ms for i, p in enumerate(positions)]
        diffs = [_diff(t, times[baseline]) for t in times]
        layers.append(MatchedLayer(key[0], key[1], key[2], positions, times, diffs))
    base_ms = reports[baseline].summary.median_ms
    summaries = [
        SummaryRow(
            names[i],
            palette[i],
            r.summary.model,
            r.summary.backend,
            r.summary.provider,
            r.summary.device,
            r.summary.median_ms,
            r.summary.passes,
            len(r.layers),
            layer_sum_ms(r),
            r.summary.stable,
            r.summary.median_ms - base_ms,
            100.0 * (r.summary.median_ms - base_ms) / base_ms if base_ms > 0 else None,
        )
        for i, r in enumerate(reports)
    ]
    return Comparison(names, palette, baseline, summaries, layers, _types(reports, baseline))


def _types(reports: Sequence[Report], baseline: int) -> list[TypeRow]:
    per_report = [{t.type: t.total_ms for t in time_by_type(r)} for r in reports]
    kinds = sorted({k for totals in per_report for k in totals}, key=lambda k: -per_report[baseline].get(k, 0.0))
    rows = []
    for kind in kinds:
        totals = [t.get(kind, 0.0) for t in per_report]
        rows.append(TypeRow(kind, totals, [v - totals[baseline] for v in totals]))
    return rows
