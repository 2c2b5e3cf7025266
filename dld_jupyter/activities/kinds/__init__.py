"""Activity kinds, one module each: `profile` (the measured loop for any runtime), `export_engine` (a TensorRT build).

A spec names its kind in `ACTIVITY`; `kind_runner(spec)` gives the function that runs it in the worker, reporting
progress to a `Reporter` and returning the Report. Kinds import runtimes, never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.kinds.export_engine import run_export
from dld_jupyter.activities.kinds.profile import run_profile
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.report_format.model import Report

KindRunner = Callable[[ActivitySpec, Reporter], Report]

_KINDS: dict[str, KindRunner] = {"profile": run_profile, "export_engine": run_export}


def kind_names() -> list[str]:
    return sorted(_KINDS)


def kind_runner(spec: ActivitySpec) -> KindRunner:
    """The activity kind that runs `spec`; UnavailableError naming the known ones otherwise."""
    runner = _KINDS.get(spec.ACTIVITY)
    if runner is None:
        raise UnavailableError(f"no activity kind runs {spec.KIND!r} specs here; kinds: {kind_names()}")
    return runner
