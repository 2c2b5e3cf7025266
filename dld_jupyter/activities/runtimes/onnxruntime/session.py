"""ONNX Runtime sessions (seed 000 "Profiling with ONNX Runtime", measured per seed 003).

A session holds one ORT `InferenceSession` at a time: plain passes run on a session without the per-node profiler
(their median is the number users trust, `summary.median_ms`); the first profiled pass swaps it for a session with
`enable_profiling`, whose trace gives per-node times. With optimization on, the optimized model ORT writes maps
fused nodes back to their ONNX sources. The measured loop itself is `activities.kinds.profile`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import onnx

from dld_jupyter.activities.errors import RunFailed, SpecError, UnavailableError
from dld_jupyter.activities.gpu.nvml import device_info, device_problem
from dld_jupyter.activities.optional import import_optional
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes.base import Feeds, LayerTable, PassTimes
from dld_jupyter.activities.runtimes.onnxruntime.inputs import folder_feeds, random_feeds
from dld_jupyter.activities.runtimes.onnxruntime.install import cuda_missing_reason
from dld_jupyter.activities.runtimes.onnxruntime.kernels import link_recorded, pass_windows, start_recorder
from dld_jupyter.activities.runtimes.onnxruntime.nodes import map_nodes
from dld_jupyter.activities.runtimes.onnxruntime.report import ort_layers, with_copy_rows, with_host_row
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.runtimes.onnxruntime.trace import parse_profile
from dld_jupyter.activities.system import cpu_model, system_info
from dld_jupyter.formats.node_names import name_unnamed_nodes
from dld_jupyter.report_format.builder import RunInfo


def load_ort() -> ModuleType:
    return import_optional("onnxruntime", "onnxruntime")


def check_provider(ort: ModuleType, spec: OrtProfileSpec) -> None:
    available = list(ort.get_available_providers())
    if spec.ort_provider in available:
        return
    if spec.provider == "cuda":
        raise UnavailableError(cuda_missing_reason(str(ort.__version__), available))
    version = ort.__version__
    raise UnavailableError(f"{spec.ort_provider} is not available in onnxruntime {version}; available: {available}")


def load_model(spec: OrtProfileSpec, reporter: Reporter) -> tuple[onnx.ModelProto, str | bytes]:
    """The model's graph (no weights) and what to hand ORT: its path, or bytes when nodes had to be named."""
    try:
        model = onnx.load(spec.model, load_external_data=False)
    except Exception as error:
        raise SpecError(f"model: {spec.model} is not a readable ONNX model ({error})") from error
    # ORT reports nodes by name: unnamed nodes get the names opening the model gives them (formats/node_names.py),
    # so every layer maps back to the node the designer shows.
    generated = name_unnamed_nodes(model)
    if not generated.main_indices:
        return model, spec.model
    shown = ", ".join(generated.names[:3]) + (", …" if len(generated.names) > 3 else "")
    reporter.log(f"{len(generated.main_indices)} nodes have no name: profiling a copy where they are named as on "
                 f"opening ({shown})", "warning")
    full = onnx.load(spec.model)
    name_unnamed_nodes(full)
    return model, full.SerializeToString()


def session_options(ort: ModuleType, spec: OrtProfileSpec, workdir: Path | None) -> Any:
    """Options of the plain session (no `workdir`) or of the profiled one, which also writes the graph it runs:
    fused nodes (optimization on) and the bodies of function ops it inlines (HardSwish, on or off) are mapped
    back to the ONNX nodes through it."""
    options = ort.SessionOptions()
    options.log_severity_level = 3  # errors only: warnings would drown the activity log
    level = ort.GraphOptimizationLevel
    options.graph_optimization_level = level.ORT_ENABLE_ALL if spec.optimize else level.ORT_DISABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL  # layer times then add up to the pass
    if spec.threads:
        options.intra_op_num_threads = spec.threads
    if workdir is not None:
        options.enable_profiling = True
        options.profile_file_prefix = str(workdir / "ort_profile")
        options.optimized_model_filepath = str(workdir / "optimized.onnx")
        # Large weights go beside it so models over 2 GB still serialize.
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", "optimized.data")
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    return options


