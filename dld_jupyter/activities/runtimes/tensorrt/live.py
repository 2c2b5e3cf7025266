"""The real TensorRT runtime: builds through Polygraphy's loaders, measures with the TensorRT 10 Python API.

Build: `NetworkFromOnnxPath(strongly_typed, plugin_instancenorm)` -> `SetLayerPrecisions` -> `CreateConfig(...)`
(profiles, calibrator, timing cache, every flag Polygraphy has a keyword for) -> `PostprocessConfig` for what it
lacks (tactic sources: default set +/- cuDNN, cuBLAS, cuBLASLt; placeholder INT8 dynamic ranges as trtexec gives
an implicitly quantized network without a calibration cache) -> `EngineFromNetwork(save_timing_cache)`.
Run: two execution contexts, a plain one (pass wall times) and one with an `IProfiler` (`report_layer_time` per
layer per pass); inputs are random at the profile's opt shapes; copies go through Polygraphy's CUDA wrapper,
synchronously, and are timed on the host. Imported only in the worker; nothing here runs without TensorRT.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import RunFailed, SpecError, UnavailableError
from dld_jupyter.activities.gpu.nvml import device_problem
from dld_jupyter.activities.gpu.visible import narrow
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes.base import PassTimes
from dld_jupyter.activities.runtimes.tensorrt.mapping import BuildPlan, TrtEnum
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings

INSTALL_HINT = (
    "pip install tensorrt (needs an NVIDIA GPU and driver; see https://docs.nvidia.com/deeplearning/tensorrt)"
)
PLACEHOLDER_RANGE = 2.0  # trtexec's placeholder dynamic range for implicitly quantized INT8 without calibration


def import_tensorrt(settings: TrtSettings) -> Any:
    """`tensorrt` from this environment, or from the installation folder of `settings.tensorrt_path`."""
    if settings.tensorrt == "path" and settings.tensorrt_path and settings.tensorrt_path not in sys.path:
        sys.path.insert(0, settings.tensorrt_path)
    try:
        import tensorrt
    except ImportError as error:
        where = f" in {settings.tensorrt_path}" if settings.tensorrt == "path" else " in this Python environment"
        raise UnavailableError(f"TensorRT is not installed{where} ({error}): {INSTALL_HINT}") from error
    origin = Path(getattr(tensorrt, "__file__", None) or ".").resolve()
    if settings.tensorrt == "path" and not origin.is_relative_to(Path(settings.tensorrt_path or "").resolve()):
        raise UnavailableError(f"the tensorrt imported is {origin.parent}, not the chosen installation "
                               f"{settings.tensorrt_path} (another was imported first): choose that one instead")
    return tensorrt


def select_device(index: int) -> None:
    """Make CUDA device `index` the only visible one, before CUDA starts in this worker process; NVML still maps
    `index` to the same GPU (`gpu.visible.narrow` remembers the listing), and a GPU the host lacks is named."""
    problem = device_problem(index)
    if problem is not None:
        raise UnavailableError(problem)
    narrow(index)


def resolve(trt: Any, value: Any) -> Any:
    """TrtEnum markers (also as dict keys) -> the real TensorRT enum members."""
    if isinstance(value, TrtEnum):
        return getattr(getattr(trt, value.enum), value.member)
    if isinstance(value, dict):
        return {resolve(trt, k): resolve(trt, v) for k, v in value.items()}
    return value


def _config_postprocess(trt: Any, plan: BuildPlan, int8_placeholders: bool) -> Callable[[Any, Any, Any], None]:
    def apply(builder: Any, network: Any, config: Any) -> None:
        sources = int(config.get_tactic_sources())
        for member, enabled in plan.tactic_sources.items():
            bit = 1 << int(getattr(trt.TacticSource, member))
            sources = sources | bit if enabled else sources & ~bit
        config.set_tactic_sources(sources)
        if int8_placeholders and not any(
            layer.type in (trt.LayerType.QUANTIZE, trt.LayerType.DEQUANTIZE) for layer in network
        ):
            for i in range(network.num_layers):
                layer = network.get_layer(i)
                for j in range(layer.num_outputs):
                    layer.get_output(j).set_dynamic_range(-PLACEHOLDER_RANGE, PLACEHOLDER_RANGE)
            for i in range(network.num_inputs):
                network.get_input(i).set_dynamic_range(-PLACEHOLDER_RANGE, PLACEHOLDER_RANGE)

    return apply


class LiveRuntime:
    name = "tensorrt"

    def __init__(self, settings: TrtSettings) -> None:
        if settings.tensorrt == "trtexec":
            raise UnavailableError(
                "running a trtexec binary is not supported by this backend: use the command line from --dry-run, "
                "then `dld report import-trtexec` on its exports"
            )
        select_device(settings.device)
        self.trt = import_tensorrt(settings)
        self.settings = settings
        self.logger = self.trt.Logger(self.trt.Logger.WARNING)

    @property
    def version(self) -> str:
        return str(self.trt.__version__)

    def build(self, model: str, plan: BuildPlan, reporter: Reporter) -> LiveEngine:
        from polygraphy.backend.trt import (
            Calibrator,
            CreateConfig,
            EngineFromNetwork,
            LoadPlugins,
            NetworkFromOnnxPath,
            PostprocessConfig,
            Profile,
            SetLayerPrecisions,
        )

        trt = self.trt
        network: Any = NetworkFromOnnxPath(model, **plan.network)
        if plan.plugins:
            network = LoadPlugins(plugins=list(plan.plugins), obj=network)
        if plan.layer_precisions:
            network = SetLayerPrecisions(network, resolve(trt, plan.layer_precisions))
        profile = Profile()
        for name, shapes in plan.profiles.items():
            profile.add(name, min=shapes.min, opt=shapes.opt, max=shapes.max)
        calibrator = Calibrator(data_loader=[], cache=plan.calibration_cache) if plan.calibration_cache else None
        config = CreateConfig(
            profiles=[profile] if plan.profiles else None,
            calibrator=calibrator,
            **{key: resolve(trt, value) for key, value in plan.config.items()},
        )
        int8_placeholders = bool(plan.config.get("int8")) and calibrator is None
        config = PostprocessConfig(config, _config_postprocess(trt, plan, int8_placeholders))
        reporter.log(f"building with TensorRT {self.version}")
        try:
            engine = EngineFromNetwork(network, config=config, **plan.engine)()
        except Exception as error:
            raise RunFailed(f"TensorRT could not build the engine: {error}") from error
        return LiveEngine(trt, engine)

    def load(self, engine_path: str, plugins: tuple[str, ...]) -> LiveEngine:
        from polygraphy.backend.trt import EngineFromBytes, LoadPlugins

        with open(engine_path, "rb") as stream:
            data = stream.read()
        loader: Any = EngineFromBytes(data)
        if plugins:
            loader = LoadPlugins(plugins=list(plugins), obj=loader)
        try:
            return LiveEngine(self.trt, loader())
        except Exception as error:
            raise RunFailed(f"TensorRT could not load {engine_path}: {error}") from error


class _LayerTimes:
    """An IProfiler subclass is made at run time (trt.IProfiler); this collects what it reports."""

    def __init__(self) -> None:
        self.layers: list[tuple[str, float]] = []

    def take(self) -> list[tuple[str, float]]:
        layers, self.layers = self.layers, []
        return layers


class LivePasses:
    """Passes of one execution context (`TrtEngine.passes`): each `run()` is one timed pass."""

    def __init__(
        self, bindings: Any, context: Any, copies: bool, take_layers: Callable[[], list[tuple[str, float]]] | None
    ) -> None:
        self.bindings, self.context, self.copies, self.take_layers = bindings, context, copies, take_layers

    def run(self) -> PassTimes:
        from dld_jupyter.activities.runtimes.tensorrt.live_io import timed_pass

        return timed_pass(self.bindings, self.context, self.copies, self.take_layers, time.perf_counter)

    def outputs(self) -> dict[str, Any]:
        if not self.copies:
            raise SpecError("outputs: these passes leave outputs on the device (copies hidden)")
        pairs = zip(self.bindings.output_names, self.bindings.outputs, strict=True)
        return {name: host.copy() for name, (host, _) in pairs}


class LiveEngine:
    def __init__(self, trt: Any, engine: Any) -> None:
        self.trt, self.engine = trt, engine

    @property
    def device_memory_bytes(self) -> int:
        size = getattr(self.engine, "device_memory_size_v2", None)
        return int(size if size is not None else self.engine.device_memory_size)

    def layer_information(self) -> Any:
        inspector = self.engine.create_engine_inspector()
        return json.loads(inspector.get_engine_information(self.trt.LayerInformationFormat.JSON))

    def serialize(self) -> bytes:
        return bytes(self.engine.serialize())

    @property
    def refittable(self) -> bool:
        return bool(getattr(self.engine, "refittable", False))

    def refit(self, model: str) -> None:
        trt = self.trt
        logger = trt.Logger(trt.Logger.WARNING)
        refitter = trt.Refitter(self.engine, logger)
        parser = trt.OnnxParserRefitter(refitter, logger)
        if not parser.refit_from_file(model):
            errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors))
            raise SpecError(f"the prebuilt engine cannot take the weights of {model}: {errors or 'refit failed'}")
        if not refitter.refit_cuda_engine():
            raise RunFailed(f"TensorRT could not refit the prebuilt engine with the weights of {model}")

    @contextmanager
    def passes(
        self, shapes: dict[str, tuple[int, ...]], profiled: bool, copies: bool, seed: int
    ) -> Iterator[LivePasses]:
        from dld_jupyter.activities.runtimes.tensorrt.live_io import Bindings

        trt = self.trt
        context = self.engine.create_execution_context()
        collected = _LayerTimes()
        if profiled:

            class Profiler(trt.IProfiler):  # type: ignore[misc,name-defined]
                def __init__(self) -> None:
                    trt.IProfiler.__init__(self)

                def report_layer_time(self, layer_name: str, ms: float) -> None:
                    collected.layers.append((layer_name, float(ms)))

            context.profiler = Profiler()
        bindings = Bindings(trt, self.engine, context, shapes, seed)
        try:
            yield LivePasses(bindings, context, copies, collected.take if profiled else None)
        finally:
            bindings.free()

    def close(self) -> None:
        del self.engine
