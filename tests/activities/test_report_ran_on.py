"""A report says where it ran (issue 42): `system.target` was in the JSON only. A real local profile's report reads
"Target: local (host …)" with its device in `dld report show`, the HTML export and the viewer's payload; a report
that names a remote target reads that name and the machine's host (tests/remote/test_report_names.py runs one on
the loopback sshd). A comparison says where each of its reports ran."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from dld_jupyter.activities import profile
from dld_jupyter.cli.main import main
from dld_jupyter.report_format.io import load_report, save_report
from dld_jupyter.reports.html_report import to_html
from dld_jupyter.reports.summary_text import ran_on, target_text
from dld_jupyter.widgets.report.report_viewer import compare_reports, show_report


def test_a_local_report_says_local_host_and_device_everywhere(
    resnet_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile(resnet_path, iterations=2, warmup=0, threads=1)
    path = resnet_path.with_name("resnet.dld-report.json")
    report = load_report(path)
    host = socket.gethostname()
    assert target_text(report) == f"local (host {host})"
    rows = dict(ran_on(report))
    assert rows["Execution Provider"] == "CPUExecutionProvider" and rows["Device"].startswith("CPU: ")
    assert main(["report", "show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert f"local (host {host})" in shown and rows["Device"] in shown
    assert f"<dt>Target</dt><dd>local (host {host})</dd>" in to_html(report)
    assert show_report(report).payload["reports"][0]["target"] == f"local (host {host})"


def test_a_report_naming_a_remote_target_reads_its_name_and_host(resnet_path: Path, tmp_path: Path) -> None:
    profile(resnet_path, iterations=2, warmup=0, threads=1)
    report = load_report(resnet_path.with_name("resnet.dld-report.json"))
    report.system.update(target="gpu-box", host="h200-3")
    assert target_text(report) == "gpu-box (remote, host h200-3)"
    del report.system["host"]
    assert target_text(report) == "gpu-box (remote)"
    del report.system["target"]
    assert target_text(report) is None and "Target" not in dict(ran_on(report))  # an import: not said, not guessed
    saved = save_report(report, tmp_path / "imported.dld-report.json")
    assert "Target" not in to_html(load_report(saved))


def test_a_comparison_of_a_local_and_a_remote_report_says_where_each_ran(
    resnet_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    local = profile(resnet_path, iterations=2, warmup=0, threads=1)
    remote = profile(resnet_path, iterations=2, warmup=0, threads=1)  # numbered: resnet-2.dld-report.json
    remote.system.update(target="gpu-box", host="h200-3")
    paths = [save_report(local, tmp_path / "local.dld-report.json"),
             save_report(remote, tmp_path / "remote.dld-report.json")]
    host = socket.gethostname()
    summaries = compare_reports(*paths).payload["compare"]["summaries"]
    assert [row["target"] for row in summaries] == [f"local (host {host})", "gpu-box (remote, host h200-3)"]
    assert main(["report", "compare", *map(str, paths), "--html", str(tmp_path / "c.html")]) == 0
    shown = capsys.readouterr().out
    assert f"local (host {host})" in shown and "gpu-box (remote, host h200-3)" in shown
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert "<th>Target</th>" in page and "<td>gpu-box (remote, host h200-3)</td>" in page
