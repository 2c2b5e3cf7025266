"""The engine-export activity (seed 000 "Exporting a TensorRT Engine"): build the engine as the model's plan says,
write it atomically, and write the inspector's layer information (`.trt.json`) when asked.

Its artifacts are the engine and its layer information, and no report: a build measures nothing, and a report is
what was measured (issue 25: it used to write a "build report" with no times, a report it did not have). The
engine's layers, precisions and fused ONNX nodes are in its layer information (opened as an engine graph); a
measured report comes from profiling the engine (`TrtProfileSpec` with `profiler.prebuilt_engine`).
`export_spec(model, ...)` is the one place an export spec is built (the API, the CLI, the Export panel).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dld_jupyter.activities.cache import write_json_atomic
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.result import Outcome
from dld_jupyter.activities.runtimes.tensorrt.runtime import load_runtime
from dld_jupyter.activities.runtimes.tensorrt.session import engine_graph, open_engine
from dld_jupyter.activities.runtimes.tensorrt.settings import SETTINGS_OPTIONS, TrtSettings, with_options
from dld_jupyter.activities.runtimes.tensorrt.spec import ENGINE_SUFFIX, TrtBuildSpec
from dld_jupyter.activities.spec import ActivitySpec


def run_export(spec: ActivitySpec, reporter: Reporter, requests: Iterable[str] = ()) -> Outcome:
    """Build and write `spec`'s engine (and layer information); its artifacts, no report."""
    if not isinstance(spec, TrtBuildSpec):
        raise SpecError(f"kind: engine export runs {TrtBuildSpec.KIND!r} specs, not {spec.KIND!r}")
    runtime = load_runtime(spec.settings)
    engine, _plan = open_engine(spec, runtime, reporter)
    try:
        reporter.progress(0.8, "writing engine")
        target = Path(spec.engine_path())
        partial = target.with_name(f".{target.name}.partial")
        partial.write_bytes(engine.serialize())
        os.replace(partial, target)
        graph = engine_graph(engine, reporter) if spec.settings.save_metadata else None
        if spec.metadata and graph is not None:
            write_json_atomic(spec.metadata, engine.layer_information())
    finally:
        engine.close()
    artifacts = {"engine": str(target)}
    if spec.metadata and graph is not None:
        artifacts["layer_info"] = spec.metadata
    return Outcome(None, artifacts)


def export_spec(
    model: ModelRef | str | os.PathLike[str],
    engine: str | None = None,
    *,
    metadata: str | None = None,
    open_metadata: bool = False,
    settings: TrtSettings | Mapping[str, Any] | None = None,
    **options: Any,
) -> TrtBuildSpec:
    """The export spec of `model`: `options` are TrtSettings fields given flat (`fp16=True`) over `settings`; unknown
    ones are refused (naming the known ones) before a copy of unsaved edits is written. A document's engine goes
    beside its own file by default (not beside a copy of its edits), and no output may replace that file."""
    unknown = sorted(set(options) - set(SETTINGS_OPTIONS))
    if unknown:
        raise SpecError(f"unknown option(s) {unknown}; known options are {sorted(SETTINGS_OPTIONS)}")
    chosen = with_options(settings, options)
    ref = model if isinstance(model, ModelRef) else ModelRef.of(model)
    if engine is None and ref.document is not None:
        engine = str(Path(ref.home).with_suffix(ENGINE_SUFFIX))
    spec = TrtBuildSpec(model=ref.path, engine=engine, metadata=metadata, open_metadata=open_metadata,
                        settings=chosen, source_document=ref.copy_of)
    spec.check_outputs([ref.copy_of])  # nothing starts that would overwrite the model or the document's own file
    return spec
