"""The TensorRT versions of an SSH target (issue 41, seed 000 "Selecting a Version": the system-installed TensorRT on
the target, or a custom path relative to the deployment directory there): found by running the discovery in the
target's deployment over a real sshd on loopback, listed in the export form with "Find on target", a custom path
checked there and kept here for that target. The trtexec is the one stand-in: a small executable printing a real
`trtexec --help` banner."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.tensorrt.installs import InstallStore, TrtInstall
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.target_installs import add_target_path, target_installs
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.widgets.designer.trt_versions import TrtVersionChoice
from tests.activities.test_trt_installs import TRT8, TRT10, trtexec
from tests.remote.conftest import Sshd


@pytest.fixture
def on_target(deployed: SshTarget) -> Iterator[tuple[Path, Path]]:
    """Two trtexec in a folder of the deployment (loopback: the target's files are this machine's)."""
    folder = Path(deployed.ensure_deployed().folder) / "trt-test"
    assert folder.is_absolute()
    yield trtexec(folder / "a", TRT10), trtexec(folder / "b" / "bin", TRT8)
    shutil.rmtree(folder, ignore_errors=True)


def test_the_target_lists_its_tensorrt_with_versions(deployed: SshTarget, on_target: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    ten, eight = on_target
    found = target_installs(deployed, ["trt-test/a/trtexec", "trt-test/b"])  # relative: from the deployment folder
    # nothing else: the deployment's venv has no tensorrt module, the target's PATH no trtexec
    assert found == [TrtInstall("trtexec", str(ten), "10.6.0"), TrtInstall("trtexec", str(eight), "8.6.1")]
    store = InstallStore(tmp_path, target=deployed.name)
    with pytest.raises(SpecError, match=f"TensorRT path nowhere on {deployed.name}: holds no tensorrt package"):
        add_target_path(deployed, "nowhere", store)
    assert add_target_path(deployed, "trt-test/b", store).version == "8.6.1"
    assert store.paths() == [str(eight)] and InstallStore(tmp_path).paths() == []  # kept for that target only


def test_the_export_form_finds_and_adds_on_the_target(deployed: SshTarget, on_target: tuple[Path, Path],
                                                      tmp_path: Path) -> None:
    ten, _eight = on_target
    choice = TrtVersionChoice(TrtSettings(), InstallStore(tmp_path))
    choice.use_target(deployed.name, lambda: deployed)
    assert [label for label, _key in choice.dropdown.options] == [
        f"TensorRT of the deployment on {deployed.name}", "Custom path…"]
    assert choice.find_on_target() is not None
    assert [label for label, _key in choice.dropdown.options] == [
        f"no tensorrt module — the deployment on {deployed.name}", "Custom path…"]  # no trtexec on its PATH
    choice.dropdown.value = "custom"
    choice.path.value = "trt-test/a/trtexec"
    assert choice.add_path() is not None  # checked on the target
    assert choice.dropdown.value == f"trtexec:{ten}"
    assert choice.settings() == {"tensorrt": "trtexec", "tensorrt_path": str(ten)}
    again = TrtVersionChoice(TrtSettings(), InstallStore(tmp_path))  # the next form: kept for that target
    again.use_target(deployed.name, lambda: deployed)
    again.find_on_target()
    assert f"TensorRT 10.6.0 — trtexec {ten} (on {deployed.name})" in [label for label, _ in again.dropdown.options]
    again.use_target(None)
    assert not any(str(ten) in label for label, _ in again.dropdown.options)  # not this machine's


def test_cli_trt_with_a_target_is_chosen_there(deployed: SshTarget, sshd: Sshd, on_target: tuple[Path, Path],
                                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`--trt` with `--target`: a path checked on the target (relative: from its deployment folder), a version looked
    for there, never this machine's."""
    import onnx

    from dld_jupyter.cli.main import main
    from dld_jupyter.document import Document
    from tests import models

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # a fresh user: the CLI's own known_hosts and settings
    monkeypatch.setenv("DLD_CONFIG_DIR", str(home / "config"))
    onnx.save(models.resnet_like(1), str(tmp_path / "src.onnx"))
    doc = Document.open(tmp_path / "src.onnx")
    doc.trt.set_optimization_profile("input", [1, 3, 32, 32], [4, 3, 32, 32], [16, 3, 32, 32])
    doc.save(tmp_path / "net.onnx")
    _ten, eight = on_target
    url = f"ssh://{deployed.connection.user}@127.0.0.1:{sshd.port}"
    common = ["--target", url, "--identity", str(sshd.client_key), "--deploy-dir", deployed.connection.deploy_dir,
              "--accept-host-key", sshd.fingerprint, "--dry-run", "--json"]
    export = ["export-engine", str(tmp_path / "net.onnx"), "-o", str(tmp_path / "x.engine")]
    assert main([*export, "--trt", "trt-test/b", *common]) == 0
    assert json.loads(capsys.readouterr().out)["trtexec"]["argv"][0] == str(eight)
    assert main([*export, "--trt", "8.6", *common]) == 2  # not looked for here; the target has no 8.6 listed
    assert "no TensorRT 8.6 found (found: none)" in capsys.readouterr().out


def test_python_trt_with_a_target_is_chosen_there(deployed: SshTarget, on_target: tuple[Path, Path],
                                                  tmp_path: Path) -> None:
    """`trt=` with `target=`: chosen on the target (a path there, relative to its deployment folder: it exists
    nowhere here), and the run is of that choice (a trtexec, which this backend refuses to run: it runs TensorRT's
    Python API)."""
    import onnx

    from dld_jupyter.activities.api import export_engine
    from dld_jupyter.activities.errors import UnavailableError
    from dld_jupyter.document import Document
    from tests import models

    onnx.save(models.resnet_like(1), str(tmp_path / "src.onnx"))
    doc = Document.open(tmp_path / "src.onnx")
    doc.trt.set_optimization_profile("input", [1, 3, 32, 32], [4, 3, 32, 32], [16, 3, 32, 32])
    doc.save(tmp_path / "net.onnx")
    with pytest.raises(SpecError, match="TensorRT path trt-test/none on"):
        export_engine(str(tmp_path / "net.onnx"), trt="trt-test/none", target=deployed)
    with pytest.raises(UnavailableError, match="trtexec binary is not supported"):
        export_engine(str(tmp_path / "net.onnx"), trt="trt-test/b", target=deployed)


def test_doctor_lists_a_deployed_targets_tensorrt(deployed: SshTarget, sshd: Sshd, on_target: tuple[Path, Path],
                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from dld_jupyter.cli.main import main

    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "known_hosts").write_text(sshd.known_hosts_line)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DLD_CONFIG_DIR", str(home / "config"))
    c = deployed.connection
    box = ["targets", "add", "127.0.0.1", "--port", str(sshd.port), "--user", str(c.user), "--name", "box"]
    assert main([*box, "--identity", str(c.identity), "--deploy-dir", c.deploy_dir]) == 0
    _ten, eight = on_target
    InstallStore(target="box").keep("trt-test/b")  # kept for that target (Add in the form checks it there)
    capsys.readouterr()
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "  box: deployed (python " in out and f"    TensorRT 8.6.1 — trtexec {eight}\n" in out
