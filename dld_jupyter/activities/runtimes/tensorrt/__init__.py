"""The TensorRT runtime: asked with a spec's `TrtSettings` whether it can run (installed, the chosen installation
folder, a GPU), it opens sessions on engines built by `runtime.load_runtime`'s runtime (TensorRT through
Polygraphy, or the stand-in `DLD_TENSORRT_RUNTIME` names). tensorrt is imported only when asked or opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes.base import Session
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtProfileSpec


class TensorRT:
    """`runtimes.base.Runtime` for TensorRT; `available` takes the `TrtSettings`, a session the `TrtProfileSpec`."""

    name = "tensorrt"

    def available(self, settings: Any = None) -> str | None:
        from dld_jupyter.activities.runtimes.tensorrt.session import tensorrt_unavailable

        if settings is not None and not isinstance(settings, TrtSettings):
            raise SpecError(f"settings: TensorRT is asked with TrtSettings, not {type(settings).__name__}")
        return tensorrt_unavailable(settings)

    @contextmanager
    def session(self, model: str, settings: Any, reporter: Reporter) -> Iterator[Session]:
        from dld_jupyter.activities.runtimes.tensorrt.runtime import load_runtime
        from dld_jupyter.activities.runtimes.tensorrt.session import TrtSession

        if not isinstance(settings, TrtProfileSpec):
            raise SpecError(f"settings: TensorRT sessions take a TrtProfileSpec, not {type(settings).__name__}")
        if settings.model != model:
            raise SpecError(f"model: the session's model {model} is not its spec's ({settings.model})")
        session = TrtSession(settings, load_runtime(settings.settings), reporter)
        try:
            yield session
        finally:
            session.close()
