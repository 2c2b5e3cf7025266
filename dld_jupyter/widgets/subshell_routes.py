"""A widget's clicks are not lost when the kernel subshell its comm was last answered on is gone.

Why: JupyterLab 4.4+ sends comm messages to a kernel subshell per comm target, and ipykernel 7 routes a comm's next
message from the browser to the subshell of the request under which that comm last published
(``BaseComm._reply_subshell_for``). A widget updated while the kernel handled the Lab sidebar's message (on the
sidebar's subshell) keeps that route; once JupyterLab deletes the subshell (the sidebar follows another tab, its comm
closes), the kernel drops every later message to the widget ("Unknown subshell_id" in the server log, nothing in the
page): a Profile button, a target drop-down, Check Model did nothing. Threads of ours that update widgets were one way
in (the run panel now updates them in the context of the click that started the run); this closes the rest at the
one place they meet: a route to a subshell that no longer exists falls back to the one the message came on.

Installed once per process when our widgets are imported; it changes nothing where ipykernel has no such route
(older versions, no subshells) and for any comm whose subshell is alive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_INSTALLED = "_dld_checks_live_subshell"


def _live_subshells() -> list[str] | None:
    """The kernel's subshell ids, or None where that cannot be known (no kernel, no subshells)."""
    from ipykernel.kernelbase import Kernel

    if not Kernel.initialized():
        return None
    manager = getattr(getattr(Kernel.instance(), "shell_channel_thread", None), "manager", None)
    listing = getattr(manager, "list_subshell", None)
    return list(listing()) if callable(listing) else None


def install() -> None:
    """Make ipykernel's comm routing fall back to the message's own subshell when the remembered one is gone."""
    try:
        from ipykernel.comm.comm import BaseComm
    except ImportError:  # not in an ipykernel: nothing routes comms
        return
    original: Callable[..., Any] | None = getattr(BaseComm, "_reply_subshell_for", None)
    if original is None or getattr(original, _INSTALLED, False):
        return

    def reply_subshell_for(self: Any, data: Any, default: Any) -> Any:
        chosen = original(self, data, default)
        if chosen is None or chosen == default:
            return chosen
        try:
            live = _live_subshells()
        except Exception:  # an ipykernel whose internals differ: keep its own answer
            return chosen
        return chosen if live is None or chosen in live else default

    setattr(reply_subshell_for, _INSTALLED, True)
    setattr(BaseComm, "_reply_subshell_for", reply_subshell_for)  # noqa: B010 (a method of ipykernel's, replaced)
