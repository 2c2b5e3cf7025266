"""A divergence as a run (issue 30 on issue 25's seam): one `ThreadRun` in the live runs registry, whichever front door
starts it: `dld.diverge`, the designer's "Check against original" and the Tools dialogs' Check button.

Why here: `compare.diverge` is plain blocking work with a `progress` callback and a `CancelToken`; the runs list,
the dashboard and the progress/cancel widget know runs, not callbacks. `start_divergence` wraps it once;
the run carries its `dld diverge` command line (the runs list's Copy); `run_divergence` is the blocking form
`dld.diverge` returns through: it waits for the run, cancels it on Ctrl-C (a kernel interrupt) and raises what the
work raised, with its own type (SpecError, UnavailableError, RunFailed, Cancelled), so scripts keep catching what
they caught before.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.result import LogLine, Progress
from dld_jupyter.activities.thread_run import ThreadRun
from dld_jupyter.frontdoor.runs import track
from dld_jupyter.model_compare.divergence import WHAT, Divergence, check_arguments, diverge
from dld_jupyter.model_compare.divergence_command import divergence_command
from dld_jupyter.model_compare.structural_diff import ModelLike
from dld_jupyter.transforms.progress import CancelToken
from dld_jupyter.transforms.progress import Progress as ReportProgress

ProgressCallback = Callable[[Progress], None]
CHECKED = ("metric", "window", "reference_provider", "candidate_provider")  # check_arguments' parameters


def divergence_work(
    reference: ModelLike, candidate: ModelLike, **options: Any
) -> Callable[[ReportProgress, CancelToken], Any]:
    """The `work(progress, token)` of a divergence run, for a `ThreadRun` or a dialog's job; an unknown option, a
    bad metric or window and a provider that is not installed are refused here, before any run starts."""
    try:
        bound = inspect.signature(diverge).bind(reference, candidate, **options)
    except TypeError as error:
        known = sorted(set(inspect.signature(diverge).parameters) - {"reference", "candidate", "progress", "cancel"})
        raise SpecError(f"divergence: {error}; its options are {known}") from error
    check_arguments(**{k: v for k, v in bound.arguments.items() if k in CHECKED})

    def work(progress: ReportProgress, token: CancelToken) -> Divergence:
        return diverge(reference, candidate, progress=progress, cancel=token, **options)

    return work


def start_divergence(
    reference: ModelLike,
    candidate: ModelLike,
    *,
    on_progress: ProgressCallback | None = None,
    on_log: Callable[[LogLine], None] | None = None,
    **options: Any,
) -> ThreadRun:
    """Start the divergence of `candidate` against `reference` (compare.diverge's options) as a registered run; its
    `value` is the Divergence once it has succeeded."""
    work = divergence_work(reference, candidate, **options)  # refuses bad options before the command is built
    command = divergence_command(reference, candidate, **options)
    run = ThreadRun(WHAT, work, on_progress=on_progress, on_log=on_log, command=command)
    track().register(run)
    return run.start()


def run_divergence(
    reference: ModelLike, candidate: ModelLike, *, on_progress: ProgressCallback | None = None, **options: Any
) -> Divergence:
    """`start_divergence`, waited for: the Divergence, or the work's own exception."""
    return wait_for(start_divergence(reference, candidate, on_progress=on_progress, **options))


def wait_for(run: ThreadRun) -> Divergence:
    """Wait for a divergence run: its Divergence, or what its work raised; Ctrl-C cancels it and waits."""
    try:
        run.wait()
    except KeyboardInterrupt:  # Ctrl-C, a kernel interrupt: the run stops at its next check, its copies removed
        run.cancel()
        run.wait()
        raise
    if run.exception is not None:
        raise run.exception
    result: Divergence = run.value
    return result
