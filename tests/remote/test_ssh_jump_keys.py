"""An unknown ProxyJump host key (issue 40), through a real bastion sshd on loopback: refused with its fingerprint
and the hop named (asyncssh said only "Host key is not trusted"), accepted with that fingerprint (the CLI's
--accept-host-key, the dialog's accept) and remembered, so the next connection goes through without asking."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.activities.targets import ssh_session
from dld_jupyter.activities.targets.connections import Secrets
from dld_jupyter.activities.targets.host_keys import HostKeyPolicy, HostKeyUnknown
from dld_jupyter.cli.main import main
from tests.remote.conftest import Sshd


@pytest.fixture
def aliases(sshd: Sshd, bastion: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "known_hosts").write_text(sshd.known_hosts_line)  # the target only: the bastion is unknown
    (home / ".ssh" / "config").write_text(
        f"Host dld-bastion\n  HostName 127.0.0.1\n  Port {bastion.port}\n  IdentityFile {bastion.client_key}\n\n"
        f"Host dld-target\n  HostName 127.0.0.1\n  Port {sshd.port}\n  ProxyJump dld-bastion\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DLD_CONFIG_DIR", str(home / "config"))
    return home


def test_an_unknown_jump_host_key_is_refused_with_its_fingerprint_then_accepted(
        sshd: Sshd, bastion: Sshd, aliases: Path) -> None:
    known = aliases / ".ssh" / "known_hosts"
    connection = sshd.connection(host="dld-target", port=None, name="jump-keys")
    with pytest.raises(HostKeyUnknown) as refused:
        ssh_session.connect(connection, HostKeyPolicy(known), Secrets(lambda q: ""))
    said = str(refused.value)
    assert refused.value.fingerprint == bastion.fingerprint and "jump host dld-bastion" in said
    assert f"[127.0.0.1]:{bastion.port}" in said and f"--accept-host-key {bastion.fingerprint}" in said
    session = ssh_session.connect(connection, HostKeyPolicy(known, accept=bastion.fingerprint), Secrets(lambda q: ""))
    try:
        assert session.run("echo through")[1].strip() == "through"
    finally:
        ssh_session.forget(connection.name)
    assert f"[127.0.0.1]:{bastion.port}" in known.read_text()  # remembered: no question next time
    again = ssh_session.connect(connection, HostKeyPolicy(known), Secrets(lambda q: ""))
    ssh_session.forget(connection.name)
    assert again is not session


def test_the_cli_flag_accepts_the_jump_host(sshd: Sshd, bastion: Sshd, aliases: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["targets", "add", "dld-target", "--name", "jt", "--identity", str(sshd.client_key)]) == 0
    args = ["targets", "check", "jt"]
    ssh_session.forget("jt")
    assert main(args) != 0
    assert f"Its key fingerprint is {bastion.fingerprint}" in capsys.readouterr().err
    assert main([*args, "--accept-host-key", bastion.fingerprint]) == 0, capsys.readouterr().err
    ssh_session.forget("jt")
