"""`dld report dashboard`: the panels as text for a real CPU profile (absences said), the range, CSV of a table,
bad ranges refused with exit 2; and the HTML export carrying the dashboard section."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.main import main
from dld_jupyter.report_format.io import load_report

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dash") / "mobilenet.dld-report.json"
    assert main(["profile", str(MODEL), "--iterations", "5", "--warmup", "1", "--threads", "1", "-o", str(out)]) == 0
    return out


def test_dashboard_text_range_and_csv(report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    table = tmp_path / "types.csv"
    code = main(["report", "dashboard", str(report), "--start", "1", "--stop", "3", "--csv", str(table),
                 "--table", "op_types"])
    out = capsys.readouterr().out
    assert code == ExitCode.OK
    assert "Dashboard: mobilenet_v3_small_w05 (passes 1..3 of 5)" in out
    assert "Profiled Iterations              3" in out and "Top 10 Ops by CPU ms" in out
    assert "Not shown" in out and "CPUExecutionProvider: no GPU ran" in out
    rows = list(csv.reader(table.open()))
    layers = load_report(report).layers
    assert rows[0][:3] == ["Op Type", "Ops", "Calls"] and sum(int(r[1]) for r in rows[1:]) == len(layers)
    assert all(r[2] == str(3 * int(r[1])) for r in rows[1:])  # calls: ops x the 3 passes counted


def test_bad_range_is_bad_input(report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "dashboard", str(report), "--start", "4", "--stop", "2"]) == ExitCode.BAD_INPUT
    assert "outside the measured passes 0..4" in capsys.readouterr().err


def test_html_export_carries_the_dashboard(report: Path, tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    assert main(["report", "html", str(report), "-o", str(page)]) == ExitCode.OK
    html = page.read_text()
    assert '<section id="dashboard">' in html and "Resource Usage Breakdown" in html
    assert "Host/CPU (op time)" in html and "no GPU ran" in html


KERNELS = Path(__file__).resolve().parents[1] / "data" / "kernels" / "resnet50_fp16_b8_h100.dld-report.json"


def test_dashboard_of_the_kernel_records_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "kernels.csv"
    code = main(["report", "dashboard", str(KERNELS), "--rows", "3", "--csv", str(table), "--table", "kernels"])
    out = capsys.readouterr().out
    assert code == ExitCode.OK and "Not shown" not in out
    assert "Tensor Core Kernel Efficiency    43.4 %" in out and "GPU Idle Time" in out
    assert "Using Tensor Cores" in out and "Top 10 Ops by GPU ms" in out and "NVIDIA H100 80GB HBM3" in out
    rows = list(csv.DictReader(table.open()))
    records = load_report(KERNELS).kernels
    assert sum(int(r["Calls"]) for r in rows) == len(records)
    assert {r["Kernel Name"] for r in rows} == {k.name for k in records}
