"""Settings -> what TensorRT is asked to do, as plain data: the equivalent `trtexec` command line (users reuse it)
and the Polygraphy loader keywords plus the few direct TensorRT API calls Polygraphy has no keyword for.

Pure: no tensorrt or polygraphy import. TensorRT enum members are named (`TrtEnum("BuilderFlag", "FP16")`) and
resolved by the backend with getattr on the real module, so every name is listed here once and tested per option.
The flags are trtexec's documented options (TensorRT 10 `trtexec --help`); where trtexec cannot express a
setting the same way (warm-up counted in passes, fp8/int4/... layer precisions) the command says so in `notes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dld_jupyter.activities.runtimes.tensorrt.model import ModelTrtAttributes, build_shapes
from dld_jupyter.activities.runtimes.tensorrt.settings import ProfilerSettings, TrtSettings
from dld_jupyter.formats.trt_metadata import OptimizationProfile

# trtexec --layerPrecisions grammar: precision ::= "fp32"|"fp16"|"bf16"|"int32"|"int8"
TRTEXEC_LAYER_PRECISIONS = ("fp32", "fp16", "bf16", "int32", "int8")
# Layer precision -> trt.DataType member (ILayer.precision)
DATA_TYPES = {
    "fp32": "FLOAT",
    "fp16": "HALF",
    "bf16": "BF16",
    "fp8": "FP8",
    "int64": "INT64",
    "int32": "INT32",
    "int8": "INT8",
    "int4": "INT4",
    "uint8": "UINT8",
    "bool": "BOOL",
}
# The seed's "cuDNN and cuBLAS tactics": trt.TacticSource members / trtexec --tacticSources library names
LIBRARY_TACTICS = ("CUDNN", "CUBLAS", "CUBLAS_LT")
MIB = 1 << 20


@dataclass(frozen=True)
class TrtEnum:
    """A TensorRT enum member by name: `getattr(getattr(trt, enum), member)`."""

    enum: str
    member: str

    def __str__(self) -> str:
        return f"trt.{self.enum}.{self.member}"


@dataclass(frozen=True)
class BuildPlan:
    """How the backend builds: Polygraphy loader keywords, then direct TensorRT calls for the rest."""

    network: dict[str, Any]  # polygraphy.backend.trt.NetworkFromOnnxPath keywords (besides the path)
    config: dict[str, Any]  # polygraphy.backend.trt.CreateConfig keywords (profiles/calibrator added by the backend)
    engine: dict[str, Any]  # polygraphy.backend.trt.EngineFromNetwork keywords
    profiles: dict[str, OptimizationProfile]  # -> polygraphy Profile().add(name, min, opt, max)
    layer_precisions: dict[str, TrtEnum]  # -> polygraphy SetLayerPrecisions (layer name -> trt.DataType)
    plugins: tuple[str, ...]  # -> polygraphy LoadPlugins(plugins=...)
    tactic_sources: dict[str, bool]  # direct: IBuilderConfig.set_tactic_sources (TacticSource member -> on)
    calibration_cache: str | None  # -> polygraphy Calibrator(data_loader=[], cache=...) for implicit INT8
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _jsonable(
            {
                "NetworkFromOnnxPath": self.network,
                "CreateConfig": self.config,
                "EngineFromNetwork": self.engine,
                "Profile.add": {k: p.to_json() for k, p in self.profiles.items()},
                "SetLayerPrecisions": self.layer_precisions,
                "LoadPlugins": list(self.plugins),
                "IBuilderConfig.set_tactic_sources": self.tactic_sources,
                "Calibrator.cache": self.calibration_cache,
                "notes": list(self.notes),
            }
        )
        return data


def _jsonable(value: Any) -> Any:
    if isinstance(value, TrtEnum):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def _effective_precisions(settings: TrtSettings, attrs: ModelTrtAttributes, notes: list[str]) -> dict[str, str]:
    if attrs.unreachable_precisions:
        shown = ", ".join(attrs.unreachable_precisions[:5]) + (" …" if len(attrs.unreachable_precisions) > 5 else "")
        notes.append(
            f"{len(attrs.unreachable_precisions)} layer precision constraint(s) inside local functions or subgraphs "
            f"are ignored ({shown}): TensorRT layers are found by the main graph's node names; inline the function "
            "or set them on main-graph nodes"
        )
    if not attrs.precisions:
        return {}
    if settings.precision_constraints is None:
        notes.append(
            f"{len(attrs.precisions)} layer precision constraint(s) in the model are ignored: typing mode is "
            f"{settings.typing!r}; choose 'obey' or 'prefer' to apply them"
        )
        return {}
    return dict(attrs.precisions)


def build_plan(
    settings: TrtSettings, attrs: ModelTrtAttributes, timing_cache: str | None, *, save_metadata: bool | None = None
) -> BuildPlan:
    """The Polygraphy/TensorRT build of `settings` on a model with `attrs`; `timing_cache` is loaded and saved."""
    notes: list[str] = []
    typed = settings.strongly_typed
    config: dict[str, Any] = {"tf32": settings.tf32}
    if typed:
        if settings.fp16 or settings.bf16 or settings.int8 or settings.fp8:
            notes.append("strongly typed: the FP16/BF16/INT8/FP8 tactics settings are ignored (types come from ONNX)")
    else:
        config.update(fp16=settings.fp16, bf16=settings.bf16, int8=settings.int8, fp8=settings.fp8)
    if settings.precision_constraints is not None:
        config["precision_constraints"] = settings.precision_constraints
    config["sparse_weights"] = settings.sparsity
    detailed = settings.save_metadata if save_metadata is None else save_metadata
    config["profiling_verbosity"] = TrtEnum("ProfilingVerbosity", "DETAILED" if detailed else "NONE")
    if settings.workspace_mib is not None:
        config["memory_pool_limits"] = {TrtEnum("MemoryPoolType", "WORKSPACE"): settings.workspace_mib * MIB}
    config["refittable"] = settings.refit == "refit"
    config["strip_plan"] = settings.refit == "strip"
    config["builder_optimization_level"] = settings.optimization_level
    if settings.hardware_compatible:
        config["hardware_compatibility_level"] = TrtEnum("HardwareCompatibilityLevel", "AMPERE_PLUS")
    if settings.max_aux_streams is not None:
        config["max_aux_streams"] = settings.max_aux_streams
    config["version_compatible"] = settings.version_compatible
    if timing_cache:
        config["load_timing_cache"] = timing_cache
    precisions = _effective_precisions(settings, attrs, notes)
    if settings.int8 and not typed and not settings.calibration_cache:
        notes.append(
            "INT8 without a calibration cache: an implicitly quantized network gets placeholder dynamic ranges "
            "(as trtexec does), so its accuracy is not representative"
        )
    return BuildPlan(
        network={"strongly_typed": typed, "plugin_instancenorm": not settings.native_instancenorm},
        config=config,
        engine={"save_timing_cache": timing_cache} if timing_cache else {},
        profiles=build_shapes(attrs, settings.batch_size),
        layer_precisions={name: TrtEnum("DataType", DATA_TYPES[p]) for name, p in precisions.items()},
        plugins=settings.plugins,
        tactic_sources={name: settings.cudnn_cublas for name in LIBRARY_TACTICS},
        calibration_cache=settings.calibration_cache if settings.int8 and not typed else None,
        notes=tuple(notes),
    )


def trtexec_name(name: str) -> str | None:
    """`name` spelled for trtexec's `--layerPrecisions` and `--minShapes/--optShapes/--maxShapes` lists, or None
    when no spelling reaches it.

    trtexec (samples/common/sampleOptions.cpp, TensorRT 10) splits such a list on every "," before it looks at
    quotes; an item holding exactly two single quotes names the quoted text, any other item is split on its last
    ":"; the layer name "*" means every layer. So a name with ":" is single-quoted ('a:b':fp16), and a name with
    "," or "'" (or the name "*") cannot be written at all: `a,*:fp16` would constrain every layer.
    """
    if not name or name == "*" or "," in name or "'" in name:
        return None
    return f"'{name}'" if ":" in name else name


def _shape(profile: dict[str, OptimizationProfile], which: str) -> str:
    return ",".join(
        f"{trtexec_name(name)}:{'x'.join(str(d) for d in getattr(p, which))}"
        for name, p in profile.items()
        if trtexec_name(name) is not None
    )


@dataclass
class TrtexecCommand:
    argv: list[str]
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        import shlex

        return shlex.join(self.argv)


def build_flags(settings: TrtSettings, plan: BuildPlan) -> list[str]:
    """The trtexec build options of `settings` (model, profiles and precisions included)."""
    flags: list[str] = []
    if any(trtexec_name(name) for name in plan.profiles):
        flags += [f"--{which}Shapes={_shape(plan.profiles, which)}" for which in ("min", "opt", "max")]
    if settings.strongly_typed:
        flags.append("--stronglyTyped")
    if not settings.tf32:
        flags.append("--noTF32")
    for name in ("fp16", "bf16", "int8", "fp8"):
        if plan.config.get(name):
            flags.append(f"--{name}")
    if plan.calibration_cache:
        flags.append(f"--calib={plan.calibration_cache}")
    if "precision_constraints" in plan.config:
        flags.append(f"--precisionConstraints={plan.config['precision_constraints']}")
    if plan.layer_precisions:
        member_to_name = {v: k for k, v in DATA_TYPES.items()}
        specs = [(layer, member_to_name[enum.member]) for layer, enum in plan.layer_precisions.items()]
        expressible = [
            f"{trtexec_name(layer)}:{p}" for layer, p in specs if p in TRTEXEC_LAYER_PRECISIONS and trtexec_name(layer)
        ]
        if expressible:
            flags.append("--layerPrecisions=" + ",".join(expressible))
    if settings.sparsity:
        flags.append("--sparsity=enable")
    sign = "+" if settings.cudnn_cublas else "-"
    flags.append("--tacticSources=" + ",".join(sign + lib for lib in LIBRARY_TACTICS))
    if not settings.native_instancenorm:
        flags.append("--pluginInstanceNorm")
    flags.append(f"--builderOptimizationLevel={settings.optimization_level}")
    if settings.max_aux_streams is not None:
        flags.append(f"--maxAuxStreams={settings.max_aux_streams}")
    if settings.hardware_compatible:
        flags.append("--hardwareCompatibilityLevel=ampere+")
    if settings.workspace_mib is not None:
        flags.append(f"--memPoolSize=workspace:{settings.workspace_mib}")  # no suffix: MiB
    if settings.refit == "refit":
        flags.append("--refit")
    elif settings.refit == "strip":
        flags.append("--stripWeights")
    if settings.version_compatible:
        flags.append("--versionCompatible")
    if "load_timing_cache" in plan.config:
        flags.append(f"--timingCacheFile={plan.config['load_timing_cache']}")
    return flags


def _system_flags(settings: TrtSettings) -> list[str]:
    flags = [f"--staticPlugins={p}" for p in settings.plugins]
    if settings.device:
        flags.append(f"--device={settings.device}")
    return flags


def _precision_notes(plan: BuildPlan) -> list[str]:
    member_to_name = {v: k for k, v in DATA_TYPES.items()}
    left = [f"{layer}:{member_to_name[e.member]}" for layer, e in plan.layer_precisions.items()]
    left = [spec for spec in left if spec.rsplit(":", 1)[1] not in TRTEXEC_LAYER_PRECISIONS]
    notes = []
    if left:
        notes.append(
            f"trtexec --layerPrecisions accepts only {'|'.join(TRTEXEC_LAYER_PRECISIONS)}: {', '.join(left)} "
            "are applied by the Python API (ILayer.precision) only"
        )
    layers = [repr(name) for name in plan.layer_precisions if trtexec_name(name) is None]
    if layers:
        notes.append(
            f"trtexec cannot name the layer(s) {', '.join(layers)} (its lists split on ',' and take '*' as every "
            "layer; quotes cannot hold a quote): their precisions are applied by the Python API only"
        )
    inputs = [repr(name) for name in plan.profiles if trtexec_name(name) is None]
    if inputs:
        notes.append(
            f"trtexec cannot name the input(s) {', '.join(inputs)} in --minShapes/--optShapes/--maxShapes (a ',' or "
            "a quote in the name): this command lacks their profiles; the Python API build has them. Rename the "
            "inputs to run it with trtexec"
        )
    return notes


def export_command(
    settings: TrtSettings, plan: BuildPlan, model: str, engine: str, metadata: str | None, binary: str = "trtexec"
) -> TrtexecCommand:
    """`trtexec` building `model` into `engine` with `settings`, without running inference."""
    argv = [binary, f"--onnx={model}", f"--saveEngine={engine}", *build_flags(settings, plan)]
    argv.append(f"--profilingVerbosity={'detailed' if settings.save_metadata else 'none'}")
    if metadata:
        argv.append(f"--exportLayerInfo={metadata}")
    argv += [*_system_flags(settings), "--skipInference"]
    return TrtexecCommand(argv, [*plan.notes, *_precision_notes(plan)])


def profile_command(
    settings: TrtSettings,
    profiler: ProfilerSettings,
    plan: BuildPlan | None,
    model: str,
    outputs: str,
    binary: str = "trtexec",
) -> TrtexecCommand:
    """`trtexec` profiling `model` (or the prebuilt engine) per layer; its exports go to `<outputs>.*.json`."""
    notes: list[str] = []
    if profiler.prebuilt_engine or plan is None:
        argv = [binary, f"--loadEngine={profiler.prebuilt_engine}"]
        notes.append("prebuilt engine: the Tactics and Optimizer settings are ignored")
    else:
        argv = [binary, f"--onnx={model}", *build_flags(settings, plan), "--profilingVerbosity=detailed"]
        notes += [*plan.notes, *_precision_notes(plan)]
    argv += [
        f"--iterations={profiler.iterations}",
        "--duration=0",  # exactly the measurement passes, not trtexec's default 3 s
        "--separateProfileRun",  # pass times without the profiler, layer times with it
        "--dumpProfile",
        f"--exportProfile={outputs}.profile.json",
        f"--exportLayerInfo={outputs}.graph.json",
        f"--exportTimes={outputs}.timing.json",
    ]
    if profiler.hide_non_compute:
        argv.append("--noDataTransfers")
    argv += _system_flags(settings)
    notes.append(f"trtexec warms up for a time (--warmUp, ms), not for {profiler.warmup} passes")
    return TrtexecCommand(argv, notes)
