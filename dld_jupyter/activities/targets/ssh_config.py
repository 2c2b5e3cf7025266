"""What OpenSSH's configuration says about one host's keys and address, read as `ssh` reads it.

Why: the product passed `~/.ssh/known_hosts` to every connection, so a config's `UserKnownHostsFile` was ignored
(plain `ssh` connected, the product called the host unknown), accepted keys were appended unhashed although
`HashKnownHosts yes`, and messages said port 22 when the config said 2222. The user's `~/.ssh/config` then the
system's `/etc/ssh/ssh_config` are read with asyncssh's own parser (the one that already resolves HostName, Port,
User, IdentityFile, ProxyJump and Include for the connection), taught the two options it does not keep
(StrictHostKeyChecking, HashKnownHosts); the first value found wins, as in OpenSSH.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asyncssh.config import SSHClientConfig, SSHConfig

USER_DEFAULT = ("~/.ssh/known_hosts", "~/.ssh/known_hosts2")
GLOBAL_DEFAULT = ("/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2")
SYSTEM_CONFIG = Path("/etc/ssh/ssh_config")
STRICT = {"yes": "yes", "true": "yes", "no": "no", "false": "no", "off": "no", "ask": "ask", "accept-new": "accept-new"}


class _Config(SSHClientConfig):
    """asyncssh's client config, keeping StrictHostKeyChecking and HashKnownHosts too."""

    _handlers = {**SSHClientConfig._handlers,  # noqa: RUF012 (asyncssh's own table, extended)
                 "stricthostkeychecking": ("StrictHostKeyChecking", SSHConfig._set_string),
                 "hashknownhosts": ("HashKnownHosts", SSHConfig._set_bool)}


def user_config() -> Path:
    return Path(os.path.expanduser("~")) / ".ssh" / "config"


@dataclass(frozen=True)
class HostConfig:
    """One host as the configuration resolves it."""

    host: str  # HostName, else the name given
    port: int
    user_known_hosts: list[Path] = field(default_factory=list)  # the first one is where accepted keys go
    global_known_hosts: list[Path] = field(default_factory=list)
    strict: str = "ask"  # yes | no | ask | accept-new
    hash_known_hosts: bool = False
    jump: str | None = None  # ProxyJump: [user@]host[:port], comma-separated hops (None: none)

    @property
    def where(self) -> str:
        return f"{self.host} port {self.port}"


def _paths(value: Any, default: tuple[str, ...]) -> list[Path]:
    names = default if value is None else ([value] if isinstance(value, str) else list(value))
    return [Path(os.path.expanduser(str(name))) for name in names if str(name).lower() != "none"]


def host_config(host: str, port: int | None = None, user: str | None = None,
                files: list[Path] | None = None) -> HostConfig:
    """`host` (an alias or a name) as ~/.ssh/config and /etc/ssh/ssh_config resolve it (`files`: those instead)."""
    found = [f for f in (files if files is not None else [user_config(), SYSTEM_CONFIG]) if f.is_file()]
    local = getpass.getuser()
    try:
        config = _Config.load(None, found, False, False, False, local, user or local, host, port or ())
    except Exception:  # a config asyncssh refuses: asyncssh says so when it connects; the defaults here
        config = None

    def get(name: str) -> Any:
        return None if config is None else config.get(name)

    strict = STRICT.get(str(get("StrictHostKeyChecking") or "ask").lower(), "ask")
    return HostConfig(str(get("Hostname") or host), int(port or get("Port") or 22),
                      _paths(get("UserKnownHostsFile"), USER_DEFAULT),
                      _paths(get("GlobalKnownHostsFile"), GLOBAL_DEFAULT), strict, bool(get("HashKnownHosts")),
                      _jump(get("ProxyJump")))


def _jump(value: Any) -> str | None:
    return None if not value or str(value).lower() == "none" else str(value)
