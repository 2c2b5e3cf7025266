"""What one TensorRT inference pass measured: the shape both the live runtime and a replaying stand-in produce.

Its own module so the runtime protocol (`trt_runtime`), the live runtime's pass timing (`trt_live_io`) and the report
assembly (`trt_report`) share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PassTimes:
    """One inference pass: its wall time and, for a profiled pass, each layer's time as IProfiler reported it."""

    wall_ms: float
    layers: list[tuple[str, float]] = field(default_factory=list)  # (layer name, ms) in report order
    h2d_ms: float = 0.0  # host->device input copies (0 when hidden)
    d2h_ms: float = 0.0  # device->host output copies (0 when hidden)
    start: float = 0.0  # time.perf_counter() at the pass start (aligns GPU metrics)
