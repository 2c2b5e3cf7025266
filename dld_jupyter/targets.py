"""`dld.targets`: the saved SSH targets from a notebook (`dld.targets.add(...)`, `saved()`, `remove(name)`,
`check(name)`, `login(name)`, `manage()`: the Remote Connections panel), the same file as `dld targets`;
`dld.profile(model, target="name")` runs on one."""

from __future__ import annotations

from typing import Any

from dld_jupyter.activities.targets.connections import Connection, ConnectionStore


def add(host: str, **fields: Any) -> Connection:
    """Save a connection: host, port, user, auth, identity, deploy_dir, name (no password: it is asked once)."""
    if fields.get("identity") and "auth" not in fields:
        fields["auth"] = "key"
    return ConnectionStore().add(Connection(host=host, **fields), replace=True)


def saved() -> dict[str, Connection]:
    """The saved connections by name (`dld targets list`)."""
    return ConnectionStore().load()


def remove(name: str) -> None:
    ConnectionStore().remove(name)


def check(name: str, accept_host_key: str | None = None) -> list[str]:
    """Connect to the target and return the check's lines (python, driver, runtime build, deployment)."""
    from dld_jupyter.activities.targets.choose import target_named
    from dld_jupyter.activities.targets.ssh import SshTarget

    target = target_named(name, accept_host_key=accept_host_key)
    return target.check().lines() if isinstance(target, SshTarget) else ["local: this machine"]


def login(name: str, accept_host_key: str | None = None) -> None:
    """Connect now, in this cell: a password or passphrase is asked here (once per kernel) and the connection kept,
    so runs started from a panel (another thread, where nothing can be asked) use it."""
    from dld_jupyter.activities.targets.choose import target_named
    from dld_jupyter.activities.targets.ssh import SshTarget

    target = target_named(name, accept_host_key=accept_host_key)
    if isinstance(target, SshTarget):
        target.session()


def manage(**settings: Any) -> Any:
    """The Manage Remote Connections panel (saved connections, a new one, Test connection, host keys) in this cell."""
    from dld_jupyter.widgets.runs.connections import ConnectionsPanel

    return ConnectionsPanel(**settings)
