"""Activities: profiling runs described by frozen specs, executed in a worker process by the engine.

No Jupyter imports here: this layer runs on a GPU host with only numpy, onnx, onnxruntime and pynvml.
"""

from dld_jupyter.activities.api import ActivityFailed, profile
from dld_jupyter.activities.engine import ActivityHandle, run_activity, start_activity
from dld_jupyter.activities.errors import ActivityError, RunFailed, SpecError, UnavailableError
from dld_jupyter.activities.result import ActivityResult, ActivityStatus, LogLine, Progress
from dld_jupyter.activities.spec import OrtProfileSpec, spec_from_json

__all__ = [
    "ActivityError",
    "ActivityFailed",
    "ActivityHandle",
    "ActivityResult",
    "ActivityStatus",
    "LogLine",
    "OrtProfileSpec",
    "Progress",
    "RunFailed",
    "SpecError",
    "UnavailableError",
    "profile",
    "run_activity",
    "spec_from_json",
    "start_activity",
]
