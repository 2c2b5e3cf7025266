"""Host key checking against OpenSSH's known_hosts files, as `ssh` does it, never "accept anything".

Which files, and how strict, is what the ssh configuration says for the host (ssh_config.py: UserKnownHostsFile,
GlobalKnownHostsFile, StrictHostKeyChecking, HashKnownHosts), unless the policy is given one file (`path`). A known
key passes. An unknown host is refused with its SHA256 fingerprint (`HostKeyUnknown`) unless the caller accepts it:
by giving that very fingerprint (`--accept-host-key SHA256:...`) or through a confirm callback (never under
`StrictHostKeyChecking yes`; at once under `accept-new` or `no`); only then is the key appended to the first user
known_hosts file (in OpenSSH's `[host]:port` form, hashed as `ssh` hashes it when `HashKnownHosts yes`). A host whose
known key differs is refused with OpenSSH's warning in plain words (`HostKeyChanged`), whatever the caller accepts.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.targets.ssh_config import HostConfig

Confirm = Callable[[str, str], bool]  # (host, "SHA256:...") -> accept?


def known_hosts_path() -> Path:
    return Path(os.path.expanduser("~")) / ".ssh" / "known_hosts"


def host_pattern(host: str, port: int) -> str:
    return host if port == 22 else f"[{host}]:{port}"


def hashed_pattern(pattern: str, salt: bytes | None = None) -> str:
    """`pattern` as `ssh` writes it under HashKnownHosts: |1|base64(salt)|base64(HMAC-SHA1(salt, pattern))."""
    salt = salt if salt is not None else os.urandom(20)
    digest = hmac.new(salt, pattern.encode("utf-8"), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


class HostKeyUnknown(UnavailableError):
    def __init__(self, host: str, port: int, fingerprint: str, path: Path | None = None, strict: bool = False,
                 jump: str = "") -> None:
        self.host, self.port, self.fingerprint, self.jump = host, port, fingerprint, jump
        how = ("StrictHostKeyChecking is yes in your ssh config, so it is accepted only by adding it to known_hosts "
               "yourself (ssh-keyscan, or ssh once)") if strict else (
            f"then accept it: --accept-host-key {fingerprint} (Python: accept_host_key=...), or in the connection "
            "dialog")
        super().__init__(
            f"{f'the jump host {jump} (ProxyJump): ' if jump else ''}"
            f"the authenticity of host {host_pattern(host, port)} can't be established: it is not in "
            f"{path or known_hosts_path()}. Its key fingerprint is {fingerprint}. Check it with the host's "
            f"administrator (`ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub` on the host), {how}"
        )


class HostKeyChanged(UnavailableError):
    def __init__(self, host: str, port: int, fingerprint: str, path: Path) -> None:
        self.host, self.port, self.fingerprint = host, port, fingerprint
        super().__init__(
            f"WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED for {host_pattern(host, port)}! Someone could be "
            f"eavesdropping on you right now (man-in-the-middle attack), or the host key has just been changed. "
            f"The key it sent has fingerprint {fingerprint}, which is not the one in {path}. Connection refused. "
            f"If the change is expected, remove the old key with `ssh-keygen -R '{host_pattern(host, port)}'` "
            f"and connect again"
        )


@dataclass
class HostKeyPolicy:
    """What asyncssh's client asks about a host key it does not find among the known ones."""

    path: Path | None = None  # the one known_hosts file to use; None: the ssh config's (`configure`)
    accept: str | None = None  # a fingerprint the user accepted beforehand
    confirm: Confirm | None = None  # asked for an unknown host (a dialog, a terminal question)
    refusal: UnavailableError | None = None  # set when a key was refused: the connect error becomes this
    others: list[Path] = field(default_factory=list)  # known_hosts files read but never written (global ones)
    strict: str = "ask"  # StrictHostKeyChecking: yes | no | ask | accept-new
    hashed: bool = False  # HashKnownHosts: accepted keys written hashed
    jump: str = ""  # the ProxyJump hop this policy checks ("" for the target itself), named in refusals

    def for_jump(self, hop: str) -> HostKeyPolicy:
        """The policy of a jump host: the same file (when one was given), accepted fingerprint and question."""
        return HostKeyPolicy(self.path, self.accept, self.confirm, jump=hop)

    def configure(self, config: HostConfig) -> HostKeyPolicy:
        """Take the known_hosts files and rules the ssh config gives the host (unless a file was given)."""
        if self.path is None:
            files = config.user_known_hosts or [known_hosts_path()]
            self.path, self.others = files[0], [*files[1:], *config.global_known_hosts]
            self.strict, self.hashed = config.strict, config.hash_known_hosts
        return self

    @property
    def file(self) -> Path:
        """Where accepted keys are written."""
        return self.path or known_hosts_path()

    def _files(self) -> list[Path]:
        return [f for f in [self.file, *self.others] if f.is_file()]

    def known_hosts(self) -> asyncssh.SSHKnownHosts:
        """Every known_hosts file, read, for asyncssh (empty when there is none: asyncssh's default would read the
        config's files itself); UnavailableError when one cannot be read (a file that is not UTF-8 text was a
        UnicodeDecodeError traceback)."""
        return self._read()

    def _read(self) -> asyncssh.SSHKnownHosts:
        known = asyncssh.SSHKnownHosts()
        for file in self._files():
            try:
                known.load(file.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, ValueError, OSError) as error:
                raise UnavailableError(f"{file} is not a readable known_hosts file ({error}); fix it (one "
                                       "`host keytype key` line per key, UTF-8 text) or move it away") from error
        return known

    def known_keys(self, host: str, addr: str, port: int) -> list[asyncssh.SSHKey]:
        if not self._files():
            return []
        trusted = self._read().match(host, addr, port if port != 22 else None)[0]
        return list(trusted)

    def host_key_algs(self, host: str, port: int) -> list[str] | None:
        """The host key algorithms to offer: those of the keys known for the host first, then every other.
        asyncssh offers only the known ones, so a host whose key changed to another type failed the handshake
        ("Connection lost") instead of reaching `validate` and OpenSSH's changed-key warning. None: no known key
        (asyncssh's own choice)."""
        keys = self.known_keys(host, "", port)
        if not keys:
            return None
        from asyncssh.public_key import get_default_certificate_algs, get_default_public_key_algs

        known = [alg for key in keys for alg in key.sig_algorithms]
        algs = [*known, *get_default_certificate_algs(), *get_default_public_key_algs()]
        return [alg.decode("ascii") for alg in dict.fromkeys(algs)]

    def validate(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> bool:
        """Called for a key that known_hosts does not trust: accept it (and remember it) or record the refusal."""
        fingerprint = key.get_fingerprint("sha256")
        if self.known_keys(host, addr, port):
            self.refusal = HostKeyChanged(host, port, fingerprint, self.file)
            return False
        if self.strict == "yes":
            self.refusal = HostKeyUnknown(host, port, fingerprint, self.file, strict=True, jump=self.jump)
            return False
        accepted = (self.strict in ("accept-new", "no") or self.accept == fingerprint
                    or (self.confirm is not None and self.confirm(host, fingerprint)))
        if not accepted:
            self.refusal = HostKeyUnknown(host, port, fingerprint, self.file, jump=self.jump)
            return False
        self.remember(host, port, key)
        return True

    def remember(self, host: str, port: int, key: asyncssh.SSHKey) -> None:
        path = self.file
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        pattern = hashed_pattern(host_pattern(host, port)) if self.hashed else host_pattern(host, port)
        kind, body = key.export_public_key("openssh").decode().split()[:2]
        with open(path, "a", encoding="utf-8") as stream:
            if stream.tell() and not path.read_bytes().endswith(b"\n"):
                stream.write("\n")
            stream.write(f"{pattern} {kind} {body}\n")
