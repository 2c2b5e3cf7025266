"""The report loader refuses malformed confidence intervals (issue 31, finding 7): a report whose `median_ci_ms`
had one element passed validation (the schema types it as an array of numbers) and crashed `dld report show` and
`dld report html` with an IndexError traceback (exit 1). Every interval the views read as [low, high] is checked:
two bounds, finite, low <= high; exit 2 naming the field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dld_jupyter.cli.main import main
from dld_jupyter.report_format.io import ReportError, report_from_data

MODEL = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A real ONNX Runtime report of the bundled model (enough passes for every interval)."""
    out = tmp_path_factory.mktemp("ci") / "r.json"
    assert main(["profile", str(MODEL), "-o", str(out), "-n", "8", "--warmup", "1"]) == 0
    data: dict = json.loads(out.read_text())
    assert len(data["summary"]["median_ci_ms"]) == 2 and len(data["layers"][0]["ci_ms"]) == 2
    return data


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        ("median_ci_ms", [0.1], "an interval has two bounds"),
        ("median_ci_ms", [0.1, 0.2, 0.3], "an interval has two bounds"),
        ("median_ci_ms", [], "an interval has two bounds"),
        ("median_ci_ms", [0.3, 0.1], "the low bound is above the high bound"),
        ("profiled_median_ci_ms", [1.0], "an interval has two bounds"),
        ("layer", [0.5], "an interval has two bounds"),
        ("layer", [0.5, 0.1], "the low bound is above the high bound"),
    ],
)
def test_show_and_html_refuse_a_malformed_interval(
    where: str, value: list, words: str, good: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(json.dumps(good))
    if where == "layer":
        data["layers"][0]["ci_ms"] = value
        path = "$.layers[0].ci_ms"
    else:
        data["summary"][where] = value
        path = f"$.summary.{where}"
    report = tmp_path / "bad.json"
    report.write_text(json.dumps(data))
    for argv in (["show", str(report)], ["html", str(report), "-o", str(tmp_path / "r.html")]):
        assert main(["report", *argv]) == 2
        err = capsys.readouterr().err
        assert f"{path}: is" in err and words in err and "Traceback" not in err
    assert not (tmp_path / "r.html").exists()


def test_non_finite_bounds_are_refused_from_data(good: dict) -> None:
    data = json.loads(json.dumps(good))
    data["summary"]["median_ci_ms"] = [0.1, float("inf")]
    with pytest.raises(ReportError, match=r"median_ci_ms: is .*both bounds must be finite"):
        report_from_data(data)
    data["summary"]["median_ci_ms"] = None  # too few passes: allowed
    assert report_from_data(data).summary.median_ci_ms is None
