"""A sweep's results as a table: one row per point (state, median, p90, throughput, peak memory), filters, CSV,
and the latency-vs-throughput Pareto front (the points no other point beats on both), shared by the notebook's
sweep viewer and `dld report sweep DIR`."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from dld_jupyter.activities.sweep.manifest import DONE, Manifest

COLUMNS = ("id", "model", "batch", "provider", "precision", "target", "state", "median_ms", "p90_ms",
           "throughput", "peak_memory_mb", "device", "host", "reason", "report")


def sweep_rows(manifest: Manifest, **filters: Any) -> list[dict[str, Any]]:
    """One row per point; `filters` keep rows whose column equals the value (a list: any of its values)."""
    unknown = sorted(set(filters) - set(COLUMNS))
    if unknown:
        raise ValueError(f"sweep table: unknown column(s) {unknown}; columns are {list(COLUMNS)}")
    rows = []
    for entry in manifest.points:
        point = entry.point
        row = {"id": point.id, "model": Path(point.model).stem, "batch": point.batch, "provider": point.provider,
               "precision": point.precision, "target": point.target, "state": entry.state,
               "median_ms": entry.median_ms, "p90_ms": entry.p90_ms, "throughput": entry.throughput,
               "peak_memory_mb": entry.peak_memory_mb, "device": entry.device, "host": entry.host,
               "reason": entry.reason, "report": str(manifest.folder / entry.report) if entry.report else None}
        if all(row[k] in (v if isinstance(v, (list, tuple, set)) else [v]) for k, v in filters.items()):
            rows.append(row)
    return rows


def pareto_ids(rows: list[dict[str, Any]]) -> list[str]:
    """Ids of finished points on the latency-vs-throughput front: none is both faster and higher-throughput."""
    done = [r for r in rows if r["state"] == DONE and r["median_ms"] is not None and r["throughput"] is not None]
    front = []
    for row in done:
        beaten = any(o["median_ms"] <= row["median_ms"] and o["throughput"] >= row["throughput"]
                     and (o["median_ms"], o["throughput"]) != (row["median_ms"], row["throughput"]) for o in done)
        if not beaten:
            front.append(row["id"])
    return front


def sweep_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def sweep_text(manifest: Manifest) -> str:
    """The table as aligned text (the CLI's `dld report sweep`), Pareto points starred."""
    rows = sweep_rows(manifest)
    front = set(pareto_ids(rows))

    def number(value: float | None, digits: int = 3) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    lines = [f"{'':2}{'point':<40} {'state':<15} {'median ms':>10} {'p90 ms':>10} {'items/s':>10} {'peak MB':>9}"]
    for row in rows:
        mark = "* " if row["id"] in front else "  "
        lines.append(f"{mark}{row['id']:<40} {row['state']:<15} {number(row['median_ms']):>10} "
                     f"{number(row['p90_ms']):>10} {number(row['throughput'], 1):>10} "
                     f"{number(row['peak_memory_mb'], 1):>9}" + (f"  ({row['reason']})" if row["reason"] else ""))
    counts = ", ".join(f"{n} {state}" for state, n in manifest.counts().items() if n)
    lines.append(f"{len(rows)} points: {counts}; * on the latency-vs-throughput Pareto front")
    return "\n".join(lines)
