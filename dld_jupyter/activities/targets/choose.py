"""From what a user types to a Target: "local", a saved connection's name, or `ssh://user@host:port`.

The front doors (`dld --target`, `dld.profile(target=...)`, `dld targets ...`) all come through `target_named`,
so a saved connection, the command-line overrides (`--identity`, `--deploy-dir`) and an accepted host key
fingerprint mean the same everywhere. The SSH modules (and asyncssh) load only when a remote target is asked for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.activities.targets.local import LocalTarget

LOCAL_NAMES = ("", "local", "localhost")


def target_named(
    name: str | None,
    *,
    identity: str | None = None,
    deploy_dir: str | None = None,
    accept_host_key: str | None = None,
    confirm_host_key: Callable[[str, str], bool] | None = None,
    say: Callable[[str], None] | None = None,
) -> Target:
    """The target called `name` (None or "local": this machine); SpecError for an unknown name."""
    if name is None or name in LOCAL_NAMES:
        return LocalTarget()
    try:
        from dld_jupyter.activities.targets.connections import ConnectionStore
        from dld_jupyter.activities.targets.host_keys import HostKeyPolicy
        from dld_jupyter.activities.targets.ssh import SshTarget
    except ImportError as error:  # asyncssh is the [remote] extra
        raise UnavailableError(
            f"remote targets need asyncssh ({error}); install it with pip install 'dld_jupyter[remote]'"
        ) from error
    connection = ConnectionStore().resolve(name)
    changes: dict[str, Any] = {}
    if identity:
        changes.update(identity=identity, auth="key")
    if deploy_dir:
        changes["deploy_dir"] = deploy_dir
    if changes:
        connection = dataclasses.replace(connection, **changes)
    policy = HostKeyPolicy(accept=accept_host_key, confirm=confirm_host_key)
    return SshTarget(connection, policy, say=say)
