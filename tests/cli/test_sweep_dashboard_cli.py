"""The dashboard of a sweep: two real exports swept on the CPU, `dld report sweep DIR --dashboard` gives one column
per point (with the reason GPU rows are empty) and says no point used a GPU; the notebook's SweepView the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.activities.sweep import load_manifest
from dld_jupyter.cli.main import main
from dld_jupyter.widgets.sweep.sweep_view import open_sweep

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def test_sweep_dashboard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    models = [str(REAL / "mobilenet_v3_small_w05.onnx"), str(REAL / "bert_tiny.onnx")]
    assert main(["sweep", *models, "--iterations", "3", "--warmup", "0", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", "sweep", str(out), "--dashboard"]) == 0
    printed = capsys.readouterr().out
    ids = [p.point.id for p in load_manifest(out).points]
    assert "Dashboard per point" in printed and all(i in printed for i in ids)
    assert "GPUs\n  none: no point ran on a GPU" in printed
    table = open_sweep(out).dashboard()
    assert table.columns == ("Metric", *ids)
    rows = {row[0]: row[1:] for row in table.rows}
    assert all(isinstance(v, float) and v > 0 for v in rows["Median pass ms"])
    assert rows["GPU utilization %"] == (None, None) and all("no GPU ran" in v for v in rows["Not shown"])
    assert open_sweep(out).gpus().rows == []
