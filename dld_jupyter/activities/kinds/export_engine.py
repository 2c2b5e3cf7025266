"""The engine-export activity (seed 000 "Exporting a TensorRT Engine"): build the engine as the model's plan says,
write it atomically, and write the inspector's layer information (`.trt.json`) when asked.

Its artifacts are the engine and its layer information. The build report it returns lists the engine's layers,
precisions, ONNX nodes and device memory, with no times: nothing was measured, so it carries no pass times.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from dld_jupyter.activities.cache import write_json_atomic
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.result import Outcome
from dld_jupyter.activities.runtimes.tensorrt.report import trt_layers
from dld_jupyter.activities.runtimes.tensorrt.runtime import load_runtime
from dld_jupyter.activities.runtimes.tensorrt.session import (
    engine_graph,
    onnx_index,
    open_engine,
    run_info,
    system_table,
)
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.report_format.builder import build_report


def run_export(spec: ActivitySpec, reporter: Reporter, requests: Iterable[str] = ()) -> Outcome:
    """Build and write `spec`'s engine (and layer information); its artifacts and the build report."""
    if not isinstance(spec, TrtBuildSpec):
        raise SpecError(f"kind: engine export runs {TrtBuildSpec.KIND!r} specs, not {spec.KIND!r}")
    runtime = load_runtime(spec.settings)
    engine, plan = open_engine(spec, runtime, reporter)
    try:
        reporter.progress(0.8, "writing engine")
        target = Path(spec.engine_path())
        partial = target.with_name(f".{target.name}.partial")
        partial.write_bytes(engine.serialize())
        os.replace(partial, target)
        graph = engine_graph(engine, reporter) if spec.settings.save_metadata else None
        if spec.metadata and graph is not None:
            write_json_atomic(spec.metadata, engine.layer_information())
        layers = trt_layers(graph, [], onnx_index(spec.model)) if graph is not None else []
        run = run_info(spec, runtime, engine, plan)
        run.settings.update(engine_file=str(target), metadata_file=spec.metadata)
    finally:
        engine.close()
    artifacts = {"engine": str(target)}
    if spec.metadata and graph is not None:
        artifacts["layer_info"] = spec.metadata
    return Outcome(build_report(run, [], layers, system=system_table(runtime, spec.settings)), artifacts)
