"""`dld report ...` end to end on the real TensorRT sample and a real ONNX Runtime trace."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.main import main
from dld_jupyter.report_format.io import load_report, save_report
from dld_jupyter.reports.compare import compare
from tests.reports._factory import make_report

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "trt"
PREFIX = SAMPLES / "tf-resnet50-rtx3090-fp16.engine"


@pytest.fixture
def trt_report(tmp_path: Path) -> Path:
    out = tmp_path / "trt.dld-report.json"
    code = main(["report", "import-trtexec", f"{PREFIX}.profile.json", "--layers", f"{PREFIX}.graph.json",
                 "--times", f"{PREFIX}.timing.json", "--metadata", f"{PREFIX}.profile.metadata.json",
                 "--metadata", f"{PREFIX}.build.metadata.json", "-o", str(out)])  # fmt: skip
    assert code == ExitCode.OK
    return out


def test_import_and_show(trt_report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = load_report(trt_report)
    assert len(report.layers) == 86 and report.summary.device == "NVIDIA GeForce RTX 3090"
    assert main(["report", "show", str(trt_report), "--top", "3"]) == ExitCode.OK
    out = capsys.readouterr().out
    for part in ("Network Summary", "Inference Device", "NVIDIA GeForce RTX 3090", "4.0222 ms", "Top 3 layers",
                 "Conv__435 + resnet50/conv1_relu/Relu", "Time by layer type", "CaskConvolution", "91.27",
                 "Recommendations", "[warning]"):  # fmt: skip
        assert part in out, part
    assert out.count("CaskConvolution  FP16") == 3


def test_show_opens_raw_profiles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "show", f"{PREFIX}.profile.json"]) == ExitCode.OK
    assert "CaskConvolution" in capsys.readouterr().out  # layer info found beside the profile


def test_exports(trt_report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = load_report(trt_report)
    assert main(["report", "csv", str(trt_report), "-o", str(tmp_path / "all.csv")]) == ExitCode.OK
    rows = list(csv.DictReader((tmp_path / "all.csv").open()))
    assert [r["Name"] for r in rows] == [layer.name for layer in report.layers]
    assert [float(r["Inference Time (ms)"]) for r in rows] == [layer.median_ms for layer in report.layers]
    assert main(["report", "csv", str(trt_report), "-o", str(tmp_path / "f.csv"), "--filter", "REFORMAT",
                 "--full-pass"]) == ExitCode.OK  # fmt: skip
    filtered = list(csv.DictReader((tmp_path / "f.csv").open()))
    assert len(filtered) == 26 and all("reformat" in r["Name"].lower() for r in filtered)
    assert main(["report", "html", str(trt_report), "-o", str(tmp_path / "r.html")]) == ExitCode.OK
    assert "http" not in (tmp_path / "r.html").read_text().lower()
    assert main(["report", "trace", str(trt_report), "-o", str(tmp_path / "t.json")]) == ExitCode.OK
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) == 86
    assert capsys.readouterr().out.count("wrote ") == 4


def test_compare(trt_report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    slower = load_report(trt_report)
    for layer in slower.layers:
        layer.median_ms *= 1.5
    slower.summary.median_ms *= 1.5
    other = save_report(slower, tmp_path / "slow.dld-report.json")
    assert main(["report", "compare", str(trt_report), str(other), "--baseline", "slow", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "Reports (baseline: slow)" in out and "-33.3" in out and "+0.0000" in out
    rows = len(compare([load_report(trt_report), slower]).layers)
    assert f"({rows} of {rows} rows paired: {rows} by name, 0 by structure; 0 not in every report)" in out
    assert "Conv__435 + resnet50/conv1_relu/Relu" in out  # the largest difference


def test_import_ort(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.reports.test_ort_trace import profile, small_model

    trace, model = profile(small_model(), tmp_path, runs=4)
    out = tmp_path / "ort.dld-report.json"
    assert main(["report", "import-ort", str(trace), "--model", str(model), "--warmup", "1", "-o", str(out)]) == 0
    assert "(4 layers, 3 passes)" in capsys.readouterr().out
    assert load_report(out).summary.warmup_passes == 1
    assert main(["report", "show", str(out)]) == 0
    assert "Execution Provider" in capsys.readouterr().out


def test_bad_input_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    report = save_report(make_report(3), tmp_path / "ok.dld-report.json")
    cases = [
        (["report", "show", str(tmp_path / "missing.json")], "no such report file"),
        (["report", "show", str(bad)], "not JSON"),
        (["report", "html", str(bad), "-o", str(tmp_path / "x.html")], "not JSON"),
        (["report", "compare", str(report)], "give at least two reports"),
        (["report", "compare", str(report), str(report), "--baseline", "nope"], "--baseline 'nope' is not one"),
        (["report", "import-trtexec", str(bad), "-o", str(tmp_path / "r.json")], "the profile is not JSON"),
        (["report", "import-ort", f"{PREFIX}.profile.json", "-o", str(tmp_path / "r.json")], 'no "Node" events'),
    ]
    for argv, message in cases:
        assert main(argv) == ExitCode.BAD_INPUT, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)
    assert not (tmp_path / "x.html").exists()
    with pytest.raises(SystemExit) as info:
        main(["report"])  # a command is required
    assert info.value.code == 2


def test_help_and_module_entry_point() -> None:
    done = subprocess.run([sys.executable, "-m", "dld_jupyter.cli", "report", "--help"], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0
    for command in ("show", "csv", "html", "trace", "compare", "import-trtexec", "import-ort"):
        assert command in done.stdout
