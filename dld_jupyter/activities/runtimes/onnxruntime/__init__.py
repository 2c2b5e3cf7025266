"""The ONNX Runtime runtime: the embedded default; onnxruntime is imported only when a session opens."""

from __future__ import annotations

import dataclasses
import importlib.util
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes.base import Session
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec

INSTALL_HINT = "pip install 'dld_jupyter[cpu]' (or 'dld_jupyter[gpu]' for the CUDA provider; never both)"


class OnnxRuntime:
    """`runtimes.base.Runtime` for ONNX Runtime; its settings are an `OrtProfileSpec`."""

    name = "onnxruntime"

    def available(self, settings: Any = None) -> str | None:
        if importlib.util.find_spec("onnxruntime") is None:
            return f"onnxruntime is not installed: {INSTALL_HINT}"
        return None  # a missing provider is the session's to name: it knows what ORT offers

    @contextmanager
    def session(self, model: str, settings: Any, reporter: Reporter) -> Iterator[Session]:
        from dld_jupyter.activities.runtimes.onnxruntime.session import OrtSession

        if not isinstance(settings, OrtProfileSpec):
            raise SpecError(f"settings: onnxruntime sessions take an OrtProfileSpec, not {type(settings).__name__}")
        if settings.model != model:
            settings = dataclasses.replace(settings, model=model)
        with tempfile.TemporaryDirectory(prefix="dld-ort-") as workdir:
            yield OrtSession(settings, reporter, Path(workdir))
