"""Host keys where the ssh config says (issue 40), against a real sshd on loopback and a private HOME whose
~/.ssh/config names the host by an alias: a key found only in the config's UserKnownHostsFile connects (the product
read ~/.ssh/known_hosts alone and called the host unknown); accepting writes a hashed line there when
HashKnownHosts is yes (ssh-keygen -F finds it, and it is trusted next time); StrictHostKeyChecking yes refuses an
unknown host even with its fingerprint, accept-new takes it; a dead host is named by its resolved host and port."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

import pytest

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.targets.connections import Connection, Secrets
from dld_jupyter.activities.targets.host_keys import HostKeyPolicy
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.activities.targets.ssh_session import forget
from tests.remote.conftest import Sshd, free_port


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True, mode=0o700)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DLD_CONFIG_DIR", str(home / "config"))
    return home


def _config(home: Path, sshd: Sshd, alias: str, *lines: str, port: int | None = None) -> None:
    body = [f"Host {alias}", "  HostName 127.0.0.1", f"  Port {port or sshd.port}", f"  User {getpass.getuser()}",
            f"  IdentityFile {sshd.client_key}", *(f"  {line}" for line in lines)]
    with open(home / ".ssh" / "config", "a") as config:
        config.write("\n".join(body) + "\n")


def _connect(alias: str, policy: HostKeyPolicy | None = None) -> str:
    target = SshTarget(Connection(name=alias, host=alias), policy or HostKeyPolicy(), Secrets(lambda q: ""))
    try:
        return target.session().run("echo hi")[1].strip()
    finally:
        forget(alias)


def _found(known: Path, sshd: Sshd) -> bool:
    found = subprocess.run(["ssh-keygen", "-F", f"[127.0.0.1]:{sshd.port}", "-f", str(known)], capture_output=True,
                           text=True)
    return found.returncode == 0 and "found" in found.stdout


def test_a_key_only_in_the_configs_user_known_hosts_file_connects(home: Path, sshd: Sshd) -> None:
    (home / "elsewhere").write_text(sshd.known_hosts_line)
    _config(home, sshd, "box", "UserKnownHostsFile ~/elsewhere")
    assert not (home / ".ssh" / "known_hosts").exists()
    assert _connect("box") == "hi"


def test_accepting_writes_a_hashed_line_where_the_config_says(home: Path, sshd: Sshd) -> None:
    _config(home, sshd, "hashed", "UserKnownHostsFile ~/kh", "HashKnownHosts yes")
    with pytest.raises(UnavailableError, match=sshd.fingerprint.replace("+", r"\+")) as refused:
        _connect("hashed")
    assert f"[127.0.0.1]:{sshd.port}" in str(refused.value) and str(home / "kh") in str(refused.value)
    assert _connect("hashed", HostKeyPolicy(accept=sshd.fingerprint)) == "hi"
    line = (home / "kh").read_text()
    assert line.startswith("|1|") and "127.0.0.1" not in line
    assert _found(home / "kh", sshd)
    assert _connect("hashed") == "hi"  # trusted from the hashed line, nothing asked
    assert not (home / ".ssh" / "known_hosts").exists()


def test_strict_host_key_checking_yes_refuses_and_accept_new_takes(home: Path, sshd: Sshd) -> None:
    _config(home, sshd, "strict", "UserKnownHostsFile ~/strict_kh", "StrictHostKeyChecking yes")
    with pytest.raises(UnavailableError, match="StrictHostKeyChecking is yes"):
        _connect("strict", HostKeyPolicy(accept=sshd.fingerprint))
    assert not (home / "strict_kh").exists()
    _config(home, sshd, "new", "UserKnownHostsFile ~/new_kh", "StrictHostKeyChecking accept-new")
    assert _connect("new") == "hi"
    assert _found(home / "new_kh", sshd)  # hashed or not as the system's ssh_config says: ssh-keygen finds it


def test_a_dead_host_is_named_by_its_resolved_host_and_port(home: Path, sshd: Sshd) -> None:
    closed = free_port()
    _config(home, sshd, "dead", port=closed)
    with pytest.raises(UnavailableError, match=f"listening on 127.0.0.1 port {closed}"):
        _connect("dead")


def test_saved_names_and_the_list_say_the_configs_port(home: Path, sshd: Sshd,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from dld_jupyter.cli.main import main

    _config(home, sshd, "named")
    assert Connection(host="named").name == f"named:{sshd.port}"  # was named:22
    assert main(["targets", "add", "named"]) == 0
    capsys.readouterr()
    assert main(["targets", "list"]) == 0
    assert f"named:{sshd.port}\tnamed:{sshd.port}\t" in capsys.readouterr().out