def make_session(ort: ModuleType, source: str | bytes, options: Any, spec: OrtProfileSpec) -> Any:
    providers: list[Any] = [spec.ort_provider]
    if spec.provider == "cuda":
        providers = [(spec.ort_provider, {"device_id": str(spec.device)}), "CPUExecutionProvider"]
    try:
        session = ort.InferenceSession(source, options, providers=providers)
    except Exception as error:
        if spec.provider == "cuda" and "CUDA" in str(error):
            raise RunFailed(f"the CUDA execution provider failed to start: {error}") from error
        raise SpecError(f"model: onnxruntime cannot load {spec.model}: {error}") from error
    if session.get_providers()[0] != spec.ort_provider:  # ORT silently falls back to the CPU
        raise UnavailableError(f"{spec.ort_provider} could not be used; the session got {session.get_providers()}")
    return session


def pass_runner(ort: ModuleType, session: Any, feeds: Feeds, spec: OrtProfileSpec) -> Callable[[], object]:
    """One inference pass. Normally `session.run` from host arrays, copies to and from the device included; with
    `hide_non_compute` on a GPU the inputs are copied to the device once and the outputs stay there (I/O binding),
    so a pass is the model's compute alone (seed 000 "Hide Non-Compute Operations")."""
    if not spec.hide_non_compute:
        return lambda: session.run(None, feeds)
    device = "cuda" if spec.provider == "cuda" else "cpu"
    binding = session.io_binding()
    for name, array in feeds.items():
        binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(array, device, spec.device))
    for output in session.get_outputs():
        binding.bind_output(output.name, device, spec.device)

    def run() -> object:
        session.run_with_iobinding(binding)
        binding.synchronize_outputs()  # the pass ends when the device has finished, as a fetch would wait
        return None

    return run


def default_feeds(spec: OrtProfileSpec, graph: onnx.GraphProto) -> Feeds:
    """The inputs `spec` describes: random (seeded, batch filled in) or read from its input folder."""
    if spec.uses_random_inputs:
        return random_feeds(graph, spec.batch_size, spec.seed)
    assert spec.input_folder is not None
    return folder_feeds(graph, spec.input_folder)


