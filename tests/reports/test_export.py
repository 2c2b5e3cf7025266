"""Exports: CSV rows equal the report, HTML is self-contained and escaped, the trace is valid Chrome-trace JSON."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dld_jupyter.reports.dashboard.html import dashboard_html
from dld_jupyter.reports.export import to_csv, to_html, to_trace, write_csv, write_html, write_trace
from dld_jupyter.reports.open import open_report
from dld_jupyter.reports.stats import NameFilter, format_dims
from tests.reports._factory import make_report

SEED_COLUMNS = ["#", "Name", "Type", "Input Dimensions", "Output Dimensions"]
TIMES = ["Inference Time (%)", "Inference Time (ms)"]


def parse_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_csv_rows_match_the_report(tmp_path: Path) -> None:
    report = make_report(40)
    report.layers[5].name = 'quote " comma, newline\n name'
    path = write_csv(report, tmp_path / "t.csv")
    text = path.read_text()
    header = next(csv.reader(io.StringIO(text)))
    assert header == [*SEED_COLUMNS, "Execution Provider", "Precision", *TIMES]
    rows = parse_csv(text)
    assert len(rows) == len(report.layers)
    for row, layer in zip(rows, report.layers, strict=True):
        assert int(row["#"]) == layer.index and row["Name"] == layer.name and row["Type"] == layer.type
        assert row["Input Dimensions"] == format_dims(layer.input_dims)
        assert row["Execution Provider"] == layer.provider and row["Precision"] == layer.precision
        assert float(row["Inference Time (ms)"]) == layer.median_ms  # exact: written with repr
        assert float(row["Inference Time (%)"]) == pytest.approx(layer.percent)


def test_csv_of_tensorrt_sample_filtered_and_full_pass(trt_prefix: Path) -> None:
    report = open_report(f"{trt_prefix}.profile.json")
    assert next(csv.reader(io.StringIO(to_csv(report)))) == [*SEED_COLUMNS, "Precision", *TIMES]  # no provider
    chosen = [report.layers[i] for i in NameFilter(report.layers)("conv5")]
    rows = parse_csv(to_csv(report, chosen, full_pass=True))
    assert len(rows) == len(chosen) > 0 and all("conv5" in r["Name"].lower() for r in rows)
    first = chosen[0]
    assert float(rows[0]["Inference Time (%)"]) == pytest.approx(100 * first.median_ms / report.summary.median_ms)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_self_contained_and_escaped(tmp_path: Path, trt_prefix: Path) -> None:
    report = make_report(12)
    report.layers[0].name = '<script>alert("x")</script>'
    report.layers[1].type = "<b>bold</b>"
    report.summary.model = "a&b"
    report.system = {"note": "</pre><img src=x>"}
    html = write_html(report, tmp_path / "r.html").read_text()
    assert "http" not in html.lower() and "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html and "a&amp;b" in html
    parsed = _Collector()
    parsed.feed(html)
    dash = dashboard_html(report)  # the dashboard's share bars come first (tests/reports/test_dashboard.py)
    assert parsed.tags.count("svg") == 2 + dash.count("<svg") and "table" in parsed.tags
    types = {layer.type for layer in report.layers}
    # timeline bars + one bar per type, beside the dashboard's
    assert parsed.tags.count("rect") == len(report.timeline) + len(types) + dash.count("<rect")
    assert "<script>alert" in "".join(parsed.text)  # shown to the reader as text
    # the real TensorRT sample renders too, and mentions its recommendations and overhead colour
    sample = to_html(open_report(f"{trt_prefix}.profile.json"))
    assert "http" not in sample.lower() and "FP32 inputs" in sample and "#E69F00" in sample
    assert len(re.findall(r"<tr>", sample)) > 86


def test_html_without_layers() -> None:
    report = make_report(0)
    report.timeline = []
    html = to_html(report)
    assert "No timeline in this report." in html and "No layers." in html


def test_trace_structure(tmp_path: Path) -> None:
    report = make_report(15)
    report.timeline[3].stream = 2
    report.timeline.append(report.timeline[0].__class__(-1, "H2D input copies", 0, 0.0, 0.1, True))
    path = write_trace(report, tmp_path / "t.json")
    data = json.loads(path.read_text())
    assert data["displayTimeUnit"] == "ms" and data["otherData"]["model"] == "net"
    events = data["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == len(report.timeline)
    for e, t in zip(complete, report.timeline, strict=True):
        assert e["ts"] == pytest.approx(t.start_ms * 1000) and e["dur"] == pytest.approx(t.duration_ms * 1000)
        assert e["tid"] == t.stream and e["pid"] == 1 and e["name"] == t.name
        assert e["cat"] == ("overhead" if t.overhead else "layer")
    assert complete[0]["args"]["type"] == report.layers[0].type and "type" not in complete[-1]["args"]
    threads = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert threads == {0: "Stream 0", 2: "Stream 2"}
    counters = [e for e in events if e["ph"] == "C"]
    series = report.gpu_metrics[0]
    assert [c["args"]["SM Utilization (%)"] for c in counters] == series.values
    assert [c["ts"] for c in counters] == [pytest.approx(t * 1000) for t in series.times_ms]
    assert all(isinstance(e["ts"], int | float) for e in complete + counters)
    assert to_trace(report) == data


def test_layer_table_cache_equals_fresh_rows() -> None:
    from dld_jupyter.reports.table import LayerTable, columns, rows

    report = make_report(30)
    table = LayerTable(report, full_pass=True)
    assert len(table) == 30 and table.columns == columns(report)
    assert table.rows() == rows(report, full_pass=True)
    picked = NameFilter(report.layers)("conv")
    assert table.rows(picked) == rows(report, [report.layers[p] for p in picked], full_pass=True)


@pytest.mark.parametrize(
    "name",
    ["=HYPERLINK(\"http://x\",\"y\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\tTAB", "\rCR", "=1", "-",
     "+", "-relu", "@"],
)  # fmt: skip
def test_csv_quotes_cells_that_would_start_a_formula(name: str) -> None:
    report = make_report(3)
    report.layers[1].name = name
    report.layers[1].type = name
    cells = parse_csv(to_csv(report))[1]
    assert cells["Name"] == "'" + name and cells["Type"] == "'" + name


@pytest.mark.parametrize("value", ["-0.5", "-1", "+2.5e-3", "-.5", "-1e10", "12", "0.25"])
def test_csv_leaves_plain_numbers_as_numbers(value: str) -> None:
    from dld_jupyter.reports.export import csv_cell

    assert csv_cell(value) == value


def test_csv_of_an_ordinary_report_is_unchanged_by_the_quoting() -> None:
    report = make_report(40)
    for cells in parse_csv(to_csv(report)):
        assert not any(value.startswith("'") for value in cells.values())


@pytest.mark.parametrize("writer", [write_csv, write_html, write_trace])
def test_exports_never_follow_a_symlink_planted_at_the_old_temporary_name(tmp_path: Path, writer: object) -> None:
    """The old writer used `{target}.tmp`: a symlink planted there made an export overwrite another file."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    target = tmp_path / "out.file"
    (tmp_path / "out.file.tmp").symlink_to(victim)
    assert callable(writer)
    writer(make_report(3), target)
    assert victim.read_text() == "precious" and target.stat().st_size > 0 and not target.is_symlink()
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert leftovers == ["out.file", "out.file.tmp", "victim.txt"], leftovers


def test_export_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    target = tmp_path / "t.csv"
    target.write_text("old")
    target.chmod(0o640)
    write_csv(make_report(3), target)
    assert target.stat().st_mode & 0o777 == 0o640
