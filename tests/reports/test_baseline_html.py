"""Layer baselines and the network metrics chart in the standalone HTML pages (issue 41, seed 001)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.cli.main import main
from dld_jupyter.reports.compare import compare
from dld_jupyter.reports.compare_html import comparison_html
from dld_jupyter.reports.html_report import to_html
from dld_jupyter.reports.trtexec import import_trtexec
from dld_jupyter.widgets.report.report_viewer import ReportViewer

TRT = Path(__file__).resolve().parents[1] / "data" / "trt" / "tf-resnet50-rtx3090-"


def _trt(build: str):  # type: ignore[no-untyped-def]
    return import_trtexec(f"{TRT}{build}.engine.profile.json", layers=f"{TRT}{build}.engine.graph.json")


def test_html_page_shows_each_baseline_layer_in_its_colour() -> None:
    report = _trt("fp16")
    page = to_html(report, baselines=[2, 4])
    section = page[page.index("<h2>Layer Baselines</h2>"):page.index("<h2>Inference Timeline")]
    for colour, layer in (("#EE6677", report.layers[2]), ("#228833", report.layers[4])):
        assert section.count(f'fill="{colour}"') == 4  # median, mean, min, max
        assert f"{layer.median_ms:.4f}" in section
    assert "Layer Baselines" not in to_html(report)


def test_comparison_page_has_the_network_metrics_chart_and_paired_rows() -> None:
    fp16, qat = _trt("fp16"), _trt("qat")
    result = compare([fp16, qat], labels=["fp16", "qat"])
    page = comparison_html([fp16, qat], result)
    chart = page[page.index("<h2>Network Metrics"):page.index("<h2>Layers")]
    assert chart.count('fill="#0072B2"') == 1 and chart.count('fill="#E69F00"') == 1  # medians; no spread measured
    assert f"{qat.summary.median_ms:.4f} ms" in chart
    assert "<td>structure</td>" in page and "<td>unpaired</td>" in page


def test_cli_html_baselines_and_compare_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dld_jupyter.report_format.io import save_report

    paths = [save_report(_trt(b), tmp_path / f"{b}.dld-report.json") for b in ("fp16", "qat")]
    assert main(["report", "html", str(paths[0]), "-o", str(tmp_path / "r.html"),
                 "--baseline-layer", "resnet50/pool1_pool/MaxPool", "--baseline-layer", "2"]) == 0
    assert (tmp_path / "r.html").read_text().count('fill="#228833"') == 4
    assert main(["report", "html", str(paths[0]), "-o", str(tmp_path / "x.html"), "--baseline-layer", "nope"]) == 2
    assert "--baseline-layer 'nope': no layer of that name" in capsys.readouterr().err
    assert main(["report", "compare", *map(str, paths), "--html", str(tmp_path / "c.html")]) == 0
    assert "Network Metrics" in (tmp_path / "c.html").read_text()


def test_viewer_baselines_from_python() -> None:
    viewer = ReportViewer([_trt("fp16")])
    assert viewer.add_baseline(2) == [2]
    assert viewer.add_baseline("resnet50/pool1_pool/MaxPool") == [2, 4]
    viewer.selection = [6, 2]
    assert viewer.add_baseline() == [2, 4, 6]
    with pytest.raises(ValueError, match="no layer named 'nope'"):
        viewer.add_baseline("nope")
    with pytest.raises(ValueError, match="not one of the 86 layers"):
        viewer.add_baseline(86)
    viewer.clear_baselines()
    assert viewer.layer_baselines == []
