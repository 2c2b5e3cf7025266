"""`dld targets` and `dld profile --target` against the loopback sshd: saved connections, exit 3 when the target
cannot be reached, a host key accepted by fingerprint, and a profile run on the deployed target."""

from __future__ import annotations

import getpass
import io
import json
import subprocess
from pathlib import Path

import pytest

from dld_jupyter.activities.targets import ssh_session
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.cli.main import main
from tests.remote.conftest import Sshd, free_port
from tests.remote.test_ssh_target import BUNDLED


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DLD_CONFIG_DIR", str(home / "config"))
    return home


def test_add_list_remove(capsys: pytest.CaptureFixture[str], private_home: Path) -> None:
    assert main(["targets", "add", "gpu-box", "--user", "me", "--port", "2222", "--name", "gpu"]) == 0
    assert main(["targets", "list"]) == 0
    assert "gpu\tme@gpu-box:2222\tauth auto" in capsys.readouterr().out
    assert "password" not in (private_home / "config" / "targets.json").read_text()
    assert main(["targets", "remove", "gpu"]) == 0
    assert main(["targets", "remove", "gpu"]) == 2  # not saved: bad input, named


def test_unreachable_target_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["profile", str(BUNDLED), "-n", "2", "--target", f"ssh://root@127.0.0.1:{free_port()}"])
    assert code == 3
    assert "connection refused" in capsys.readouterr().err


def test_profile_with_target_url_and_accepted_key(
    deployed: SshTarget, sshd: Sshd, tmp_path: Path, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"ssh://{deployed.connection.user}@127.0.0.1:{sshd.port}"
    ssh_session.forget(deployed.connection.name)  # a new process: no connection kept, an empty known_hosts
    common = ["--identity", str(sshd.client_key), "--deploy-dir", deployed.connection.deploy_dir]
    report = tmp_path / "r.json"
    args = ["profile", str(BUNDLED), "-n", "3", "--warmup", "1", "-o", str(report), "--target", url, *common]
    assert main(args) == 3  # unknown host: refused, fingerprint shown
    assert sshd.fingerprint in capsys.readouterr().err
    assert main([*args, "--accept-host-key", sshd.fingerprint, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "succeeded"
    assert json.loads(report.read_text())["system"]["target"].endswith(f"127.0.0.1:{sshd.port}")
    assert main(["targets", "check", url, *common]) == 0  # known now: no --accept-host-key needed
    assert "worker 0.1.0: deployed" in capsys.readouterr().out


def test_doctor_lists_runtimes_and_targets(
    deployed: SshTarget, sshd: Sshd, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ssh_dir = private_home / ".ssh"
    ssh_dir.mkdir()
    (ssh_dir / "known_hosts").write_text(sshd.known_hosts_line)
    c = deployed.connection
    box = ["targets", "add", "127.0.0.1", "--port", str(sshd.port), "--user", str(c.user), "--name", "box"]
    assert main([*box, "--identity", str(c.identity), "--deploy-dir", c.deploy_dir]) == 0
    assert main(["targets", "add", "127.0.0.1", "--port", str(free_port()), "--name", "dead"]) == 0
    capsys.readouterr()
    assert main(["doctor"]) == 0  # the CPU build is installed (the test extra)
    out = capsys.readouterr().out
    assert "onnxruntime (CPU build): " in out and "providers: " in out and "CPUExecutionProvider" in out
    assert "NVML: " in out and "targets: 2 saved" in out
    assert "  box: deployed (python " in out
    assert "  dead: unreachable: " in out and "connection refused" in out


def test_export_engine_runs_on_the_target(
    deployed: SshTarget, sshd: Sshd, tmp_path: Path, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The build runs there: this loopback target has no TensorRT, so the target's own worker says so (exit 3)."""
    ssh_dir = private_home / ".ssh"
    ssh_dir.mkdir()
    (ssh_dir / "known_hosts").write_text(sshd.known_hosts_line)
    url = f"ssh://{deployed.connection.user}@127.0.0.1:{sshd.port}"
    engine = tmp_path / "model.engine"
    args = ["export-engine", str(BUNDLED), "-o", str(engine), "--target", url]
    args += ["--identity", str(sshd.client_key), "--deploy-dir", deployed.connection.deploy_dir]
    assert main(args) == 3
    assert "TensorRT" in capsys.readouterr().err
    assert not engine.exists() and not list(tmp_path.glob(".*partial"))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "code"), [("no\n", 3), ("yes\n", 0)])
def test_terminal_asks_about_an_unknown_host(
    sshd: Sshd,
    private_home: Path,
    answer: str,
    code: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"ssh://{getpass.getuser()}@127.0.0.1:{sshd.port}"
    ssh_session.forget(url[len("ssh://") :])
    monkeypatch.setattr("sys.stdin", _Terminal(answer))
    assert main(["targets", "check", url, "--identity", str(sshd.client_key)]) == code
    err = capsys.readouterr().err
    assert f"Its key fingerprint is {sshd.fingerprint}." in err
    known = private_home / ".ssh" / "known_hosts"
    found = known.exists() and subprocess.run(["ssh-keygen", "-F", f"[127.0.0.1]:{sshd.port}", "-f", str(known)],
                                              capture_output=True).returncode == 0  # hashed if ssh_config says so
    assert found == (code == 0)
    ssh_session.forget(url[len("ssh://") :])
