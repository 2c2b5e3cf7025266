"""The one door every worker run comes in through: the panels, `dld.*`, the CLI, sweep points and analysis all
start runs here (`SCHEDULER`, the process's scheduler; tests/core/test_layers.py keeps it the only place).

`submit(spec or Run)` queues a run and returns it at once (`start` does the same from a spec and callbacks, `run`
also waits for the result); a run starts when what it needs is free, in submission order, and runs that need other
things go on at the same time. What a run needs on its target (a host):
- its device ("cpu", "cuda:0": `ActivitySpec.device_key`): one run at a time per (target, device);
- the host's cores: a CPU run never runs beside a GPU run of its host, and GPU runs of several GPUs share the host.
  Why, with figures: on a lent H200 the ResNet-18 batch-32 CUDA point of `dld sweep --provider cpu,cuda` measured a
  median of 4.72 ms in one sweep and 8.86 ms (p90 9.59) in another while the CPU point of the same batch ran beside
  it, against 3.49 ms (p90 3.65) in a CUDA-only sweep; batch 8 had a p90 of 5.7 ms against 1.4. The other choice,
  pinning the CPU run to cores apart from the GPU run's launch thread, keeps the spinning intra-op threads off that
  core but not off what both share: the last-level cache, memory bandwidth and the host side of the GPU run's copies
  (2.47 ms of a 4.84 ms ResNet-18 batch-32 profiled pass on an H100 is host-device copying), and it measures the
  CPU point on fewer cores than the user's own CPU run would have. Serialising costs wall time only (a sweep's CPU
  points run after or before its GPU points, not beside them) and no measurement moves;
  benchmarks/sweep_isolation_gpu.py measures the CUDA points of a mixed sweep against a CUDA-only one.
  Interactive runs (session kinds: an analysis computes only when asked, and may stay open for hours) hold a GPU
  (its memory is theirs while they are open) but not the host's cores, and nothing on the CPU: a CPU profile queued
  behind an open analysis would wait for as long as the panel stays open.
- across processes, the same through lock files (`host_locks.py`): a GPU run holds its GPU's lock, every run its
  share of the host's cores; a run whose lock another process holds waits, queued, and says so in its log.
A run submitted with `anywhere` (a sweep point that may go on any of several GPUs) takes the first of those devices
that is free. A run submitted `within` another (the analysis's own layer-timings profile, on the GPU the analysis
holds) may use what that run holds, ahead of the queue. Once a GPU run of this host holds its GPU, NVML is asked
about processes dld did not start there, before and during the run (`gpu_watch.py`: warned, or waited for, or
refused as its `foreign` policy says; recorded in the report): every GPU run, whichever front door started it.
`before_start(run)` runs in the run's thread after that check and before its worker starts (a sweep's clock
locking); an exception there fails the run.
Cancelling a queued run takes it out of the queue; the next ones start when a run ends, however it ends.
Every run is told to the watchers (`watch_runs`: the live runs registry of the front doors) when it is submitted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dld_jupyter.activities.command_line import CommandLine
from dld_jupyter.activities.engine import execute
from dld_jupyter.activities.errors import FAILED
from dld_jupyter.activities.gpu_watch import WARN, ForeignPolicy, GpuWatch, watch_for
from dld_jupyter.activities.host_locks import EXCLUSIVE, SHARED, Held, HostLocks
from dld_jupyter.activities.result import ActivityResult, ActivityStatus
from dld_jupyter.activities.run import LogCallback, ProgressCallback, Run
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.activities.targets.local import LocalTarget

__all__ = ["SCHEDULER", "Scheduler", "run_activity", "start_activity", "watch_runs"]

RETRY_S = 0.2  # how often a run waiting for another process's lock tries again
KEEP_ENDED = 50  # ended runs `runs()` still lists: a kernel that lives for days does not keep every log
BeforeStart = Callable[[Run], None]

_WATCHERS: list[Callable[[Any], object]] = []


def watch_runs(watcher: Callable[[Any], object]) -> Callable[[], None]:
    """Call `watcher(run)` for every run submitted from now on (a Run, or a run group: group.py); returns the
    function that unsubscribes."""
    _WATCHERS.append(watcher)
    return lambda: _WATCHERS.remove(watcher) if watcher in _WATCHERS else None


def announce(run: object) -> None:
    """Tell the watchers about a new run (the scheduler, and a run group when it starts)."""
    for watcher in list(_WATCHERS):
        with contextlib.suppress(Exception):  # a broken watcher must not stop the run
            watcher(run)


def host_share(spec: ActivitySpec) -> str | None:
    """What a run of `spec` holds of its host's cores: EXCLUSIVE (CPU), SHARED (GPU), None (interactive)."""
    if spec.INTERACTIVE:
        return None
    return EXCLUSIVE if spec.device_key() == "cpu" else SHARED


