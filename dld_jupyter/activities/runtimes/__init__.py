"""The registry of runtimes: `runtime_named(name)`, `runtime_for(spec)`, `runtime_names()`.

One runtime per folder (`onnxruntime/`, `tensorrt/`), each behind `runtimes.base.Runtime`; registering them
imports neither onnxruntime nor tensorrt (their modules import them inside `available` and `session`).
"""

from __future__ import annotations

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.runtimes.base import Runtime
from dld_jupyter.activities.runtimes.onnxruntime import OnnxRuntime
from dld_jupyter.activities.runtimes.tensorrt import TensorRT
from dld_jupyter.activities.spec import ActivitySpec

_RUNTIMES: dict[str, Runtime] = {}


def register_runtime(runtime: Runtime) -> None:
    """Add `runtime`; a second one of the same name is a programming error."""
    if runtime.name in _RUNTIMES:
        raise ValueError(f"runtime {runtime.name!r} is already registered: one runtime per name")
    _RUNTIMES[runtime.name] = runtime


def runtime_names() -> list[str]:
    """Names of the registered runtimes, in registration order."""
    return list(_RUNTIMES)


def runtime_named(name: str) -> Runtime:
    """The runtime called `name` (what `profile(backend=...)` takes); UnavailableError naming the known ones."""
    if name not in _RUNTIMES:
        raise UnavailableError(f"backend {name!r} is not available; available: {runtime_names()}")
    return _RUNTIMES[name]


def runtime_for(spec: ActivitySpec) -> Runtime:
    """The runtime that runs `spec` (its kind's `RUNTIME`)."""
    if not spec.RUNTIME:
        raise UnavailableError(f"no runtime runs {spec.KIND!r} activities: the kind names none")
    return runtime_named(spec.RUNTIME)


register_runtime(OnnxRuntime())
register_runtime(TensorRT())
