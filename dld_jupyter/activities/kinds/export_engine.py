"""The engine-export activity (seed 000 "Exporting a TensorRT Engine"): build the engine as the model's plan says,
write it atomically, and write the inspector's layer information (`.trt.json`) when asked.

Its artifacts are the engine and its layer information, and no report: a build measures nothing, and a report is
what was measured (issue 25: it used to write a "build report" with no times, a report it did not have). The
engine's layers, precisions and fused ONNX nodes are in its layer information (opened as an engine graph); a
measured report comes from profiling the engine (`TrtProfileSpec` with `profiler.prebuilt_engine`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from dld_jupyter.activities.cache import write_json_atomic
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.result import Outcome
from dld_jupyter.activities.runtimes.tensorrt.runtime import load_runtime
from dld_jupyter.activities.runtimes.tensorrt.session import engine_graph, open_engine
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec
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
