"""Activity kinds, one module each: `profile` (the measured loop for any runtime), `export_engine` (a TensorRT
build), `session` (a runtime session that stays open and answers requests) and `analysis` (the debugger, a session).

A spec names its kind in `ACTIVITY`; `kind_runner(spec)` gives the function the worker runs it with: it reports to
the worker's channel, reads requests when it is a session kind, and returns the Outcome (report, artifacts).
Kinds import runtimes, never the other way round. A kind whose work lives in a layer above the activities (the
divergence of two models: model_compare/divergence_kind.py) registers its runner with `register_kind` when its
module is imported; its spec names that module (`ActivitySpec.to_dict`), so the worker imports it too.
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


def register_kind(activity: str, runner: KindRunner) -> None:
    """Add the runner of activity kind `activity` (a kind of a layer above this one, imported with its spec)."""
    known = _KINDS.get(activity)
    if known is not None and known is not runner and known.__qualname__ != runner.__qualname__:
        raise TypeError(f"activity kind {activity!r} is already run by {known.__qualname__}")
    _KINDS[activity] = runner


def kind_names() -> list[str]:
    return sorted(_KINDS)


def kind_runner(spec: ActivitySpec) -> KindRunner:
    """The activity kind that runs `spec`; UnavailableError naming the known ones otherwise."""
    runner = _KINDS.get(spec.ACTIVITY)
    if runner is None:
        raise UnavailableError(f"no activity kind runs {spec.KIND!r} specs here; kinds: {kind_names()}")
    return runner
