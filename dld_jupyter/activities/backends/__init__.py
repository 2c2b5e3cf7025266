"""The registry of backends: `register_backend`, `backend_for(spec)`, `backend_named(name)`.

The built-in backends are registered here: ONNX Runtime, TensorRT profiling and TensorRT engine export.
Backend modules import only `activities.backend` (the protocol) and `activities.reporter`, never this package,
so there is no import circle; their heavy runtimes are imported lazily: registering them imports no
onnxruntime or tensorrt.
"""

from __future__ import annotations

from dld_jupyter.activities.backend import Backend
from dld_jupyter.activities.backends.onnxruntime import OnnxRuntimeBackend
from dld_jupyter.activities.backends.tensorrt import TensorRTBackend, TensorRTExportBackend
from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.spec import ActivitySpec

_BACKENDS: dict[str, Backend] = {}


def register_backend(backend: Backend) -> None:
    """Add `backend`; a second backend for the same spec kind or name is a programming error."""
    for other in _BACKENDS.values():
        if other.name == backend.name or other.spec_kind == backend.spec_kind:
            raise ValueError(
                f"backend {backend.name!r} ({backend.spec_kind}) clashes with the registered backend "
                f"{other.name!r} ({other.spec_kind}): one backend per name and per spec kind"
            )
    _BACKENDS[backend.name] = backend


def backend_names() -> list[str]:
    """Names of the registered backends, in registration order."""
    return list(_BACKENDS)


def backend_named(name: str) -> Backend:
    """The backend called `name`; UnavailableError naming the registered ones otherwise."""
    if name not in _BACKENDS:
        raise UnavailableError(f"backend {name!r} is not available; available: {backend_names()}")
    return _BACKENDS[name]


def backend_for(spec: ActivitySpec) -> Backend:
    """The backend that runs specs of `spec`'s kind; UnavailableError naming the known kinds otherwise."""
    for backend in _BACKENDS.values():
        if backend.spec_kind == spec.KIND:
            return backend
    kinds = sorted(backend.spec_kind for backend in _BACKENDS.values())
    raise UnavailableError(f"no backend runs {spec.KIND!r} activities here; backends exist for {kinds}")


register_backend(OnnxRuntimeBackend())
register_backend(TensorRTBackend())
register_backend(TensorRTExportBackend())
