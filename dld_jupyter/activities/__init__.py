"""Activities: runs described by frozen specs (`ActivitySpec` kinds), executed in a worker process by the engine:
an activity kind (`kinds/`: profile, export_engine) drives a runtime (`runtimes/`: onnxruntime, tensorrt) and writes
a report in `report_format`.

No Jupyter imports here: this layer runs on a GPU host with only numpy, onnx, onnxruntime and pynvml.
"""

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
