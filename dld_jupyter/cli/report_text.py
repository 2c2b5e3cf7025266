"""What `dld report` prints: a report's summary, its top layers and recommendations, and a comparison of reports,
as plain-text tables (names shortened to fit; control characters are replaced where they are printed, echo)."""

from __future__ import annotations

from collections.abc import Sequence

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.compare import Comparison
from dld_jupyter.reports.recommendations import recommend
from dld_jupyter.reports.stats import layer_sum_ms, time_by_type, top_layers
from dld_jupyter.reports.summary_text import median_text, optional_rows, ran_on

NAME_WIDTH = 72


def _text_table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[int] = ()) -> str:
    """Plain aligned columns; `right` lists the columns to right-align (numbers)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  " + "  ".join(parts).rstrip())
    return "\n".join(lines)


def _short(name: str, width: int = NAME_WIDTH) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def format_summary(report: Report) -> str:
    s = report.summary
    spread = f"min {s.min_ms:.4f} / p90 {s.p90_ms:.4f} / max {s.max_ms:.4f} ms"
    stability = "stable" if s.stable else f"UNSTABLE: {s.stability_note}"
    rows: list[tuple[str, object]] = [
        ("Network Name", s.model),
        ("Backend", s.backend),
        *ran_on(report),
        ("Median Inference Time", f"{median_text(s)} ({spread}; {stability})"),
        ("Inference Passes", s.passes),
        ("Layers", f"{len(report.layers)} (sum of layer times {layer_sum_ms(report):.4f} ms)"),
    ]
    rows += optional_rows(s)
    return "Network Summary\n" + _text_table(("Field", "Value"), rows)


def format_report(report: Report, top: int = 10) -> str:
    """The triage of seed 000 as text: summary, top layers, time by type, recommendations."""
    slow = top_layers(report, top)
    layer_rows = [
        (layer.index, f"{layer.median_ms:.4f}", f"{layer.percent:.2f}", layer.type, layer.precision, _short(layer.name))
        for layer in slow
    ]
    type_rows = [
        (t.type, t.count, f"{t.total_ms:.4f}", f"{t.total_percent:.2f}", f"{t.mean_ms:.4f}")
        for t in sorted(time_by_type(report), key=lambda t: -t.total_ms)
    ]
    parts = [
        format_summary(report),
        f"Top {len(slow)} layers\n"
        + _text_table(("#", "Time (ms)", "Time (%)", "Type", "Precision", "Name"), layer_rows, (0, 1, 2)),
        "Time by layer type\n"
        + _text_table(("Type", "Layers", "Total (ms)", "Total (%)", "Mean (ms)"), type_rows, (1, 2, 3, 4)),
    ]
    found = recommend(report)
    if found:
        parts.append(
            "Recommendations\n" + "\n".join(f"  [{r.severity}] {r.problem}\n      -> {r.advice}" for r in found)
        )
    return "\n\n".join(parts) + "\n"


def format_comparison(result: Comparison, top: int = 10) -> str:
    base = result.labels[result.baseline]
    rows = [
        (
            r.label,
            r.model,
            r.backend,
            r.provider,
            r.target or "-",
            f"{r.median_ms:.4f}",
            f"{r.diff_ms:+.4f}",
            "" if r.diff_percent is None else f"{r.diff_percent:+.1f}",
            r.layers,
            "yes" if r.stable else "no",
        )
        for r in result.summaries
    ]
    parts = [
        f"Reports (baseline: {base})\n"
        + _text_table(
            ("Report", "Model", "Backend", "Provider", "Target", "Median (ms)", "Diff (ms)", "Diff (%)", "Layers",
             "Stable"),
            rows,
            (5, 6, 7, 8),
        ),
    ]
    matched = [m for m in result.layers if m.matched and any(d for d in m.diffs_ms if d)]
    matched.sort(key=lambda m: -max(abs(d) for d in m.diffs_ms if d is not None))
    layer_rows = [
        (_short(m.name, 56), m.type, m.paired, *("-" if t is None else f"{t:.4f}" for t in m.times_ms))
        for m in matched[:top]
    ]
    missing = sum(1 for m in result.layers if any(p is None for p in m.positions))
    how = {k: sum(1 for m in result.layers if m.paired == k) for k in ("name", "structure")}
    parts.append(
        f"Layers with the largest differences ({result.matched_count} of {len(result.layers)} rows paired: "
        f"{how['name']} by name, {how['structure']} by structure; {missing} not in every report)\n"
        + _text_table(
            ("Name", "Type", "Paired", *(f"{label} (ms)" for label in result.labels)),
            layer_rows,
            range(3, 3 + len(result.labels)),
        )
        + "".join(f"\n  note: {note}" for note in result.notes)
    )
    type_rows = [(t.type, *(f"{v:.4f}" for v in t.totals_ms)) for t in result.types]
    parts.append(
        "Time by layer type (total ms)\n"
        + _text_table(("Type", *result.labels), type_rows, range(1, 1 + len(result.labels)))
    )
    return "\n\n".join(parts) + "\n"
