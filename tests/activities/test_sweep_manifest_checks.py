"""A sweep manifest is checked when it is loaded, and a sweep folder is used by one sweep at a time (issue 36,
item 4).

Before: a point id of `/tmp/x` or `../x` made `dld sweep --resume` write its report outside the folder, a `report`
of `/etc/hostname` with state `done` counted as finished, duplicate ids were accepted, `points: 5`, `batch: ["x"]`
and deep JSON were internal errors; two sweeps on one folder both measured every point. Now each is exit 2 naming
the point (nothing run, nothing written outside the folder), and the second sweep names the pid holding the folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.cli.main import main

RESNET8 = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
Edit = Callable[[dict[str, Any]], Any]


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sweep")
    model = folder / "m.onnx"
    model.write_bytes(RESNET8.read_bytes())
    assert main(["sweep", str(model), "--batch", "1,2", "--iterations", "1", "--warmup", "0",
                 "--out", str(folder / "out")]) == 0
    return folder / "out"


def point(data: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return data["points"][index]  # type: ignore[no-any-return]


CASES: dict[str, tuple[Edit, str]] = {
    "absolute_id": (lambda d: point(d).update(id="/tmp/dld-outside", state="failed"),
                    "point 0 has the id '/tmp/dld-outside': an id is one file name"),
    "parent_id": (lambda d: point(d).update(id="../outside", state="failed"),
                  "point 0 has the id '../outside'"),
    "duplicate_id": (lambda d: point(d, 1).update(id=point(d)["id"]), "appears twice"),
    "report_outside": (lambda d: point(d).update(report="/etc/hostname", state="done"),
                       "\"report\" is '/etc/hostname'; a report is a file name inside the sweep folder"),
    "report_parent": (lambda d: point(d).update(report="../x.json"), "\"report\" is '../x.json'"),
    "points_int": (lambda d: d.update(points=5), '"points" is int 5; expected a list of points'),
    "batch_text": (lambda d: d["grid"].update(batch=["x"]), "grid \"batch\" holds str 'x'; expected integers"),
    "point_batch_text": (lambda d: point(d).update(batch="8"), "\"batch\" is str '8'; expected an integer >= 1"),
    "model_missing": (lambda d: point(d).pop("model"), '"model" is NoneType None; expected a string'),
    "median_text": (lambda d: point(d).update(median_ms="fast"), "median_ms: expected float or null, got 'fast'"),
    "gpus_text": (lambda d: d["settings"].update(gpus="0,1"), 'settings "gpus" is str'),
    "grid_list": (lambda d: d.update(grid=[]), '"grid" is list []; expected an object'),
}


def hostile(folder: Path, tmp_path: Path, edit: Edit | None, text: str | None = None) -> Path:
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in folder.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    data = json.loads((folder / "sweep.json").read_text())
    if edit is not None:
        edit(data)
    (copy / "sweep.json").write_text(text if text is not None else json.dumps(data))
    return copy


@pytest.mark.parametrize("name", [*CASES, "deep"])
def test_a_hostile_manifest_is_refused_naming_the_point(
    name: str, sweep_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if name == "deep":
        folder = hostile(sweep_folder, tmp_path, None, '{"format": "dld-sweep", "version": 1, "grid": '
                         + "[" * 100_000 + "]" * 100_000 + "}")
        words = "nests arrays and objects more than 64 levels"
    else:
        folder = hostile(sweep_folder, tmp_path, CASES[name][0])
        words = CASES[name][1]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    for argv in (["sweep", "--resume", str(folder)], ["report", "sweep", str(folder)]):
        capsys.readouterr()
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, err
        assert words in err and "sweep.json" in err and "Traceback" not in err and "internal error" not in err, err
    assert not Path("/tmp/dld-outside.dld-report.json").exists()
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_a_second_sweep_on_a_busy_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dld_jupyter.activities.sweep.sweep import lock_folder

    model = tmp_path / "m.onnx"
    model.write_bytes(RESNET8.read_bytes())
    out = tmp_path / "out"
    argv = ["sweep", str(model), "--iterations", "100000", "--warmup", "0", "--out", str(out)]
    first = subprocess.Popen([sys.executable, "-m", "dld_jupyter.cli.main", *argv], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env={**os.environ})
    try:
        deadline = time.monotonic() + 60
        while not (out / "sweep.json").is_file() or not {'"queued"', '"running"'} & set(
                (out / "sweep.json").read_text().replace(",", " ").split()):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        started = time.monotonic()
        for second in (argv, ["sweep", "--resume", str(out)]):
            assert main(second) == 2
            err = capsys.readouterr().err
            assert f"is in use by pid {first.pid}: another sweep is running there" in err, err
        assert time.monotonic() - started < 5  # refused at once, nothing measured
        assert first.poll() is None  # the first one runs on
    finally:
        first.kill()
        first.wait()
    lock_folder(out).release()  # the kernel dropped the killed holder's lock: the folder is free again
