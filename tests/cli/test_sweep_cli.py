"""`dld sweep`, `dld sweep --resume DIR` and `dld report sweep DIR`, run through the CLI's own main()."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.activities.sweep import load_manifest
from dld_jupyter.cli.main import main
from tests.activities import _models as models
from tests.activities.conftest import save


def test_sweep_resume_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dynamic = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "dynamic"))
    fixed = str(save(models.resnet_like(blocks=1, channels=4, size=8, batch=1), tmp_path, "fixed"))
    out = tmp_path / "out"
    code = main(["sweep", dynamic, fixed, "--batch", "1,2", "--iterations", "3", "--warmup", "0", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "003-fixed-b2-cpu-fp32: not applicable (batch 2: the model's inputs have a fixed batch" in printed
    assert "4 points: 3 done, 1 not applicable" in printed
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("*.dld-report.json")}
    assert len(stamps) == 3
    assert main(["sweep", "--resume", str(out)]) == 0
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.dld-report.json")} == stamps
    capsys.readouterr()
    assert main(["report", "sweep", str(out), "--csv", str(tmp_path / "t.csv")]) == 0
    assert "Pareto" in capsys.readouterr().out
    lines = (tmp_path / "t.csv").read_text().splitlines()
    assert lines[0].startswith("id,model,batch,provider") and len(lines) == 5
    assert main(["report", "sweep", str(out), "--chart", str(tmp_path / "pareto.svg")]) == 0
    import xml.etree.ElementTree as ET

    svg = ET.parse(tmp_path / "pareto.svg").getroot()  # a well-formed SVG file, every finished point labelled
    points = [g for g in svg.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "dld-pareto-point"]
    assert svg.get("viewBox") and len(points) == 3
    assert [p.runs for p in load_manifest(out).points][:3] == [1, 1, 1]
    none = tmp_path / "none"  # no point can run: no chart, said, nothing written
    assert main(["sweep", fixed, "--batch", "2", "--iterations", "1", "--out", str(none)]) == 0
    capsys.readouterr()
    assert main(["report", "sweep", str(none), "--chart", str(tmp_path / "none.svg")]) == 2
    assert "no point of" in capsys.readouterr().err and not (tmp_path / "none.svg").exists()


def test_bad_input_says_what(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep"]) == 2
    assert "give MODEL files, or --resume DIR" in capsys.readouterr().err
    assert main(["sweep", "--resume", str(tmp_path)]) == 2
    assert "no sweep here" in capsys.readouterr().err
    model = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))
    assert main(["sweep", model, "--batch", "1,x"]) == 2
    assert "--batch" in capsys.readouterr().err
