"""What a report holds, said once (issue 38): the device that ran its layers and the layer columns it fills, so the
views (reports/, widgets) read `report.capabilities` instead of branching on the runtime's name (`backend ==
"tensorrt"` was tested in eight places of reports/, each restating what a TensorRT or an ONNX Runtime report has).

A report carries them (`capabilities` in its JSON, written since this module); a report written before them, or built
without them, gets them derived from its summary here, the one place that knows what each backend's reports hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PROVIDER = "provider"  # each layer names the execution provider that ran it (the Execution Provider column)
HOST_MS = "host_ms"  # layer times are host (CPU) clock times around each node (the dashboards' CPU ms)
DEVICE_MS = "device_ms"  # layer times are device (GPU) clock times of each layer (the dashboards' GPU ms)
BUILD_PRECISION = "build_precision"  # each layer's precision is what an engine build chose (not only its inputs')
COLUMNS = (PROVIDER, HOST_MS, DEVICE_MS, BUILD_PRECISION)
DEVICE_KINDS = ("cpu", "gpu")


@dataclass
class Capabilities:
    """`device_kind`: "cpu" or "gpu", what ran the layers ("": not stated, derive it); `columns`: of `COLUMNS`, the
    layer columns the report fills."""

    device_kind: str = ""
    columns: list[str] = field(default_factory=list)

    def has(self, column: str) -> bool:
        return column in self.columns

    @property
    def on_gpu(self) -> bool:
        return self.device_kind == "gpu"


def derive(backend: str, provider: str) -> Capabilities:
    """The capabilities of a report of `backend` and `provider` (its summary's; reports that do not state theirs)."""
    if backend == "tensorrt":  # an engine's per-layer GPU times; its builder chose each layer's precision
        return Capabilities("gpu", [DEVICE_MS, BUILD_PRECISION])
    # ONNX Runtime (profiled or imported): host time around each node, and the provider that ran it
    return Capabilities("cpu" if provider.startswith("CPU") else "gpu", [PROVIDER, HOST_MS])
