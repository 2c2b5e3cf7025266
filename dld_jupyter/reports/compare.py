"""Compare several reports side by side (seed 001 "Compare Inference Reports").

Each report gets a label and a colour (Okabe-Ito, safe for the common colour-vision deficiencies); every time is
also given as a difference against a chosen baseline report. Layers are matched through what they computed, not
only through their names, which differ across optimization levels and runtimes: layers match by (name, type), the
k-th occurrence of a key with the k-th in the other report, and a layer no other report names the same way is one
row with the layers of other reports that hold one of its ONNX nodes (an optimized NCHWc Conv matches the
unoptimized Conv and Relu it fused). Layers still unpaired with the baseline's are then paired through the networks'
structure (structure_pairing.py: an FP16 or QAT export names every node differently), never merging two rows
already paired. Each row says how it was paired: "name", "structure" or "unpaired".
A row's time in a report is the sum of its layers there; a row is "matched" when two or more reports have it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.report_format.errors import ReportError
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.stats import layer_sum_ms, time_by_type
from dld_jupyter.reports.structure_pairing import Structure, layer_pairs, structure_of
from dld_jupyter.reports.summary_text import target_text

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
    target: str | None = None  # where it ran: "local (host …)", "gpu-box (remote, host …)" (summary_text)


@dataclass(frozen=True)
class MatchedLayer:
    """One row: the layers of each report that computed the same ONNX nodes; None where a report lacks it."""

    name: str  # the baseline's layer names (" + " when several), else the first report's that has the row
    type: str
    occurrence: int  # k-th (name, type) in its report, for rows matched by name
    positions: list[int | None]  # position of the row's first layer in each report's layers
    times_ms: list[float | None]  # median-pass time of the row's layers in each report
    diffs_ms: list[float | None]  # time minus the baseline's time (None when either is missing)
    members: list[list[int]] = field(default_factory=list)  # every layer position of the row, per report
    paired: str = "name"  # how: "name" (layer or ONNX node names), "structure" (the networks), "unpaired"

    @property
    def matched(self) -> bool:
        """Present in two or more reports: a row that can be compared."""
        return sum(p is not None for p in self.positions) >= 2


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
    notes: list[str] = field(default_factory=list)  # why some report was paired by names only

    @property
    def matched_count(self) -> int:
        return sum(m.matched for m in self.layers)

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


Slot = tuple[int, int]  # (report, layer position)


class _Groups:
    """Union-find over the layers of every report."""

    def __init__(self) -> None:
        self.parent: dict[Slot, Slot] = {}

    def find(self, slot: Slot) -> Slot:
        root = self.parent.setdefault(slot, slot)
        while root != self.parent[root]:
            root = self.parent[root]
        while slot != root:  # path compression
            self.parent[slot], slot = root, self.parent[slot]
        return root

    def join(self, a: Slot, b: Slot) -> None:
        self.parent[self.find(a)] = self.find(b)


def _rows(reports: Sequence[Report], baseline: int, groups: _Groups) -> list[list[Slot]]:
    """Groups of layers, one per row, in the baseline's order (then what only other reports have). Layers match
    by (name, type, occurrence) first, so two runs of one engine pair up layer by layer; a layer no other report
    names the same way is joined with the layers of other reports that hold one of its ONNX nodes."""
    keyed = [_keys(r) for r in reports]
    first_with: dict[LayerKey, Slot] = {}
    for r, keys in enumerate(keyed):
        for key, pos in keys.items():
            groups.find((r, pos))
            if key in first_with:
                groups.join((r, pos), first_with[key])
            else:
                first_with[key] = (r, pos)
    named_elsewhere = {key for key in first_with if sum(key in keys for keys in keyed) > 1}
    holder: dict[str, Slot] = {}
    for r, keys in enumerate(keyed):
        for key, pos in keys.items():
            if key in named_elsewhere:
                continue
            for node in reports[r].layers[pos].onnx_nodes:
                other = holder.setdefault(node, (r, pos))
                if other[0] != r:
                    groups.join((r, pos), other)
    return _members(reports, baseline, groups)


def _members(reports: Sequence[Report], baseline: int, groups: _Groups) -> list[list[Slot]]:
    members: dict[Slot, list[Slot]] = {}
    order = [baseline] + [r for r in range(len(reports)) if r != baseline]
    for r in order:
        for pos in range(len(reports[r].layers)):
            members.setdefault(groups.find((r, pos)), []).append((r, pos))
    return list(members.values())


def _by_structure(
    reports: Sequence[Report], baseline: int, groups: _Groups, rows: list[list[Slot]],
    structures: Sequence[os.PathLike[str] | str | None], labels: Sequence[str],
) -> tuple[set[Slot], list[str]]:
    """Join the layers of each report with the baseline's through the networks' structure where names left a
    compute layer of either side unpaired; returns the joined slots and why a report could not be paired so.
    Pairs within one row already are skipped, so two runs of one model never load their models."""
    present = [{r for r, _ in row} for row in rows]
    joined: set[Slot] = set()
    notes: list[str] = []
    base_structure: Structure | str | None = None
    for r in range(len(reports)):
        if r == baseline:
            continue
        lonely = [k for k, here in enumerate(present) if (baseline in here) != (r in here)
                  and not all(reports[s[0]].layers[s[1]].overhead for s in rows[k])]
        if not lonely:
            continue
        if base_structure is None:
            base_structure = structure_of(reports[baseline], structures[baseline])
        other = structure_of(reports[r], structures[r])
        why = base_structure if isinstance(base_structure, str) else other if isinstance(other, str) else ""
        if not why and isinstance(base_structure, Structure) and isinstance(other, Structure):
            try:
                pairs = layer_pairs(reports[baseline], base_structure, reports[r], other)
            except (DocumentError, ReportError, OSError) as error:
                pairs, why = [], f"its structure could not be read ({error})"
            if not pairs and not why:
                why = f"a {base_structure.kind} and a {other.kind} cannot be paired (give both the ONNX models)"
            for b_pos, r_pos in pairs:  # a layer holding nodes of two baseline layers joins their rows, as names do
                b_slot, r_slot = (baseline, b_pos), (r, r_pos)
                if groups.find(b_slot) != groups.find(r_slot):
                    groups.join(r_slot, b_slot)
                    joined.update((b_slot, r_slot))
        if why:
            side = labels[baseline] if isinstance(base_structure, str) else labels[r]
            notes.append(f"{labels[r]}: layers paired by name only: {side}: {why}")
    return joined, notes


def _row(
    reports: Sequence[Report], slots: list[Slot], baseline: int, keyed: list[dict[int, LayerKey]], structural: bool
) -> MatchedLayer:
    count = len(reports)
    per_report: list[list[int]] = [[] for _ in range(count)]
    for r, pos in slots:
        per_report[r].append(pos)
    lead = baseline if per_report[baseline] else slots[0][0]
    layers = [reports[lead].layers[p] for p in per_report[lead]]
    times = [sum(reports[r].layers[p].median_ms for p in ps) if ps else None for r, ps in enumerate(per_report)]
    return MatchedLayer(
        name=" + ".join(layer.name for layer in layers),
        type=" + ".join(dict.fromkeys(layer.type for layer in layers)),
        occurrence=keyed[lead][per_report[lead][0]][2] if len(layers) == 1 else 0,
        positions=[ps[0] if ps else None for ps in per_report],
        times_ms=times,
        diffs_ms=[_diff(t, times[baseline]) for t in times],
        members=per_report,
        paired="unpaired" if sum(1 for ps in per_report if ps) < 2 else "structure" if structural else "name",
    )


def _diff(value: float | None, base: float | None) -> float | None:
    return None if value is None or base is None else value - base


def compare(
    reports: Sequence[Report],
    labels: Sequence[str] | None = None,
    baseline: int = 0,
    structures: Sequence[os.PathLike[str] | str | None] | None = None,
) -> Comparison:
    """Compare `reports` (at least two) against `reports[baseline]`. `structures`: per report, the ONNX model or
    TensorRT layer information to pair its layers through when names differ (None: the one the report names)."""
    if len(reports) < 2:
        raise ValueError(f"compare needs at least two reports, got {len(reports)}")
    if not 0 <= baseline < len(reports):
        raise ValueError(f"baseline {baseline} is not one of the {len(reports)} reports (0-based)")
    names = list(labels) if labels is not None else default_labels(reports)
    if len(names) != len(reports):
        raise ValueError(f"{len(names)} labels for {len(reports)} reports")
    given = list(structures) if structures is not None else [None] * len(reports)
    if len(given) != len(reports):
        raise ValueError(f"{len(given)} structures (models) for {len(reports)} reports")
    palette = colours(len(reports))
    keyed = [{pos: key for key, pos in _keys(r).items()} for r in reports]
    groups = _Groups()
    rows = _rows(reports, baseline, groups)
    joined, notes = _by_structure(reports, baseline, groups, rows, given, names)
    if joined:
        rows = _members(reports, baseline, groups)
    layers = [_row(reports, slots, baseline, keyed, any(s in joined for s in slots)) for slots in rows]
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
            target_text(r),
        )
        for i, r in enumerate(reports)
    ]
    return Comparison(names, palette, baseline, summaries, layers, _types(reports, baseline), notes)


def _types(reports: Sequence[Report], baseline: int) -> list[TypeRow]:
    per_report = [{t.type: t.total_ms for t in time_by_type(r)} for r in reports]
    kinds = sorted({k for totals in per_report for k in totals}, key=lambda k: -per_report[baseline].get(k, 0.0))
    rows = []
    for kind in kinds:
        totals = [t.get(kind, 0.0) for t in per_report]
        rows.append(TypeRow(kind, totals, [v - totals[baseline] for v in totals]))
    return rows
