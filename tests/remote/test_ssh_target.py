"""Remote targets against a real OpenSSH server on loopback (fixtures in conftest): profiling on the target,
no second deployment, host keys (unknown until accepted, changed refused), ProxyJump, refused connections, cancel
and a connection lost mid-run leaving no process on the target."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.scheduler import run_activity, start_activity
from dld_jupyter.activities.targets import ssh_session
from dld_jupyter.activities.targets.connections import Secrets
from dld_jupyter.activities.targets.host_keys import HostKeyChanged, HostKeyPolicy, HostKeyUnknown
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.report_format.io import load_report
from tests.remote.conftest import Sshd, free_port, keygen

BUNDLED = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _gone(pgid: int, within: float = 15.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return True
        time.sleep(0.1)
    return False


def test_profile_on_target_then_no_redeploy(deployed: SshTarget, tmp_path: Path) -> None:
    assert deployed.info is not None
    assert any(line.startswith("deployed in") for line in deployed.deploy_lines)  # type: ignore[attr-defined]
    spec = OrtProfileSpec(model=str(BUNDLED), iterations=5, warmup=1, output=str(tmp_path / "first.json"))
    first = run_activity(spec, target=deployed, remember=False)
    assert first.ok, first.error
    report = load_report(str(tmp_path / "first.json"))
    assert report.layers  # measured on the target, which the system section names
    assert report.system["target"] == deployed.name and report.system["host"] == deployed.info.host
    lines: list[str] = []
    again = SshTarget(deployed.connection, deployed.policy, deployed.secrets, lines.append)
    started = time.monotonic()
    second = run_activity(spec.with_output(str(tmp_path / "second.json")), target=again, remember=False)
    assert second.ok, second.error
    assert not any("deployed in" in line or "staging" in line for line in lines), lines  # nothing sent again
    assert again.info is not None and again.info.deployed
    assert time.monotonic() - started < 30
    assert not list(tmp_path.glob(".*partial"))  # fetched atomically


def test_unknown_host_key_refused_until_accepted(sshd: Sshd, tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    connection = sshd.connection(name="unknown-host-test")
    with pytest.raises(HostKeyUnknown) as refused:
        ssh_session.connect(connection, HostKeyPolicy(known), Secrets(lambda q: ""))
    assert refused.value.fingerprint == sshd.fingerprint
    assert sshd.fingerprint in str(refused.value) and not known.exists()  # shown, not added
    with pytest.raises(HostKeyUnknown):  # accepting another fingerprint accepts nothing
        ssh_session.connect(connection, HostKeyPolicy(known, accept="SHA256:not-this-one"), Secrets(lambda q: ""))
    session = ssh_session.connect(connection, HostKeyPolicy(known, accept=sshd.fingerprint), Secrets(lambda q: ""))
    assert session.run("echo ok")[1].strip() == "ok"
    assert f"[127.0.0.1]:{sshd.port} ssh-ed25519 " in known.read_text()
    ssh_session.forget(connection.name)
    ssh_session.connect(connection, HostKeyPolicy(known), Secrets(lambda q: ""))  # known now: no question
    ssh_session.forget(connection.name)


def test_changed_host_key_refused(sshd: Sshd, tmp_path: Path) -> None:
    other = keygen(tmp_path / "other_host", "impostor").with_suffix(".pub").read_text().split()
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{sshd.port} {other[0]} {other[1]}\n")
    policy = HostKeyPolicy(known, accept=sshd.fingerprint, confirm=lambda host, fp: True)  # even when accepted
    with pytest.raises(HostKeyChanged, match="REMOTE HOST IDENTIFICATION HAS CHANGED") as refused:
        ssh_session.connect(sshd.connection(name="changed-key-test"), policy, Secrets(lambda q: ""))
    assert "ssh-keygen -R" in str(refused.value) and sshd.fingerprint in str(refused.value)
    assert known.read_text().count("\n") == 1  # nothing added


def test_connection_refused_says_so(sshd: Sshd, known_hosts: Path) -> None:
    connection = sshd.connection(port=free_port(), name="nobody-listens")
    with pytest.raises(UnavailableError, match="connection refused; is an SSH server listening"):
        ssh_session.connect(connection, HostKeyPolicy(known_hosts), Secrets(lambda q: ""))


def test_proxy_jump_through_a_bastion(
    sshd: Sshd, bastion: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "known_hosts").write_text(sshd.known_hosts_line + bastion.known_hosts_line)
    (home / ".ssh" / "config").write_text(
        f"Host dld-bastion\n  HostName 127.0.0.1\n  Port {bastion.port}\n  IdentityFile {bastion.client_key}\n\n"
        f"Host dld-target\n  HostName 127.0.0.1\n  Port {sshd.port}\n  ProxyJump dld-bastion\n"
    )
    monkeypatch.setenv("HOME", str(home))
    connection = sshd.connection(host="dld-target", port=None, name="via-bastion")
    before = set(bastion.children())  # (the fixture's start-up probe may still have one)
    session = ssh_session.connect(connection, HostKeyPolicy(home / ".ssh" / "known_hosts"), Secrets(lambda q: ""))
    try:
        assert session.run("echo through")[1].strip() == "through"
        assert set(bastion.children()) - before  # the connection went through the bastion
    finally:
        ssh_session.forget(connection.name)


def _long_run(deployed: SshTarget, tmp_path: Path) -> tuple[object, int]:
    spec = OrtProfileSpec(model=str(BUNDLED), iterations=100000, warmup=1, output=str(tmp_path / "long.json"))
    run = start_activity(spec, target=deployed, remember=False)
    deadline = time.monotonic() + 60
    while run.pid is None or run.progress is None:
        assert time.monotonic() < deadline and not run.done, run.result
        time.sleep(0.05)
    assert run.pid and _group_alive(run.pid)  # the remote worker's group (the target is this machine)
    return run, run.pid


def test_cancel_kills_the_remote_process_group(deployed: SshTarget, tmp_path: Path) -> None:
    run, pgid = _long_run(deployed, tmp_path)
    run.cancel()  # type: ignore[attr-defined]
    result = run.wait(60)  # type: ignore[attr-defined]
    assert result is not None and result.status is ActivityStatus.CANCELLED
    assert _gone(pgid)
    assert not (tmp_path / "long.json").exists()


def test_connection_lost_mid_run_is_an_error_and_leaves_no_process(deployed: SshTarget, tmp_path: Path) -> None:
    run, pgid = _long_run(deployed, tmp_path)
    deployed.session().conn.abort()  # the network goes away
    result = run.wait(60)  # type: ignore[attr-defined]
    assert result is not None and result.status is ActivityStatus.FAILED
    assert "was lost mid-run" in (result.error or "")
    assert _gone(pgid)  # the launcher stopped the worker when its channel closed
    again = run_activity(  # the next run connects again
        OrtProfileSpec(model=str(BUNDLED), iterations=2, warmup=1, output=str(tmp_path / "after.json")),
        target=deployed,
        remember=False,
    )
    assert again.ok, again.error


def test_offline_fallback_sends_the_wheels(offline_sshd: Sshd, tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    known.write_text(offline_sshd.known_hosts_line)
    lines: list[str] = []
    connection = offline_sshd.connection(deploy_dir=str(tmp_path / "deploy"))
    target = SshTarget(connection, HostKeyPolicy(known), Secrets(lambda q: ""), lines.append)
    info = target.ensure_deployed()
    assert any(line.startswith("online install failed") for line in lines), lines
    assert any(line.startswith("sending wheel") and "onnxruntime-" in line for line in lines), lines
    assert info.deployed and not list((tmp_path / "deploy").glob(".tmp-*"))  # renamed in, no half deployment
    spec = OrtProfileSpec(model=str(BUNDLED), iterations=2, warmup=1, output=str(tmp_path / "offline.json"))
    result = run_activity(spec, target=target, remember=False)
    assert result.ok, result.error
    ssh_session.forget(connection.name)


def test_a_new_package_version_reuses_the_environment(
    deployed: SshTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dld_jupyter.activities.targets import deploy

    data, _ = deploy.payload()
    monkeypatch.setattr(deploy, "_HASH", "another-version-of-the-package")
    monkeypatch.setattr(deploy, "_PAYLOAD", (data, "another-version-of-the-package"))
    lines: list[str] = []
    target = SshTarget(deployed.connection, deployed.policy, deployed.secrets, lines.append)
    started = time.monotonic()
    info = target.ensure_deployed()
    assert deployed.info is not None and info.folder != deployed.info.folder and info.deployed
    assert info.environment == deployed.info.environment
    assert not any("virtual environment" in line or "installing" in line for line in lines), lines
    assert time.monotonic() - started < 15  # the package files only


def test_remote_worker_crash_is_reported_with_its_signal(deployed: SshTarget, tmp_path: Path) -> None:
    import signal

    run, pgid = _long_run(deployed, tmp_path)
    os.killpg(pgid, signal.SIGSEGV)  # the runtime crashes on the target
    result = run.wait(60)  # type: ignore[attr-defined]
    assert result is not None and result.status is ActivityStatus.FAILED
    assert "killed by SIGSEGV" in (result.error or ""), result.error
    assert _gone(pgid) and not (tmp_path / "long.json").exists()
