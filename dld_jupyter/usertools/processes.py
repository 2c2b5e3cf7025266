"""Every process a user tool started, and ending all of them on Cancel (issue 31: a `setsid` child survived Cancel).

The tool runs in its own session, so signalling its process group ends the children that stayed in it; a child that
calls `setsid` (or `setpgid`) leaves the group and a group signal misses it. So the runner also follows the tool's
descendants through /proc (Linux): each scan walks the parent links from the tool and from every process seen
before, and adds every process of the tool's session or group. A process is remembered with its start time, so one
whose parent died (re-parented to init) is still followed, and a reused pid is never signalled. The runner scans a
few times a second while the tool runs and again at Cancel (a /proc scan of ~100 processes takes ~1.5 ms here).

Ending: SIGTERM to the group and to every known process, new descendants get theirs as they appear; after `grace`
seconds whatever is left is frozen (SIGSTOP, rescanning until no new process appears, so nothing forks away between
the scan and the kill) and killed with SIGKILL. Without /proc (macOS) the group signals alone remain.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
GONE = frozenset("ZX")  # zombie or dead: nothing left to end


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgrp: int
    session: int
    start: int  # clock ticks after boot: with the pid, names one process
    state: str


def _read(pid: int) -> Proc | None:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the command name may hold spaces and parentheses
    state, ppid, pgrp, session = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    return Proc(pid, ppid, pgrp, session, int(fields[19]), state)


def process_table() -> dict[int, Proc]:
    """Every process /proc shows now (empty without /proc)."""
    table: dict[int, Proc] = {}
    with contextlib.suppress(OSError), os.scandir(PROC) as entries:
        for entry in entries:
            if entry.name.isdigit():
                proc = _read(int(entry.name))
                if proc is not None:
                    table[proc.pid] = proc
    return table


class ProcessTree:
    """The tool (`root`, leader of its own session and group) and every process it started, as far as /proc shows."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.known: dict[int, int] = {}  # pid → start time of each process seen in the tree

    def scan(self) -> tuple[set[int], set[int]]:
        """(the tree's live processes, those among them seen for the first time)."""
        table = process_table()
        same = {pid for pid, start in self.known.items() if pid in table and table[pid].start == start}
        seeds = same | {self.root} | {p.pid for p in table.values() if self.root in (p.session, p.pgrp)}
        children: dict[int, list[int]] = {}
        for proc in table.values():
            children.setdefault(proc.ppid, []).append(proc.pid)
        found, todo = set(), [pid for pid in seeds if pid in table]
        while todo:
            pid = todo.pop()
            if pid not in found:
                found.add(pid)
                todo.extend(children.get(pid, ()))
        new = {pid for pid in found if pid not in same}
        self.known = {pid: table[pid].start for pid in found}
        live = {pid for pid in found if table[pid].state not in GONE}
        return live, new & live

    def signal(self, pids: set[int], sig: signal.Signals) -> None:
        for pid in pids:
            proc = _read(pid)
            if proc is not None and proc.start == self.known.get(pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)


def _signal_group(root: int, sig: int) -> bool:
    """Signal the tool's process group; False when the group is gone."""
    try:
        os.killpg(root, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # only processes of another user (or zombies on some systems) are left
        return True
    return True


def end_tree(tree: ProcessTree, reap: Callable[[], object], grace: float) -> None:
    """SIGTERM to the tool, its group and every descendant; SIGKILL to all that is left after `grace` seconds.
    `reap()` is called while waiting (the tool's Popen.poll), so the tool itself does not stay a zombie."""
    live, _ = tree.scan()
    _signal_group(tree.root, signal.SIGTERM)
    tree.signal(live, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        reap()
        live, new = tree.scan()
        tree.signal(new, signal.SIGTERM)  # started since: they end too
        group = _signal_group(tree.root, 0)
        if not (live if PROC.is_dir() else group):  # /proc says who is left; without it, the group does
            return
        time.sleep(0.05)
    live, _ = tree.scan()  # freeze the tree, so nothing forks away between the last scan and the kill
    tree.signal(live, signal.SIGSTOP)
    for _ in range(50):
        more, new = tree.scan()
        live |= more
        if not new:
            break
        tree.signal(new, signal.SIGSTOP)
    _signal_group(tree.root, signal.SIGKILL)
    tree.signal(live, signal.SIGKILL)
    reap()