@dataclass
class _Entry:
    run: Run
    choices: list[ActivitySpec]  # the specs it may run as, one per device (one unless submitted `anywhere`)
    before: BeforeStart | None
    within: Run | None = None
    foreign: ForeignPolicy = WARN
    held: Held | None = None
    said: str = ""  # what its log was last told it waits for
    devices: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.devices = [spec.device_key() for spec in self.choices]


def _conflict(a: ActivitySpec, a_target: str, b: ActivitySpec, b_target: str) -> bool:
    if a_target != b_target:
        return False
    if any(spec.INTERACTIVE and spec.device_key() == "cpu" for spec in (a, b)):  # a CPU session holds nothing
        return False
    if a.device_key() == b.device_key():
        return True
    return {host_share(a), host_share(b)} == {EXCLUSIVE, SHARED}  # a CPU run beside a GPU run of one host


class Scheduler:
    """See the module docstring. `execute` is the engine's and `locks` the host's (a test may pass its own)."""

    def __init__(self, execute: Callable[[Run], ActivityResult] = execute, locks: HostLocks | None = None) -> None:
        self._execute = execute
        self.locks = locks or HostLocks()
        self._lock = threading.RLock()
        self._queued: list[_Entry] = []
        self._running: dict[str, _Entry] = {}  # run id -> entry
        self._runs: list[Run] = []
        self._retry: threading.Timer | None = None

    # -- the door --------------------------------------------------------------------------------------------------
    def submit(
        self,
        spec_or_run: ActivitySpec | Run,
        *,
        anywhere: Sequence[ActivitySpec] = (),
        before_start: BeforeStart | None = None,
        within: Run | None = None,
        foreign: ForeignPolicy = WARN,
    ) -> Run:
        """Queue a spec (a Run on the local target) or a Run made with its target and callbacks; it starts as soon
        as what it needs is free. `anywhere`: the specs it may run as instead, one per device (the first free wins);
        `foreign`: what a GPU run does about another process on its GPU (`gpu_watch.ForeignPolicy`)."""
        run = spec_or_run if isinstance(spec_or_run, Run) else Run(spec_or_run)
        choices = [spec.resolved() for spec in anywhere] or [run.spec]
        entry = _Entry(run, choices, before_start, within, foreign)
        with self._lock:
            self._runs.append(run)
            self._queued.append(entry)
        announce(run)
        run.on_end(self._ended)
        self._advance()
        return run

    def start(
        self,
        spec: ActivitySpec,
        on_progress: ProgressCallback | None = None,
        on_log: LogCallback | None = None,
        target: Target | None = None,
        remember: bool = True,
        within: Run | None = None,
        command: CommandLine | None = None,
    ) -> Run:
        """Submit `spec` as a Run with these callbacks (they run on the engine's reader threads); `command`: the
        command line the run shows instead of its spec's (a front door that ran a copy knows the user's file)."""
        return self.submit(Run(spec, target, on_progress, on_log, remember, command), within=within)

    def run(
        self,
        spec: ActivitySpec,
        on_progress: ProgressCallback | None = None,
        on_log: LogCallback | None = None,
        target: Target | None = None,
        remember: bool = True,
        within: Run | None = None,
        command: CommandLine | None = None,
    ) -> ActivityResult:
        """Submit `spec` and block until it ends; never raises for a failed run (an interrupt cancels it)."""
        run = self.start(spec, on_progress, on_log, target, remember, within, command)
        try:
            result = run.wait()
        except BaseException:  # Ctrl+C in the CLI: the worker goes too
            run.cancel()
            run.wait(30.0)
            raise
        assert result is not None
        return result

    def runs(self) -> list[Run]:
        """The runs submitted here, in submission order (those ended: the last KEEP_ENDED)."""
        with self._lock:
            return list(self._runs)

    def running(self) -> list[Run]:
        with self._lock:
            return [entry.run for entry in self._running.values()]

    # -- deciding ----------------------------------------------------------------------------------------------------
    def _free(self, spec: ActivitySpec, target: str, before: list[_Entry], within: Run | None) -> str | None:
        """Why `spec` cannot start now (a run holding what it needs, or queued before it for it), or None."""
        for entry in self._running.values():
            if entry.run is not within and _conflict(spec, target, entry.run.spec, entry.run.target.name):
                held = entry.run.spec.device_key()
                why = "" if held == spec.device_key() else " (a CPU run never runs beside a GPU run of its host)"
                return f"{held} of {target} is busy with run {entry.run.id}{why}"
        if within is not None and within.id in self._running:
            return None  # part of a running run: it goes now, on what that run holds, ahead of the queue
        for entry in before:
            if any(_conflict(spec, target, other, entry.run.target.name) for other in entry.choices):
                return f"run {entry.run.id}, queued before it, needs {'/'.join(entry.devices)} of {target}"
        return None

    def _advance(self) -> None:
        starting: list[_Entry] = []
        foreign = False
        with self._lock:
            self._queued = [entry for entry in self._queued if not entry.run.done]  # cancelled while queued
            waiting: list[_Entry] = []
            for entry in list(self._queued):
                target, why = entry.run.target.name, ""
                for spec in entry.choices:
                    busy = self._free(spec, target, waiting, entry.within)
                    if busy is not None:
                        why = why or busy
                        continue
                    parent = self._running.get(entry.within.id) if entry.within is not None else None
                    inherited = parent.held.names if parent is not None and parent.held is not None else ()
                    held = self.locks.try_take(target, spec.device_key(), host_share(spec), inherited)
                    if isinstance(held, str):
                        why, foreign = f"another process holds {spec.device_key()} of {target} ({held})", True
                        continue
                    entry.run.spec, entry.held = spec, held
                    break
                if entry.held is None:
                    waiting.append(entry)
                    self._tell(entry, why)
                    continue
                self._queued.remove(entry)
                self._running[entry.run.id] = entry
                starting.append(entry)
            if foreign and self._retry is None:
                self._retry = threading.Timer(RETRY_S, self._retried)
                self._retry.daemon = True
                self._retry.start()
        for entry in starting:
            entry.run.start(self._executor(entry))

    def _retried(self) -> None:
        with self._lock:
            self._retry = None
        self._advance()

    @staticmethod
    def _tell(entry: _Entry, why: str) -> None:
        """Say once why the run waits; a wait on another process is a warning (the CLI prints warnings)."""
        if why and why != entry.said:
            entry.said = why
            entry.run.log("warning" if why.startswith("another process") else "info", f"queued: {why}")

    def _executor(self, entry: _Entry) -> Callable[[Run], ActivityResult]:
        def go(run: Run) -> ActivityResult:
            watch: GpuWatch | None = None
            try:
                watch = _watch(entry)
                if watch is not None:  # cancelled while it waits: the engine ends the run as cancelled
                    watch.check_before(run.cancel_event.is_set)
                if entry.before is not None:
                    entry.before(run)
            except Exception as error:  # the run's own failure: said as its error, the device given back
                message = str(error) or type(error).__name__
                return ActivityResult(ActivityStatus.FAILED, error=message, error_kind=FAILED, logs=list(run.logs))
            if watch is None:
                return self._execute(run)
            watch.start(lambda: run.pid, lambda message: _foreign(run, entry.foreign, message))
            run.observers.append(watch.finish)
            try:
                result = self._execute(run)
            finally:
                watch.stop()
            failed = watch.failed
            if failed is not None:  # a process appeared under "fail": nothing it measured is kept as a result
                return dataclasses.replace(result, status=ActivityStatus.FAILED, artifacts={}, error=failed,
                                           error_kind=FAILED)
            return result

        return go

    def _ended(self, run: Run) -> None:
        with self._lock:
            entry = self._running.pop(run.id, None)
            self._queued = [queued for queued in self._queued if queued.run is not run]
            ended = [known for known in self._runs if known.done]
            if len(ended) > KEEP_ENDED:
                dropped = {id(known) for known in ended[: len(ended) - KEEP_ENDED]}
                self._runs = [known for known in self._runs if id(known) not in dropped]
        if entry is not None and entry.held is not None:
            entry.held.release()
        self._advance()


