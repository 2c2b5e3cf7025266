"""A divergence as a run of the activity worker (issue 35), whichever front door starts it: `dld.diverge`,
`dld diverge`, the designer's "Check against original" and the Tools dialogs' Check button.

Why here: the worker runs files (model_compare/divergence_kind.py), while the front doors hold paths, designers'
documents with unsaved edits, ModelProtos and arrays. `start_divergence` turns them into files in one private folder
(a document saved as it is on screen, arrays as one NPZ), refuses bad options before any run starts (an unknown
option, a bad metric or window, a provider not installed: SpecError / UnavailableError), and starts the run with the
`dld diverge` command line of what the user gave (the runs list's Copy). When the run ends the copies go; the table
stays (in that folder unless `table=` names a file) until the process exits, so the runs list can still open it; a
cancelled or failed run leaves nothing. `divergence_of(run)` reads the Divergence back, or raises what the run
ended with by its kind (SpecError, UnavailableError, Cancelled, RunFailed), so scripts catch what they caught when
the divergence ran in the kernel; `wait_for` also cancels the run on Ctrl-C (a kernel interrupt).
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dld_jupyter.activities.errors import BAD_INPUT, UNAVAILABLE, RunFailed, SpecError, UnavailableError
from dld_jupyter.activities.model_ref import ModelRef, release_copy, temporary_folder
from dld_jupyter.activities.result import ActivityStatus, LogLine, Progress
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.scheduler import start_activity
from dld_jupyter.frontdoor.runs import track
from dld_jupyter.model_compare.divergence import WHAT, Divergence, check_arguments, diverge
from dld_jupyter.model_compare.divergence_command import divergence_command
from dld_jupyter.model_compare.divergence_kind import OrtDivergeSpec
from dld_jupyter.model_compare.structural_diff import ModelLike, as_model
from dld_jupyter.transforms.progress import Cancelled

ProgressCallback = Callable[[Progress], None]
CHECKED = tuple(inspect.signature(check_arguments).parameters)  # what a run refuses before it starts
FILES = ("table", "node_data")  # where the run writes: options of the run, not of `diverge`


def check_options(reference: ModelLike, candidate: ModelLike, **options: Any) -> None:
    """SpecError for an unknown option, a bad metric or window; UnavailableError for a provider not installed."""
    given = {k: v for k, v in options.items() if k not in FILES}
    try:
        bound = inspect.signature(diverge).bind(reference, candidate, **given)
    except TypeError as error:
        known = sorted({*inspect.signature(diverge).parameters, *FILES} - {"reference", "candidate", "progress",
                                                                            "cancel"})
        raise SpecError(f"divergence: {error}; its options are {known}") from error
    check_arguments(**{k: v for k, v in bound.arguments.items() if k in CHECKED})


def _model_file(model: ModelLike, folder: str, role: str) -> tuple[str, ModelRef | None]:
    """(a file of `model` the worker reads, its reference to release or None): a path as it is, a saved document its
    file, unsaved edits a copy of the document as it is on screen (ModelRef), an in-memory model saved here."""
    import onnx_ir as ir

    from dld_jupyter.document import Document

    if isinstance(model, (str, os.PathLike, Document)):
        ref = ModelRef.of(model, prefix="dld-divergence-copy-")
        return ref.path, ref
    path = os.path.join(folder, f"{role}.onnx")
    ir.save(as_model(model), path, external_data=f"{role}.onnx.data", max_workers=1)
    return path, None


def start_divergence(
    reference: ModelLike,
    candidate: ModelLike,
    *,
    on_progress: ProgressCallback | None = None,
    on_log: Callable[[LogLine], None] | None = None,
    **options: Any,
) -> Run:
    """Start the divergence of `candidate` against `reference` (diverge's options, plus `table=` and `node_data=`
    paths to write) as a run of the worker, listed in the live runs; `divergence_of(run)` reads its result."""
    check_options(reference, candidate, **options)
    command = divergence_command(reference, candidate, **{k: v for k, v in options.items() if k != "table"})
    folder = temporary_folder("dld-divergence-")
    copies: list[ModelRef] = []
    try:
        files = {}
        for role, model in (("reference", reference), ("candidate", candidate)):
            files[role], copy = _model_file(model, folder, role)
            copies += [copy] if copy else []
        inputs = options.pop("inputs", None)
        npz = None
        if inputs is not None:
            npz = os.path.join(folder, "inputs.npz")
            np.savez(npz, allow_pickle=False, **{name: np.asarray(value) for name, value in dict(inputs).items()})
        table = options.pop("table", None) or os.path.join(folder, "divergence.json")
        spec = OrtDivergeSpec(model=files["reference"], candidate=files["candidate"], inputs=npz, table=table,
                              **options)
        track()
        run = start_activity(spec, on_progress=on_progress, on_log=on_log, remember=False, command=command)
    except BaseException:
        _release(folder, copies, keep=None)
        raise
    kept = spec.resolved().table_path()
    run.on_end(lambda ended: _release(folder, copies, keep=kept if ended.status is ActivityStatus.SUCCEEDED
                                      else None))
    return run


def _release(folder: str, copies: list[ModelRef], keep: str | None) -> None:
    """Remove the run's copies; the folder too unless it holds the table to keep (then it goes at exit)."""
    for copy in copies:
        copy.release()
    if keep is None or os.path.dirname(keep) != folder:
        release_copy(os.path.join(folder, "divergence.json"))
        return
    for entry in Path(folder).iterdir():
        if str(entry) != keep:
            entry.unlink(missing_ok=True)


def divergence_of(run: Run) -> Divergence:
    """The Divergence of an ended run, or what it ended with: SpecError (bad input), UnavailableError (a provider
    or onnxruntime missing), Cancelled, RunFailed (a failure or a crash of the worker)."""
    result = run.wait()
    if result is None:
        raise RunFailed(f"{WHAT}: the run has not ended")
    if result.status is ActivityStatus.CANCELLED:
        raise Cancelled(WHAT)
    if not result.ok or "divergence" not in result.artifacts:
        if result.error_kind == BAD_INPUT:
            raise SpecError(result.error or "bad input")
        if result.error_kind == UNAVAILABLE:
            raise UnavailableError(result.error or "unavailable")
        raise RunFailed(f"{WHAT} {result.status.value}: {result.error}")
    with open(result.artifacts["divergence"], encoding="utf-8") as table:
        return Divergence.from_dict(json.load(table))


def run_divergence(
    reference: ModelLike, candidate: ModelLike, *, on_progress: ProgressCallback | None = None, **options: Any
) -> Divergence:
    """`start_divergence`, waited for: the Divergence, or the run's error by its kind."""
    return wait_for(start_divergence(reference, candidate, on_progress=on_progress, **options))


def wait_for(run: Run) -> Divergence:
    """Wait for a divergence run: its Divergence, or what it ended with; Ctrl-C cancels it and waits."""
    try:
        run.wait()
    except KeyboardInterrupt:  # Ctrl-C, a kernel interrupt: the worker is stopped, its copies removed
        run.cancel()
        run.wait()
        raise
    return divergence_of(run)
