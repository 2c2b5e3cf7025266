"""Activities: runs described by frozen specs (`ActivitySpec` kinds), executed in a worker process by the engine:
an activity kind (`kinds/`: profile, export_engine) drives a runtime (`runtimes/`: onnxruntime, tensorrt) and writes
a report in `report_format`.

No Jupyter imports here: this layer runs on a GPU host with only numpy, onnx, onnxruntime and pynvml.
Its names load their modules on first use (_lazy_names.py: a designer's open reads only a few of them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dld_jupyter._lazy_names import lazy_names

if TYPE_CHECKING:
    from dld_jupyter.activities.api import ActivityFailed, EngineExport, export_engine, profile
    from dld_jupyter.activities.errors import ActivityError, RunFailed, SpecError, UnavailableError
    from dld_jupyter.activities.result import ActivityResult, ActivityStatus, LogLine, Progress
    from dld_jupyter.activities.run import Run
    from dld_jupyter.activities.runtimes.base import Runtime
    from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
    from dld_jupyter.activities.runtimes.tensorrt.settings import ProfilerSettings, TrtSettings
    from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec, TrtProfileSpec
    from dld_jupyter.activities.scheduler import run_activity, start_activity
    from dld_jupyter.activities.spec import ActivitySpec, spec_from_dict, spec_from_json

__all__ = [
    "ActivityError",
    "ActivityFailed",
    "ActivityResult",
    "ActivitySpec",
    "ActivityStatus",
    "EngineExport",
    "LogLine",
    "OrtProfileSpec",
    "ProfilerSettings",
    "Progress",
    "Run",
    "RunFailed",
    "Runtime",
    "SpecError",
    "TrtBuildSpec",
    "TrtProfileSpec",
    "TrtSettings",
    "UnavailableError",
    "export_engine",
    "profile",
    "run_activity",
    "spec_from_dict",
    "spec_from_json",
    "start_activity",
]

_NAMES = {  # name: the module that defines it
    "ActivityFailed": "dld_jupyter.activities.api",
    "EngineExport": "dld_jupyter.activities.api",
    "export_engine": "dld_jupyter.activities.api",
    "profile": "dld_jupyter.activities.api",
    "ActivityError": "dld_jupyter.activities.errors",
    "RunFailed": "dld_jupyter.activities.errors",
    "SpecError": "dld_jupyter.activities.errors",
    "UnavailableError": "dld_jupyter.activities.errors",
    "ActivityResult": "dld_jupyter.activities.result",
    "ActivityStatus": "dld_jupyter.activities.result",
    "LogLine": "dld_jupyter.activities.result",
    "Progress": "dld_jupyter.activities.result",
    "Run": "dld_jupyter.activities.run",
    "Runtime": "dld_jupyter.activities.runtimes.base",
    "OrtProfileSpec": "dld_jupyter.activities.runtimes.onnxruntime.spec",
    "ProfilerSettings": "dld_jupyter.activities.runtimes.tensorrt.settings",
    "TrtSettings": "dld_jupyter.activities.runtimes.tensorrt.settings",
    "TrtBuildSpec": "dld_jupyter.activities.runtimes.tensorrt.spec",
    "TrtProfileSpec": "dld_jupyter.activities.runtimes.tensorrt.spec",
    "run_activity": "dld_jupyter.activities.scheduler",
    "start_activity": "dld_jupyter.activities.scheduler",
    "ActivitySpec": "dld_jupyter.activities.spec",
    "spec_from_dict": "dld_jupyter.activities.spec",
    "spec_from_json": "dld_jupyter.activities.spec",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