def _watch(entry: _Entry) -> GpuWatch | None:
    """The NVML watch of the entry's run (its GPU, this host), told to its log; None when there is nothing to watch."""
    run = entry.run
    parent = entry.within.pid if entry.within is not None else None
    watch = watch_for(run.spec, isinstance(run.target, LocalTarget), entry.foreign, () if parent is None else (parent,))
    if watch is not None:
        watch.log = lambda message: run.log("warning", message)
        run.gpu_watch = watch
    return watch


def _foreign(run: Run, policy: ForeignPolicy, message: str) -> None:
    """A process appeared on the run's GPU during it: a warning; under "fail" the run stops."""
    run.log("warning", message)
    if policy.policy == "fail":
        run.cancel()


SCHEDULER = Scheduler()  # the process's scheduler: every front door starts its runs here


def run_activity(
    spec: ActivitySpec,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    target: Target | None = None,
    remember: bool = True,
    within: Run | None = None,
    command: CommandLine | None = None,
) -> ActivityResult:
    """Run `spec` in a worker process through the process's scheduler and block until it ends; never raises for a
    failed run. `within`: the run it is part of (it may use what that run holds); `command` as for `start_activity`."""
    return SCHEDULER.run(spec, on_progress, on_log, target, remember, within, command)


def start_activity(
    spec: ActivitySpec,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    target: Target | None = None,
    remember: bool = True,
    command: CommandLine | None = None,
) -> Run:
    """Start `spec` in the background through the process's scheduler; callbacks run on the engine's reader
    threads; `command`: the command line the run shows instead of its spec's (a front door that ran a copy of a
    document knows the document's file)."""
    return SCHEDULER.start(spec, on_progress, on_log, target, remember, command=command)
