"""The divergence as a run kind (issue 35): `OrtDivergeSpec` runs `diverge` in the activity worker, like a profile,
so it is cancellable, shows its progress, is listed in the live runs, and a crash or an out-of-memory kill of ONNX
Runtime ends the run, never the kernel. It used to run on a thread of the kernel.

Why here and not in activities/kinds/: the work is this layer's (pairing, metrics, the table), and activities import
nothing above them; the kind registers its runner with `register_kind` when this module is imported, and its spec
names this module in its JSON (`ActivitySpec.to_dict`), so the worker imports it to run it.

Inputs: both models as files (a front door saves a document or an in-memory model first), the inputs as one NPZ
(None: random, by the one rule of runtimes/random_inputs.py, seeded). Artifacts: `divergence`, the per-node table
(`Divergence.to_dict` as JSON, written atomically), and `node_data`, Model Explorer node data, when asked. A cancel
sets the run's token from the SIGTERM handler while `diverge` runs on a thread of the worker, so ONNX Runtime's
window in flight ends (`RunOptions.terminate`) and both private copies are removed before the worker exits.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np

from dld_jupyter.activities.command_line import CommandLine
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds import register_kind
from dld_jupyter.activities.protocol import Channel
from dld_jupyter.activities.result import Outcome
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.formats.atomic_write import atomic_write_text
from dld_jupyter.transforms.progress import Cancelled, CancelToken

from .divergence import WHAT, WINDOW, WINDOW_BYTES, Divergence, check_arguments, diverge
from .divergence_command import divergence_command
from .node_data import save_node_data
from .tensor_metrics import METRICS

TABLE_SUFFIX = ".dld-divergence.json"
MIB = 1 << 20


def default_table_path(candidate: str) -> str:
    """`<candidate stem>.dld-divergence.json` beside the candidate."""
    path = Path(candidate)
    return str(path.with_name(path.stem + TABLE_SUFFIX))


@dataclass(frozen=True)
class OrtDivergeSpec(ActivitySpec):
    """The divergence of `candidate` against `model` (the reference), both ONNX files, on ONNX Runtime."""

    model: str  # the reference
    candidate: str = ""
    inputs: str | None = None  # an .npz of input arrays by input name; None: random (seed)
    metric: str = "max_abs"
    tolerance: float | None = None  # None: the metric's default
    reference_provider: str = "cpu"
    candidate_provider: str = "cpu"
    window: int = WINDOW  # tensors per session, at most
    window_bytes: int = WINDOW_BYTES  # bytes of activations per session and side, at most
    seed: int = 0
    table: str | None = None  # the per-node table JSON; None: `<candidate stem>.dld-divergence.json`
    node_data: str | None = None  # Model Explorer node data, when asked
    output: str | None = None  # only the engine's report slot (a divergence writes no report there)

    KIND: ClassVar[str] = "onnxruntime-diverge"
    RUNTIME: ClassVar[str] = "onnxruntime"
    ACTIVITY: ClassVar[str] = "diverge"

    def __post_init__(self) -> None:
        from dld_jupyter.activities.spec_fields import check_fields

        check_fields(self)
        if not self.model or not self.candidate:
            raise SpecError("model, candidate: the paths of both models are required")
        if self.metric not in METRICS:
            raise SpecError(f"metric: {self.metric!r} is not one of {list(METRICS)}")
        if self.window < 1:
            raise SpecError(f"window: {self.window} tensors cannot hold anything; give 1 or more")
        if self.window_bytes < 1:
            raise SpecError(f"window_bytes: {self.window_bytes} bytes cannot hold a tensor; give 1 or more")
        if self.tolerance is not None and not np.isfinite(self.tolerance):
            raise SpecError(f"tolerance: {self.tolerance} is no threshold; give a finite number")

    def table_path(self) -> str:
        return self.table or default_table_path(self.candidate)

    def report_path(self) -> str:
        """Only the slot the engine stages every spec's report in: a divergence writes its table, no report."""
        return self.output or str(Path(self.table_path()).with_suffix(".report-slot"))

    def with_output(self, output: str) -> OrtDivergeSpec:
        return dataclasses.replace(self, output=output)

    def resolved(self) -> OrtDivergeSpec:
        return dataclasses.replace(
            self, table=os.path.abspath(self.table_path()), model=_absolute(self.model),
            candidate=_absolute(self.candidate), inputs=_absolute(self.inputs), node_data=_absolute(self.node_data),
            output=_absolute(self.output),
        )

    def device_key(self) -> str:
        return "cuda:0" if "cuda" in (self.reference_provider, self.candidate_provider) else "cpu"

    def output_paths(self) -> dict[str, str | None]:
        return {"table": self.table_path(), "node data": self.node_data}

    def input_paths(self) -> dict[str, str | None]:
        return {"candidate": self.candidate, "inputs": self.inputs}

    def check_outputs(self, models: Iterable[str | os.PathLike[str] | None] = ()) -> None:
        super().check_outputs([self.candidate, *models])

    def command_line(self) -> CommandLine:
        """`dld diverge REF CAND …` (inputs given as an NPZ are said in words: the CLI reads one file per input)."""
        line = divergence_command(self.model, self.candidate, None, self.metric, self.tolerance,
                                  self.reference_provider, self.candidate_provider, self.window, self.seed,
                                  self.window_bytes, self.node_data)
        table = self.table_path()
        said = [f"the per-node table went to {table}: the command prints it with --json (add --json > FILE)"]
        if self.inputs is not None:
            said.append(f"the inputs were {self.inputs}: save each array as .npy and add --input NAME=FILE.npy")
        return CommandLine(line.argv, (*line.unsaid, *said))

    def options(self) -> dict[str, Any]:
        """`diverge`'s keyword arguments (the inputs read from their NPZ)."""
        return {"inputs": read_inputs(self.inputs), "metric": self.metric, "tolerance": self.tolerance,
                "reference_provider": self.reference_provider, "candidate_provider": self.candidate_provider,
                "window": self.window, "seed": self.seed, "window_bytes": self.window_bytes}


