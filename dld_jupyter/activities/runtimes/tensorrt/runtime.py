"""The boundary between the TensorRT session and TensorRT itself: build an engine from a `BuildPlan`, open it,
read its layer information, run its passes one at a time.

The session (`session.py`) turns specs into plans and the profile kind's measurements into layer tables; a runtime
does only what needs TensorRT. `live.LiveRuntime` is the real one (tensorrt + Polygraphy).
`DLD_TENSORRT_RUNTIME=module:factory` names another implementation of this protocol; the end-to-end tests use it
for a stand-in that replays recorded real TensorRT outputs (this workplace cannot install TensorRT, see
shared/GPU.md), and the report says which runtime produced it.
"""

from __future__ import annotations

import importlib
import os
from contextlib import AbstractContextManager
from typing import Any, Protocol

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes.base import PassTimes
from dld_jupyter.activities.runtimes.tensorrt.mapping import BuildPlan
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings

RUNTIME_VARIABLE = "DLD_TENSORRT_RUNTIME"


class TrtPasses(Protocol):
    """The passes of one execution context: the profile kind's measured loop calls `run()` once per pass."""

    def run(self) -> PassTimes: ...

    def outputs(self) -> dict[str, Any]:
        """Host copies of the last pass's outputs, by name (needs `copies`)."""
        ...


class TrtEngine(Protocol):
    @property
    def device_memory_bytes(self) -> int:
        """ICudaEngine device memory size: what one execution context needs."""
        ...

    def layer_information(self) -> Any:
        """Decoded IEngineInspector JSON ({"Layers": [...], "Bindings": [...]})."""
        ...

    def serialize(self) -> bytes: ...

    @property
    def refittable(self) -> bool:
        """ICudaEngine.refittable: built with the REFIT (or weight-stripping) flag."""
        ...

    def refit(self, model: str) -> None:
        """Refit the engine's weights from the ONNX `model` (IParserRefitter.refitFromFile, then
        IRefitter.refitCudaEngine); SpecError with the parser's errors when the model's weights do not fit."""
        ...

    def passes(
        self, shapes: dict[str, tuple[int, ...]], profiled: bool, copies: bool, seed: int
    ) -> AbstractContextManager[TrtPasses]:
        """An execution context on random inputs of `shapes`: layer times only when `profiled`; copies timed (and
        outputs fetched) when `copies`, else inputs are copied once beforehand and outputs never fetched."""
        ...

    def close(self) -> None: ...


class TrtRuntime(Protocol):
    @property
    def name(self) -> str:
        """ "tensorrt" for the real one; a stand-in says it is one."""
        ...

    @property
    def version(self) -> str: ...

    def build(self, model: str, plan: BuildPlan, reporter: Reporter) -> TrtEngine:
        """Parse `model` and build it as `plan` says (profiles, precisions, timing cache included)."""
        ...

    def load(self, engine_path: str, plugins: tuple[str, ...]) -> TrtEngine:
        """Deserialize an engine file (trusted: embedded host code may run)."""
        ...


def load_runtime(settings: TrtSettings) -> TrtRuntime:
    """The runtime for `settings`: `DLD_TENSORRT_RUNTIME` when set, else TensorRT through Polygraphy."""
    spec = os.environ.get(RUNTIME_VARIABLE, "")
    if spec:
        module, _, factory = spec.partition(":")
        if not module or not factory:
            raise SpecError(f"{RUNTIME_VARIABLE}: expected module:factory, got {spec!r}")
        runtime: TrtRuntime = getattr(importlib.import_module(module), factory)(settings)
        return runtime
    from dld_jupyter.activities.runtimes.tensorrt.live import LiveRuntime

    return LiveRuntime(settings)
