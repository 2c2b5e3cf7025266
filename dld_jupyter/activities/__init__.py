"""Activities: runs described by frozen specs (`ActivitySpec` kinds), executed in a worker process by the engine
through a registered `Backend` (ONNX Runtime, TensorRT), writing a report in `report_format`.

No Jupyter imports here: this layer runs on a GPU host with only numpy, onnx, onnxruntime and pynvml.
"""

from dld_jupyter.activities.api import ActivityFailed, profile
from dld_jupyter.activities.backend import Backend
from dld_jupyter.activities.engine import ActivityHandle, run_activity, start_activity
from dld_jupyter.activities.errors import ActivityError, RunFailed, SpecError, UnavailableError
from dld_jupyter.activities.ort_spec import OrtProfileSpec
from dld_jupyter.activities.result import ActivityResult, ActivityStatus, LogLine, Progress
from dld_jupyter.activities.spec import ActivitySpec, spec_from_dict, spec_from_json
from dld_jupyter.activities.trt_api import EngineExport, export_engine
from dld_jupyter.activities.trt_settings import ProfilerSettings, TrtSettings
from dld_jupyter.activities.trt_spec import TrtBuildSpec, TrtProfileSpec

__all__ = [
    "ActivityError",
    "ActivityFailed",
    "ActivityHandle",
    "ActivityResult",
    "ActivitySpec",
    "ActivityStatus",
    "Backend",
    "EngineExport",
    "LogLine",
    "OrtProfileSpec",
    "ProfilerSettings",
    "Progress",
    "RunFailed",
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