def read_inputs(path: str | None) -> dict[str, np.ndarray[Any, Any]] | None:
    if not path:
        return None
    try:
        with np.load(path, allow_pickle=False) as saved:
            return {name: saved[name] for name in saved.files}
    except (OSError, ValueError) as error:
        raise SpecError(f"inputs: {path} is not a readable .npz ({error})") from error


def run_diverge(spec: ActivitySpec, channel: Channel, requests: Iterable[str] = ()) -> Outcome:
    """Run the divergence of `spec` on a thread (the main thread hears SIGTERM and cancels it), write its table."""
    if not isinstance(spec, OrtDivergeSpec):
        raise SpecError(f"kind: the diverge activity runs {OrtDivergeSpec.KIND!r} specs, not {spec.KIND!r}")
    check_arguments(spec.metric, spec.window, spec.reference_provider, spec.candidate_provider)
    options = spec.options()
    token = CancelToken()
    last = [0.0]

    def progress(fraction: float | None, message: str) -> None:
        last[0] = fraction if fraction is not None else last[0]
        channel.progress(last[0], message)
        channel.log(message)  # each window in the run's log too (its first node), as the runs list shows it

    done: dict[str, Any] = {}

    def work() -> None:
        try:
            done["result"] = diverge(spec.model, spec.candidate, progress=progress, cancel=token, **options)
        except BaseException as error:  # handed to the main thread, which raises it
            done["error"] = error

    if threading.current_thread() is not threading.main_thread():  # only the main thread may hear signals
        work()
    else:
        previous = signal.signal(signal.SIGTERM, lambda _n, _f: token.cancel())
        thread = threading.Thread(target=work, name="dld-diverge", daemon=True)
        thread.start()
        try:
            while thread.is_alive():
                thread.join(0.05)
        finally:
            signal.signal(signal.SIGTERM, previous)
    if isinstance(done.get("error"), Cancelled):
        raise SystemExit(128 + signal.SIGTERM)  # what a terminated worker exits with: the engine says cancelled
    if "error" in done:
        raise done["error"]
    result: Divergence = done["result"]
    atomic_write_text(spec.table_path(), json.dumps(result.to_dict(), ensure_ascii=False))
    artifacts = {"divergence": spec.table_path()}
    if spec.node_data:
        save_node_data(result, spec.node_data)
        artifacts["node_data"] = spec.node_data
    return Outcome(None, artifacts)


register_kind(OrtDivergeSpec.ACTIVITY, run_diverge)
__all__ = ["WHAT", "OrtDivergeSpec", "default_table_path", "read_inputs", "run_diverge"]


P = TypeVar("P", str, str | None)


def _absolute(path: P) -> P:
    """An absolute path of a path given; an empty or absent one as it is."""
    return os.path.abspath(path) if path else path
