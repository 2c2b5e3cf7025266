"""The contract every runtime meets (ONNX Runtime, TensorRT), Polygraphy-style: asked with a spec's settings whether
it can run here, it opens a session on a model; a session runs one timed pass at a time, gives the layer table of the
passes it profiled and fetches named outputs.

Activity kinds (`activities.kinds`) drive sessions: the profile kind owns the measured loop, warm-up and GPU-metric
sampling once for every runtime, so a runtime only knows how to run one pass. Heavy imports (onnxruntime, tensorrt)
happen inside `available` and `session`, never when a runtime module is imported (DESIGN.md, Layers).
`PassTimes` lives here because every runtime's pass and every replaying stand-in produce it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.report_format.builder import LayerRecord, RunInfo
from dld_jupyter.report_format.model import KernelRecord, TimelineEvent

Feeds = Mapping[str, Any]  # input name -> numpy array


@dataclass
class PassTimes:
    """One inference pass: its wall time and, for a profiled pass, each layer's time as the runtime reported it."""

    wall_ms: float
    layers: list[tuple[str, float]] = field(default_factory=list)  # (layer name, ms) in report order
    h2d_ms: float = 0.0  # host->device input copies (0 when hidden)
    d2h_ms: float = 0.0  # device->host output copies (0 when hidden)
    start: float = 0.0  # time.perf_counter() at the pass start (aligns GPU metrics)


@dataclass
class LayerTable:
    """What a session's profiled passes say per layer, ready for `report_format.builder.build_report`."""

    layers: list[LayerRecord]
    timeline: list[TimelineEvent]
    removed_nodes: list[str] = field(default_factory=list)
    removed_reasons: dict[str, str] = field(default_factory=dict)
    kernels: list[KernelRecord] = field(default_factory=list)  # GPU activity of the kernel passes (CUPTI)
    kernel_capture: dict[str, Any] = field(default_factory=dict)  # how they were recorded ({} when not)


class Session(Protocol):
    """A model opened by a runtime: one pass at a time, plain or profiled."""

    def run(self, feeds: Feeds | None, profiled: bool) -> PassTimes:
        """One timed pass (`feeds` None: the inputs the session's settings describe); layer times when `profiled`.
        Plain passes all come before profiled ones: a runtime may swap its plain session for a profiled one."""
        ...

    def record_kernels(self, on: bool) -> bool:
        """From the next profiled pass on, record the GPU activity of each pass (`on`), or stop recording; True when
        this session records it (a CUDA run with kernel records asked for and CUPTI usable), else False and nothing
        changes. The profile kind records in passes of their own, after the profiled series, so that CUPTI's cost
        never reaches the layer times."""
        ...

    def layers(
        self,
        profiled: Sequence[PassTimes],
        median: int,
        kernel_passes: Sequence[PassTimes] = (),
        kernel_median: int = 0,
    ) -> LayerTable:
        """The layer table of the profiled passes, its timeline from pass `median` (an index into `profiled`); with
        `kernel_passes` (the measured passes run while recording), their GPU activity tied to the layers, pass
        `kernel_median` of them being the one the report draws."""
        ...

    def outputs(self, names: Sequence[str], feeds: Feeds | None = None) -> dict[str, Any]:
        """The named outputs (all when `names` is empty) of one pass on `feeds`, as numpy arrays."""
        ...

    def describe(self) -> tuple[RunInfo, dict[str, Any]]:
        """The report's run information and system table for this session."""
        ...


class Runtime(Protocol):
    """One runtime: `name` is what users pass (`profile(backend="onnxruntime")`) and reports carry."""

    @property
    def name(self) -> str: ...

    def available(self, settings: Any = None) -> str | None:
        """None when the runtime can run `settings` here (None: its defaults); else why not, with the fix."""
        ...

    def session(self, model: str, settings: Any, reporter: Reporter) -> AbstractContextManager[Session]:
        """Open `model` as `settings` say (a spec of this runtime's kind); closed when the context ends."""
        ...
