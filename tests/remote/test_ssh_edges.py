"""SSH edges against the loopback sshd (issue 36, item 8).

Before: a private key readable by other users was used (OpenSSH refuses it); `--identity /dev/zero` blocked for
20 s; eight concurrent `dld targets add` kept seven (no lock, one shared temporary name); a malformed `targets.json`
(wrong types, deep JSON) was an internal error or had its bad entries skipped, and the next add saved over them;
a `known_hosts` that is not UTF-8 was a UnicodeDecodeError; a host whose key changed to another type failed with
"Connection lost" instead of the changed-key warning.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.targets import ssh_session
from dld_jupyter.activities.targets.connections import Secrets
from dld_jupyter.activities.targets.host_keys import HostKeyChanged, HostKeyPolicy
from dld_jupyter.cli.main import main
from tests.remote.conftest import Sshd


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DLD_CONFIG_DIR", str(home / "config"))
    return home


def connect(sshd: Sshd, known: Path, name: str, **changes: object) -> None:
    ssh_session.forget(name)
    try:
        ssh_session.connect(sshd.connection(name=name, **changes), HostKeyPolicy(known), Secrets(lambda q: ""))
    finally:
        ssh_session.forget(name)


def test_a_private_key_readable_by_others_is_refused_as_openssh_does(
    sshd: Sshd, known_hosts: Path, tmp_path: Path
) -> None:
    key = tmp_path / "id_open"
    shutil.copy(sshd.client_key, key)
    for auth in ("key", "auto"):
        key.chmod(0o644)
        with pytest.raises(UnavailableError, match="UNPROTECTED PRIVATE KEY FILE! Permissions 0644") as refused:
            connect(sshd, known_hosts, f"open-key-{auth}", identity=str(key), auth=auth)
        assert f"chmod 600 '{key}'" in str(refused.value)
        key.chmod(0o600)
        connect(sshd, known_hosts, f"open-key-{auth}", identity=str(key), auth=auth)  # the same key, protected


def test_an_identity_that_is_no_file_is_refused_at_once(
    sshd: Sshd, known_hosts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    with pytest.raises(UnavailableError, match="the key /dev/zero is not a regular file"):
        connect(sshd, known_hosts, "zero-key", identity="/dev/zero")
    assert main(["targets", "add", "somewhere", "--identity", "/dev/zero"]) == 2
    assert "--identity: the key /dev/zero is not a regular file" in capsys.readouterr().err
    assert time.monotonic() - started < 5


def test_eight_concurrent_adds_keep_all_eight(private_home: Path) -> None:
    env = {**os.environ, "HOME": str(private_home), "DLD_CONFIG_DIR": str(private_home / "config")}
    adds = [subprocess.Popen([sys.executable, "-m", "dld_jupyter.cli.main", "targets", "add", f"host{i}"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for i in range(8)]
    for add in adds:
        _, err = add.communicate(timeout=120)
        assert add.returncode == 0, err.decode()
    saved = json.loads((private_home / "config" / "targets.json").read_text())["targets"]
    assert sorted(entry["host"] for entry in saved) == [f"host{i}" for i in range(8)]
    assert [p.name for p in (private_home / "config").iterdir() if p.name.endswith(".tmp")] == []


def test_concurrent_adds_in_threads_keep_every_one(private_home: Path) -> None:
    """The same race, made certain: 8 threads start together and add 5 targets each (40 saves overlapping)."""
    from dld_jupyter.activities.targets.connections import Connection, ConnectionStore

    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def adds(worker: int) -> None:
        start.wait()
        try:
            for i in range(5):
                ConnectionStore().add(Connection(host=f"h{worker}-{i}"))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=adds, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert len(ConnectionStore().load()) == 40


MALFORMED = {
    "port_text": ('{"targets": [{"host": "a", "port": "22"}]}', 'entry 0 of', "target.port: expected int or null"),
    "host_number": ('{"targets": [{"host": 5}]}', "entry 0 of", "target.host: expected str, got 5"),
    "entry_text": ('{"targets": ["gpu-box"]}', "entry 0 of", "is not an object"),
    "targets_number": ('{"targets": 5}', 'is not {"targets": [...]}', ""),
    "list": ("[1, 2]", 'is not {"targets": [...]}', ""),
    "deep": ('{"targets": ' + "[" * 100_000 + "]" * 100_000 + "}", "nests arrays and objects more than 64", ""),
    "not_utf8": (b'{"targets": [{"host": "\xff"}]}', "is unreadable", "utf-8"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_registry_is_said_and_never_replaced(
    name: str, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, *words = MALFORMED[name]
    registry = private_home / "config" / "targets.json"
    registry.parent.mkdir()
    data = text if isinstance(text, bytes) else text.encode()
    registry.write_bytes(data)
    for argv in (["targets", "list"], ["targets", "add", "other-host"], ["targets", "remove", "a"]):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, err
        assert "Traceback" not in err and "internal error" not in err and "fix or remove it" in err, err
        for word in words:
            assert word in err, err
    assert registry.read_bytes() == data  # the next add did not save over it


def test_a_known_hosts_file_that_is_not_utf8_is_said(sshd: Sshd, tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    known.write_bytes(sshd.known_hosts_line.encode() + b"\xff\xfe broken\n")
    with pytest.raises(UnavailableError, match="is not a readable known_hosts file"):
        connect(sshd, known, "bad-known-hosts")


def test_a_host_key_changed_to_another_type_gets_the_changed_key_warning(sshd: Sshd, tmp_path: Path) -> None:
    other = tmp_path / "other_rsa"
    subprocess.run(["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", str(other)], check=True)
    kind, body = other.with_suffix(".pub").read_text().split()[:2]
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{sshd.port} {kind} {body}\n")  # the host's key was RSA; it now sends ed25519
    with pytest.raises(HostKeyChanged, match="REMOTE HOST IDENTIFICATION HAS CHANGED") as refused:
        connect(sshd, known, "changed-type")
    assert sshd.fingerprint in str(refused.value)
    assert known.read_text().count("\n") == 1
