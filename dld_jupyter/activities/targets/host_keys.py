"""Host key checking against OpenSSH's `~/.ssh/known_hosts`, as `ssh` does it, never "accept anything".

A known key passes. An unknown host is refused with its SHA256 fingerprint (`HostKeyUnknown`) unless the caller
accepts it: by giving that very fingerprint (`--accept-host-key SHA256:...`) or through a confirm callback; only
then is the key appended to known_hosts (in OpenSSH's `[host]:port` form). A host whose known key differs is
refused with OpenSSH's warning in plain words (`HostKeyChanged`), whatever the caller accepts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

from dld_jupyter.activities.errors import UnavailableError

Confirm = Callable[[str, str], bool]  # (host, "SHA256:...") -> accept?


def known_hosts_path() -> Path:
    return Path(os.path.expanduser("~")) / ".ssh" / "known_hosts"


def host_pattern(host: str, port: int) -> str:
    return host if port == 22 else f"[{host}]:{port}"


class HostKeyUnknown(UnavailableError):
    def __init__(self, host: str, port: int, fingerprint: str) -> None:
        self.host, self.port, self.fingerprint = host, port, fingerprint
        super().__init__(
            f"the authenticity of host {host_pattern(host, port)} can't be established: it is not in "
            f"{known_hosts_path()}. Its key fingerprint is {fingerprint}. Check it with the host's administrator "
            f"(`ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub` on the host), then accept it: "
            f"--accept-host-key {fingerprint} (Python: accept_host_key=...), or in the connection dialog"
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

    path: Path = field(default_factory=known_hosts_path)
    accept: str | None = None  # a fingerprint the user accepted beforehand
    confirm: Confirm | None = None  # asked for an unknown host (a dialog, a terminal question)
    refusal: UnavailableError | None = None  # set when a key was refused: the connect error becomes this

    def known_hosts(self) -> str | tuple[()]:
        """The known_hosts file for asyncssh (() when there is none); UnavailableError when it cannot be read (a
        file that is not UTF-8 text was a UnicodeDecodeError traceback)."""
        if not self.path.is_file():
            return ()
        self._read()
        return str(self.path)

    def _read(self) -> asyncssh.SSHKnownHosts:
        try:
            return asyncssh.read_known_hosts(str(self.path))
        except (UnicodeDecodeError, ValueError, OSError) as error:
            raise UnavailableError(f"{self.path} is not a readable known_hosts file ({error}); fix it (one "
                                   "`host keytype key` line per key, UTF-8 text) or move it away") from error

    def known_keys(self, host: str, addr: str, port: int) -> list[asyncssh.SSHKey]:
        if not self.path.is_file():
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
            self.refusal = HostKeyChanged(host, port, fingerprint, self.path)
            return False
        accepted = self.accept == fingerprint or (self.confirm is not None and self.confirm(host, fingerprint))
        if not accepted:
            self.refusal = HostKeyUnknown(host, port, fingerprint)
            return False
        self.remember(host, port, key)
        return True

    def remember(self, host: str, port: int, key: asyncssh.SSHKey) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        line = f"{host_pattern(host, port)} {key.export_public_key('openssh').decode().split()[0]} "
        line += key.export_public_key("openssh").decode().split()[1]
        with open(self.path, "a", encoding="utf-8") as stream:
            if stream.tell() and not self.path.read_bytes().endswith(b"\n"):
                stream.write("\n")
            stream.write(line + "\n")
