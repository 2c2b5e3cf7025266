"""The reports whose Perfetto export is pinned by tests/data/perfetto/*.pftrace.gz (test_perfetto_golden.py): the
committed H100 kernel-records report (host and CUDA stream tracks, flows, eight GPU metric counters) and the same
with a slice overlapping another on its host stream (a sibling track). `python -m tests.reports.perfetto_fixtures`
writes the golden files again, from the export as it is: run it only when a change of the trace is meant."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path

from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.model import Report, TimelineEvent
from dld_jupyter.reports.perfetto import to_perfetto

DATA = Path(__file__).resolve().parents[1] / "data"
KERNELS = DATA / "kernels" / "resnet50_fp16_b8_h100.dld-report.json"
GOLDEN = DATA / "perfetto"


def fixtures() -> dict[str, Report]:
    report = load_report(KERNELS)
    first = report.timeline[0]
    overlap = TimelineEvent(first.layer, "overlapping", first.stream, first.start_ms + first.duration_ms / 2,
                            first.duration_ms)
    return {"h100_kernels": report, "h100_overlap": dataclasses.replace(report, timeline=[*report.timeline, overlap])}


def golden(name: str) -> bytes:
    return gzip.decompress((GOLDEN / f"{name}.pftrace.gz").read_bytes())


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name, report in fixtures().items():
        (GOLDEN / f"{name}.pftrace.gz").write_bytes(gzip.compress(to_perfetto(report), mtime=0))
