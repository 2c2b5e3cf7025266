"""A run never silently replaces an existing report (issue 42): the default report name is numbered.

Why: a profile on a remote target with the default report name (`model.dld-report.json` beside the model) replaced
the report of the local profile made before it, and a second panel run replaced the first: a run made to compare
with another destroyed it. A report whose path nobody gave is now the first free one of `model.dld-report.json`,
`model-2.dld-report.json`, `model-3…`: free means no file there and no queued or running run of the process's
scheduler (a remote one included: its report comes home only at the end) writing there. `kinds.profile.profile_spec`
asks this when it builds a spec without an output, whichever front door builds it (the Profile panel, `dld.profile`,
`dld profile`, `dld-prof --save`); the spec then names that path, so the run's command line reproduces it.
A path the user gave (`-o`, `output=`, the panel's Output field, a sweep point's own name in its folder) is written
as given, replacing a report there as every `dld` output does (formats/output_paths.py refuses only an output that
would destroy an input). Two processes choosing at the same instant may still pick one name: each checks the files.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.spec import REPORT_SUFFIX

MAX_NUMBER = 100_000  # a folder with this many reports of one model is a mistake, said as one


def numbered(path: str, number: int) -> str:
    """`folder/model.dld-report.json`, 2 -> `folder/model-2.dld-report.json` (1: the path itself)."""
    if number <= 1:
        return path
    folder, name = os.path.split(path)
    suffix = REPORT_SUFFIX if name.endswith(REPORT_SUFFIX) else os.path.splitext(name)[1]
    stem = name[: len(name) - len(suffix)]
    return os.path.join(folder, f"{stem}-{number}{suffix}")


def free_report_path(path: str, taken: Collection[str] = ()) -> str:
    """The first of `path`, its -2, -3, … names that is no file, link or folder here and not in `taken` (absolute
    paths that runs will write); SpecError (bad input: name the report) when a hundred thousand are taken."""
    claimed = {os.path.abspath(p) for p in taken}
    for number in range(1, MAX_NUMBER + 1):
        candidate = numbered(path, number)
        if not os.path.lexists(candidate) and os.path.abspath(candidate) not in claimed:
            return candidate
    raise SpecError(f"output: {MAX_NUMBER} reports named after {path} exist already; give the report an output path")


def reports_being_written() -> set[str]:
    """The report paths of the scheduler's queued and running runs (absolute)."""
    from dld_jupyter.activities.scheduler import SCHEDULER  # lazily: the scheduler imports the engine

    return {os.path.abspath(run.spec.report_path()) for run in SCHEDULER.runs() if not run.done}


def default_report(path: str) -> str:
    """The report path a run without an output path writes: `path` (the default beside the model), numbered past
    every existing report and every report a live run of this process will write."""
    return free_report_path(path, reports_being_written())
