"""Activity kinds, one module each: `profile` (the measured loop for any runtime), `export_engine` (a TensorRT
build), `session` (a runtime session that stays open and answers requests) and `analysis` (the debugger, a session).

A spec names its kind in `ACTIVITY`; `kind_runner(spec)` gives the function the worker runs it with: it reports to
the worker's channel, reads requests when it is a session kind, and returns the Outcome (report, artifacts).
Kinds import runtimes, never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.kinds import analysis
from dld_jupyter.activities.kinds.export_engine import run_export
from dld_jupyter.activities.kinds.profile import run_profile
from dld_jupyter.activities.kinds.session import serve
from dld_jupyter.activities.protocol import Channel
from dld_jupyter.activities.result import Outcome
from dld_jupyter.activities.spec import ActivitySpec

KindRunner = Callable[[ActivitySpec, Channel, Iterable[str]], Outcome]


def _profile(spec: ActivitySpec, channel: Channel, requests: Iterable[str]) -> Outcome:
    return Outcome(run_profile(spec, channel))


_KINDS: dict[str, KindRunner] = {
    "profile": _profile,
    "export_engine": run_export,
    "session": serve,
    "analysis": analysis.serve,
}


def kind_names() -> list[str]:
    return sorted(_KINDS)


def kind_runner(spec: ActivitySpec) -> KindRunner:
    """The activity kind that runs `spec`; UnavailableError naming the known ones otherwise."""
    runner = _KINDS.get(spec.ACTIVITY)
    if runner is None:
        raise UnavailableError(f"no activity kind runs {spec.KIND!r} specs here; kinds: {kind_names()}")
    return runner