class OrtSession:
    """`runtimes.base.Session` over ONNX Runtime; `workdir` receives the profiler's trace and optimized model."""

    def __init__(self, spec: OrtProfileSpec, reporter: Reporter, workdir: Path) -> None:
        self.spec, self.reporter, self.workdir = spec, reporter, workdir
        self.ort = load_ort()
        check_provider(self.ort, spec)
        self.model, self.source = load_model(spec, reporter)
        self.feeds = default_feeds(spec, self.model.graph)
        reporter.log(f"inputs: {', '.join(f'{k} {list(v.shape)} {v.dtype}' for k, v in self.feeds.items())}")
        self.gpu = spec.provider == "cuda"
        problem = device_problem(spec.device) if self.gpu else None
        if problem is not None:  # said before ORT's own "could not be used" fallback message
            raise UnavailableError(problem)
        if spec.hide_non_compute and not self.gpu:
            reporter.log("hide_non_compute: a CPU run copies nothing between devices; outputs stay bound", "info")
        self._session: Any = None
        self._profiled: bool | None = None  # which kind of session `_session` is
        self._runner: Callable[[], object] | None = None
        self._recorder: Any = None  # CUPTI kernel recorder of the kernel passes (`record_kernels`)
        self._recording = False  # profiled passes now record GPU activity
        self._recorded_runs = 0  # profiled passes run while recording (the last runs of ORT's profile)

    def _open(self, profiled: bool) -> Any:
        if self._profiled is not profiled:
            self._session = self._runner = None  # one session in memory at a time
            options = session_options(self.ort, self.spec, self.workdir if profiled else None)
            self._session, self._profiled = make_session(self.ort, self.source, options, self.spec), profiled
        return self._session

    def record_kernels(self, on: bool) -> bool:
        if not on:
            if self._recording:
                self._recorder.stop()  # flushed and disabled: later passes and fetches pay nothing
            self._recording = False
            return False
        if self._recorder is None:
            self._open(True)  # the kernel passes are profiled passes: their node windows tie kernels to layers
            self._recorder = start_recorder(self.spec, self.reporter)  # after the session: its setup is no pass
            self._recording = self._recorder is not None
        return self._recording

    def run(self, feeds: Feeds | None, profiled: bool) -> PassTimes:
        session = self._open(profiled)
        if feeds is None:
            if self._runner is None:
                self._runner = pass_runner(self.ort, session, self.feeds, self.spec)
            runner = self._runner
        else:
            runner = pass_runner(self.ort, session, dict(feeds), self.spec)
        if profiled and self._recording:
            self._recorded_runs += 1
        start = time.perf_counter()
        try:
            runner()  # outputs are fetched (or synchronized), so GPU work has finished
        except Exception as error:
            raise RunFailed(f"inference failed: {error}") from error
        end = time.perf_counter()
        return PassTimes(wall_ms=(end - start) * 1000.0, start=start)

    def layers(
        self,
        profiled: Sequence[PassTimes],
        median: int,
        kernel_passes: Sequence[PassTimes] = (),
        kernel_median: int = 0,
    ) -> LayerTable:
        if not self._profiled:
            raise RunFailed("no profiled pass ran: the layer table needs at least one")
        start_ns = int(self._session.get_profiling_start_time_ns())
        trace = self._session.end_profiling()
        every = parse_profile(trace)  # warm-up runs were profiled too; the recorded runs come last
        recorded = every[len(every) - self._recorded_runs :] if self._recorded_runs else []
        runs = every[: len(every) - len(recorded)][-len(profiled) :]
        if len(runs) != len(profiled):
            raise RunFailed(f"ORT's profile holds {len(runs)} measured runs, expected {len(profiled)}")
        optimized_path = self.workdir / "optimized.onnx"
        optimized = onnx.load(str(optimized_path), load_external_data=False) if optimized_path.exists() else None
        if optimized is None:
            self.reporter.log(
                "ORT did not write the graph it ran: fused layers are not mapped to ONNX nodes", "warning"
            )
        executed = [node.name for run in runs for node in run.nodes]
        node_map = map_nodes(self.model.graph, optimized.graph if optimized else None, executed)
        layers, timeline = ort_layers(runs, median, lambda name: node_map.sources.get(name, []), node_map.merged.get)
        if self.gpu and not self.spec.hide_non_compute:
            layers, timeline = with_copy_rows(runs, median, layers, timeline)
            layers = with_host_row(runs, [p.wall_ms for p in profiled], layers)
        table = LayerTable(layers, timeline, node_map.removed, node_map.reasons)
        if self._recorder is not None and kernel_passes:
            kernel_runs = recorded[len(recorded) - len(kernel_passes) :]  # the recording's warm-up left out
            if len(kernel_runs) != len(kernel_passes):
                raise RunFailed(f"ORT's profile holds {len(kernel_runs)} kernel runs, expected {len(kernel_passes)}")
            windows = pass_windows(kernel_runs, start_ns, layers, node_map.layer_of)
            table.kernels, table.kernel_capture = link_recorded(
                self._recorder, windows, kernel_median, passes_ms=[p.wall_ms for p in kernel_passes]
            )
        return table

    def outputs(self, names: Sequence[str], feeds: Feeds | None = None) -> dict[str, Any]:
        session = self._session if self._session is not None else self._open(False)
        wanted = list(names) or [output.name for output in session.get_outputs()]
        try:
            values = session.run(wanted, dict(feeds if feeds is not None else self.feeds))
        except Exception as error:
            raise SpecError(f"outputs {wanted}: onnxruntime cannot fetch them: {error}") from error
        return dict(zip(wanted, values, strict=True))

    def describe(self) -> tuple[RunInfo, dict[str, Any]]:
        spec = self.spec
        system = {**system_info(), "providers": list(self.ort.get_available_providers())}
        if self.gpu:
            system.update(device_info(spec.device))
        run_info = RunInfo(
            model=Path(spec.user_model()).stem,  # a copy of unsaved edits is named after its document
            model_path=spec.model,
            backend="onnxruntime",
            provider=spec.ort_provider,
            device=str(system.get("gpu", "GPU")) if self.gpu else f"CPU: {cpu_model()}",
            optimization="all" if spec.optimize else "disabled",
            settings={k: v for k, v in spec.to_dict().items() if k != "output"},
        )
        return run_info, system
