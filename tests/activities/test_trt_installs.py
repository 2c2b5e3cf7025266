"""The TensorRT version list (issue 41, seed 000 "Selecting a Version"): the installations found, each with its version
(this environment's `tensorrt` module, `trtexec` on PATH, the paths a user adds), chosen in the export and profile
forms, by `--trt VERSION|PATH`, `trt=` in Python, and listed by `dld doctor`; the chosen one is what the run names.

TensorRT cannot be installed here: a trtexec binary is a small executable on a temporary PATH printing a real
`trtexec --help` banner (tests/data/trt/trtexec-help-banners.txt), the one stand-in for a TensorRT binary; it is
really run to read its version.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
from pathlib import Path

import onnx
import pytest

import dld_jupyter as dld
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds.export_engine import export_spec
from dld_jupyter.activities.runtimes.tensorrt.dry_run import dry_run
from dld_jupyter.activities.runtimes.tensorrt.installs import (
    InstallStore,
    choose,
    find_installs,
    path_install,
    version_of_banner,
)
from dld_jupyter.cli.main import main
from dld_jupyter.document import Document
from tests import models

BANNERS = (Path(__file__).resolve().parents[1] / "data" / "trt" / "trtexec-help-banners.txt").read_text().splitlines()
TRT10, TRT8 = BANNERS


def trtexec(folder: Path, banner: str) -> Path:
    """An executable `trtexec` in `folder` that prints `banner` as real trtexec --help does, then its help."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / "trtexec"
    binary.write_text(f"#!/bin/sh\necho '{banner}'\necho '=== Model Options ==='\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """TensorRT 10.6.0's trtexec on PATH, a private cache dir, no tensorrt runtime stand-in."""
    binary = trtexec(tmp_path / "bin", TRT10)
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DLD_TENSORRT_RUNTIME", raising=False)
    return binary


@pytest.fixture
def model(tmp_path: Path) -> Path:
    source = tmp_path / "src.onnx"
    onnx.save(models.resnet_like(1), str(source))
    doc = Document.open(source)
    doc.trt.set_optimization_profile("input", [1, 3, 32, 32], [4, 3, 32, 32], [16, 3, 32, 32])
    path = tmp_path / "net.onnx"
    doc.save(path)
    return path


def test_versions_of_real_banners() -> None:
    assert version_of_banner(TRT10) == "10.6.0" and version_of_banner(TRT8) == "8.6.1"
    assert version_of_banner("&&&& RUNNING TensorRT.trtexec [TensorRT v8412] # trtexec") == "8.4.12"
    assert version_of_banner("usage: something else") is None


def test_trtexec_on_path_and_added_paths_are_found_with_their_versions(on_path: Path, tmp_path: Path) -> None:
    assert importlib.util.find_spec("tensorrt") is None  # this workplace: no module to list
    found = find_installs()
    assert [(i.source, i.path, i.version) for i in found] == [("trtexec", str(on_path), "10.6.0")]
    assert found[0].label == f"TensorRT 10.6.0 — trtexec {on_path}"
    old = trtexec(tmp_path / "TensorRT-8.6.1" / "bin", TRT8).parents[1]  # a TensorRT folder with bin/trtexec
    store = InstallStore()
    added = store.add(str(old))
    assert (added.source, added.version, added.path) == ("trtexec", "8.6.1", str(old / "bin" / "trtexec"))
    assert [i.version for i in find_installs()] == ["10.6.0", "8.6.1"]  # kept for the next listing
    store.add(str(old))
    assert store.paths() == [str(old / "bin" / "trtexec")]
    impostor = trtexec(tmp_path / "other", "hello")
    with pytest.raises(SpecError, match=r"no trtexec banner \(&&&& RUNNING TensorRT\.trtexec …\): hello"):
        store.add(str(impostor))  # what it printed instead is said
    with pytest.raises(SpecError, match="holds no tensorrt package"):
        store.add(str(tmp_path / "nowhere"))
    assert path_install(str(impostor)).problem and len(store.paths()) == 1


def test_trt_choice_sets_what_the_run_names(on_path: Path, tmp_path: Path, model: Path) -> None:
    spec = export_spec(str(model), str(tmp_path / "x.engine"), trt="10.6")
    assert (spec.settings.tensorrt, spec.settings.tensorrt_path) == ("trtexec", str(on_path))
    assert dry_run(spec)["trtexec"]["argv"][0] == str(on_path)  # the equivalent command runs this binary
    old = trtexec(tmp_path / "trt8", TRT8)
    assert path_install(str(old.parent)).path == str(old)  # the folder of a trtexec names it too
    spec = export_spec(str(model), str(tmp_path / "x.engine"), trt=str(old))
    assert dry_run(spec)["trtexec"]["argv"][0] == str(old)
    with pytest.raises(SpecError, match=r"no TensorRT 9\.1 found \(found: TensorRT 10\.6\.0 — trtexec"):
        export_spec(str(model), str(tmp_path / "x.engine"), trt="9.1")
    assert choose("10", find_installs()).version == "10.6.0"
    assert [i.version for i in dld.tensorrt_installs(add=old)] == ["10.6.0", "8.6.1"]


def test_cli_trt_option_and_doctor(on_path: Path, tmp_path: Path, model: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    engine = str(tmp_path / "x.engine")
    assert main(["export-engine", str(model), "-o", engine, "--trt", "10.6.0", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["trtexec"]["argv"][0] == str(on_path)
    assert main(["profile", str(model), "--backend", "tensorrt", "--trt", "8.6", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "no TensorRT 8.6 found" in err and "Traceback" not in err
    old = trtexec(tmp_path / "trt8", TRT8)
    assert main(["doctor", "--no-targets", "--add-trt", str(old)]) in (0, 3)  # 3: no ONNX Runtime, not ours
    out = capsys.readouterr().out
    assert f"TensorRT 10.6.0 — trtexec {on_path}" in out and f"TensorRT 8.6.1 — trtexec {old}" in out
    assert main(["profile", str(model), "--backend", "tensorrt", "--trt", "8.6", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["trtexec"]["argv"][0] == str(old)
    assert main(["doctor", "--no-targets", "--add-trt", str(tmp_path / "nowhere")]) == 2
    assert "holds no tensorrt package" in capsys.readouterr().err


def test_export_and_profile_forms_list_and_add_installs(on_path: Path, tmp_path: Path, model: Path) -> None:
    from dld_jupyter.widgets.designer.export_panel import ExportEnginePanel
    from dld_jupyter.widgets.designer.profile_panel import ProfilePanel
    from dld_jupyter.widgets.designer.trt_versions import CUSTOM

    panel = ExportEnginePanel(str(model))
    version = panel.form.version
    labels = [label for label, _key in version.dropdown.options]
    assert labels == ["this Python environment: not installed (pip install tensorrt)",
                      f"TensorRT 10.6.0 — trtexec {on_path}", "Custom path…"]
    assert panel.reason and "pip install tensorrt" in panel.reason and panel.export_button.disabled
    version.dropdown.value = f"trtexec:{on_path}"
    assert panel.show_command() is not None and panel.command.value.startswith(str(on_path))
    assert "trtexec binary is not supported" in (panel.reason or "")  # the runtime's own answer, for this one
    version.dropdown.value = CUSTOM
    assert version.path_row.layout.display == "" and panel.show_command() is None
    assert "settings.tensorrt_path" in panel.error.value
    version.path.value = str(tmp_path / "nowhere")
    assert version.add_path() is None and "holds no tensorrt package" in version.note.value
    old = trtexec(tmp_path / "trt8", TRT8)
    version.path.value = str(old)
    assert version.add_path() is not None and version.dropdown.value == f"trtexec:{old}"
    assert panel.form.settings().tensorrt_path == str(old)

    profile = ProfilePanel(str(model))  # a later form lists the added path too
    profile.backend.value = "TensorRT"
    choice = profile.trt.settings.version
    assert [label for label, _key in choice.dropdown.options][1:3] == [
        f"TensorRT 10.6.0 — trtexec {on_path}", f"TensorRT 8.6.1 — trtexec {old}"]
    choice.dropdown.value = f"trtexec:{old}"
    assert profile.refused() == profile.trt.reason and "trtexec binary" in (profile.trt.reason or "")
    spec = profile.trt.spec(str(model), None)
    assert spec.settings.tensorrt_path == str(old)


def test_on_a_remote_target_the_forms_offer_the_targets_tensorrt(on_path: Path, tmp_path: Path, model: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine's installs are not the target's: on a saved SSH target the list is the deployment's module and
    a custom folder there, checked by the run on the target (this machine has no TensorRT, it may); Find on target
    lists what it has (tests/remote/test_trt_target_installs.py, on a real sshd)."""
    from dld_jupyter.activities.targets.connections import Connection, ConnectionStore
    from dld_jupyter.widgets.designer.export_panel import ExportEnginePanel
    from dld_jupyter.widgets.designer.profile_panel import ProfilePanel
    from dld_jupyter.widgets.designer.trt_versions import CUSTOM

    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path / "config"))
    ConnectionStore().add(Connection(host="gpu-box.invalid", user="me", name="gpu-box"))
    panel = ExportEnginePanel(str(model))
    version = panel.form.version
    assert panel.export_button.disabled  # no TensorRT on this machine
    panel.target.value = "gpu-box"
    assert [label for label, _key in version.dropdown.options] == ["TensorRT of the deployment on gpu-box",
                                                                    "Custom path…"]
    assert panel.reason is None and not panel.export_button.disabled  # the target's run answers
    assert panel.form.settings().tensorrt == "python" and version.find.layout.display == ""  # Find on target
    version.dropdown.value = CUSTOM
    version.path.value = "/opt/TensorRT-10.6/python"  # on the target: not checked here
    chosen = panel.form.settings()
    assert (chosen.tensorrt, chosen.tensorrt_path) == ("path", "/opt/TensorRT-10.6/python")
    version.path.value = "TensorRT/python"
    assert panel.show_command() is None and "absolute path" in panel.error.value  # a relative one means nothing
    panel.target.value = "Local"  # back: this machine's list and answer
    assert f"TensorRT 10.6.0 — trtexec {on_path}" in [label for label, _key in version.dropdown.options]
    assert panel.export_button.disabled and version.find.layout.display == "none"

    profile = ProfilePanel(str(model))
    profile.backend.value = "TensorRT"
    assert profile.refused() is not None
    profile.target.value = "gpu-box"
    assert profile.refused() is None and not profile.run_button.disabled
