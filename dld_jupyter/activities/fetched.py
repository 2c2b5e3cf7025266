"""Bringing a run's artifacts home: only what was staged, capped in size, checked before it replaces anything.

The worker's `done` message names its artifacts with paths on the target. A target is a machine that may be
broken or hostile, so nothing it says is taken as given:
- each named artifact must be a known artifact name (`result.ARTIFACTS`) at one of the paths the staged spec was
  told to write; anything else (`/etc/shadow`, `../x.json`, a name nobody asked for) fails the run before any
  file here changes;
- `Target.fetch` brings each one here (a partial file beside its destination, or the file itself when the worker
  wrote it in place), refusing files over their limit (`LIMITS`);
- a report must load as a valid report, and layer information as an engine graph, before the rename that puts it
  where the user asked: a previous report is never replaced by junk.
A report made elsewhere names the files it ran on there; it is rewritten to name the local model it was made from
(so layer -> ONNX node links and heat work as for a local run, with no designer open) and the target it ran on.
Every path returned is a file on this machine.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dld_jupyter.activities.errors import RunFailed
from dld_jupyter.activities.result import ARTIFACTS
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets.base import Target

if TYPE_CHECKING:
    from dld_jupyter.report_format.model import Report

MIB = 1 << 20
# The largest file of each artifact a run may bring home. A report with every kernel record of a BERT-base run on
# an H100 is ~40 MiB; a TensorRT engine of a large language model can be tens of GiB.
LIMITS: dict[str, int] = {
    "report": 256 * MIB,
    "layer_info": 256 * MIB,
    "engine": 64 * 1024 * MIB,
    "model": 64 * 1024 * MIB,
    "tensors": 16 * 1024 * MIB,
    "divergence": 256 * MIB,
    "node_data": 16 * 1024 * MIB,
}
LIMIT = 16 * 1024 * MIB  # an artifact name added without a limit of its own


def limit(name: str) -> int:
    """The largest file an artifact of this name may be."""
    return LIMITS.get(name, LIMIT)


def _shown(text: str) -> str:
    return repr(text[:200])


def wanted(spec: ActivitySpec, staged: ActivitySpec, done: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """name -> (target-side path, local destination) for each artifact `done` names; RunFailed, naming it, for one
    that is not a known artifact at a path the staged spec writes (or a path named twice)."""
    outputs = {path: key for key, path in staged.output_paths().items() if path}
    local = spec.output_paths()
    found: dict[str, tuple[str, str]] = {}
    for name, path in done.items():
        key = outputs.get(path)
        if name not in ARTIFACTS or key is None or not local.get(key):
            raise RunFailed(
                f"the target named an artifact it was not asked to write ({_shown(name)} at {_shown(path)}); "
                f"a run brings home only {', '.join(sorted(k for k in local if local[k]))}. Nothing was kept"
            )
        if any(path == other for other, _ in found.values()):
            raise RunFailed(f"the target named {_shown(path)} twice as an artifact. Nothing was kept")
        found[name] = (path, str(local[key]))
    return found


def bring_home(target: Target, spec: ActivitySpec, staged: ActivitySpec, done: Mapping[str, str],
               system: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Fetch, check and place every artifact of `done`; name -> its local path. RunFailed when one is refused (the
    files already in place stay as they were). `system`: what this host saw beside the run (`Run.observed`: other
    processes on its GPU), added to the report's system table."""
    expected = wanted(spec, staged, done)
    fetched = target.fetch(staged, {name: remote for name, (remote, _) in expected.items()})
    try:
        checked = {}
        for name, (_, destination) in expected.items():
            try:
                checked[name] = _checked(name, fetched[name], destination, target, spec, staged, system or {})
            except RunFailed:
                raise
            except Exception as error:  # whatever a hostile file makes a reader raise: still the run's failure
                raise RunFailed(f"{name}: cannot be checked ({type(error).__name__}: {error}). Nothing was kept") from (
                    error
                )
        for name, (file, report) in checked.items():
            _place(name, file, report, expected[name][1])
    finally:
        for name, file in fetched.items():
            if name in expected and file != expected[name][1]:
                with contextlib.suppress(OSError):
                    os.unlink(file)
    return {name: destination for name, (_, destination) in expected.items()}


def _place(name: str, file: str, report: Report | None, destination: str) -> None:
    from dld_jupyter.report_format.io import ReportError, save_report

    try:
        if report is not None:
            save_report(report, destination)
        elif file != destination:
            os.replace(file, destination)
    except (OSError, ReportError) as error:
        raise RunFailed(f"{name}: could not be written to {destination} ({error})") from error


def _checked(
    name: str, file: str, destination: str, target: Target, spec: ActivitySpec, staged: ActivitySpec,
    system: Mapping[str, Any],
) -> tuple[str, Report | None]:
    """(file, the report to write instead of it, or None); RunFailed saying what is wrong with the file."""
    if not os.path.isfile(file):
        raise RunFailed(f"{name}: the run named {file}, which is not a file. Nothing was kept")
    size = os.path.getsize(file)
    if size > limit(name):
        raise RunFailed(
            f"{name}: {size / MIB:.0f} MiB is more than a {name} can be ({limit(name) // MIB} MiB); "
            "the target wrote something else. Nothing was kept"
        )
    if name == "report":
        return file, _report(file, target, spec, staged, system)
    if name == "layer_info" and file != destination:
        from dld_jupyter.report_format.engine_graph import EngineGraphError, load_engine_graph

        try:
            load_engine_graph(file)
        except EngineGraphError as error:
            raise RunFailed(f"layer_info: the run's layer information is not valid ({error}). Nothing was kept") from (
                error
            )
    return file, None


def _report(file: str, target: Target, spec: ActivitySpec, staged: ActivitySpec,
            system: Mapping[str, Any]) -> Report | None:
    """The report in `file`, validated, naming the local files it was made from when it ran on copies elsewhere and
    with what this host saw beside the run (`system`); None when it can be renamed as it is."""
    from dld_jupyter.report_format.io import ReportError, load_report

    try:
        report = load_report(file)
    except ReportError as error:
        raise RunFailed(f"report: the run's report is not a valid report ({error}). Nothing was kept") from error
    report.system.update(system)
    if staged.model == spec.model:
        return report if system else None  # a report made here, as it is: renamed, not rewritten
    summary = report.summary
    summary.model_path = spec.model
    for field in dataclasses.fields(spec):
        there, here = getattr(staged, field.name), getattr(spec, field.name)
        if there != here and summary.settings.get(field.name) == there:
            summary.settings[field.name] = here
    report.system["target"] = target.name
    return report
