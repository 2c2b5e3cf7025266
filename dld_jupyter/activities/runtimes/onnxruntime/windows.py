"""ONNX Runtime on windows of a model's values: one private weights copy, a session per window. The one engine the
analysis debugger (activities/analysis/engine.py) and divergence (model_compare/divergence.py) read values through.

Why windows and not "every tensor an output": marking every tensor as a graph output keeps them all alive to the end
of the pass (a BERT-base-sized encoder, seq 128: +300 MB over a plain run and 9x slower, since ORT copies each; on a
7B decoder the out-of-memory Polygraphy users report). Here the model is written once into a private folder with its
weights in one external file ONNX Runtime maps (`model_file.read_model`: one initializer at a time, so a copy never
holds the weights twice; an in-memory `onnx_ir` model is saved with at most 64 MB of weights in flight), and each
window is a small graph protobuf next to that file: the model with only the window's values added as outputs, or a
graph the caller cut from it (the analysis's prefixes and segments). The session lives for one window.

ORT runs with graph optimizations off, so every ONNX value exists and holds what the model as written computes; its
CPU arena is off and the heap trimmed after each session (ResNet-50 stepped one value per session: peak RSS 1.54 GB
with the arena, 0.30 GB without it). On CUDA the CPU provider takes the ops CUDA has no kernel for. Feeds are the
inputs the window's graph declares, each in the element type it declares (an FP16 copy reads float16). A
`CancelToken` ends the window's run through `RunOptions.terminate` and is checked again once the session is built, so
a cancel costs at most the step in flight; the private folder goes when the engine is closed, also when its copy
fails half-written.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np
import onnx

from dld_jupyter.activities.errors import RunFailed, UnavailableError
from dld_jupyter.activities.optional import import_optional
from dld_jupyter.activities.runtimes.onnxruntime.install import cuda_missing_reason
from dld_jupyter.activities.runtimes.onnxruntime.model_file import read_model
from dld_jupyter.activities.runtimes.onnxruntime.spec import PROVIDERS

if TYPE_CHECKING:  # onnx_ir only where a document is analysed: the engine runs on GPU hosts without it
    import onnx_ir as ir

    from dld_jupyter.transforms.progress import CancelToken

Array = np.ndarray[Any, Any]
WEIGHTS = "weights.bin"
IN_FLIGHT = 64 << 20  # bytes of weights read at a time while an in-memory model is written
_LIBC: Any = None  # the C library, once looked up (False: none to trim with)


def ort_provider(provider: str) -> str:
    """The ORT execution provider of `provider` ("cpu", "cuda", or an ORT name), checked against the installed
    build: UnavailableError saying which build to install otherwise."""
    ort = import_optional("onnxruntime", "onnxruntime (pip install 'dld_jupyter[cpu]')")
    name = PROVIDERS.get(provider, provider if provider in PROVIDERS.values() else None)
    if name is None:
        raise UnavailableError(f"provider {provider!r} is not one of {sorted(PROVIDERS)}")
    available = list(ort.get_available_providers())
    if name not in available:
        if name == PROVIDERS["cuda"]:
            raise UnavailableError(cuda_missing_reason(str(ort.__version__), available))
        raise UnavailableError(f"{name} is not available in onnxruntime {ort.__version__}; available: {available}")
    return name


class Windows:
    """One model's private copy and its windows of values on one provider (a context manager that removes the
    copy). `model` is the weightless graph the windows are cut from; its tensors' data is in `folder`."""

    def __init__(
        self,
        source: str | os.PathLike[str] | ir.Model,
        provider: str = "cpu",
        label: str = "the model",
        threads: int = 0,
        prefix: str = "dld-windows-",
    ) -> None:
        self._ort = import_optional("onnxruntime", "onnxruntime (pip install 'dld_jupyter[cpu]')")
        self.provider, self.label, self.threads = ort_provider(provider), label, threads
        self.folder = Path(tempfile.mkdtemp(prefix=prefix))
        try:
            self.model = _private_copy(source, self.folder)
        except BaseException:  # a full disk, a bad file, Ctrl-C: no half-written copy stays behind
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.inputs = {v.name: v for v in self.model.graph.input}
        self.sessions_built = 0
        self.most_outputs = 0  # the most values one session computed as outputs (never every value)
        self.largest_window = 0  # bytes of the largest window's values
        self.sequences: set[str] = set()  # values ORT gave as lists (sequences), not tensors

    def __enter__(self) -> Windows:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def window(self, names: Sequence[str]) -> onnx.ModelProto:
        """The whole model with `names` added to its outputs."""
        window = onnx.ModelProto()
        window.CopyFrom(self.model)
        declared = {o.name for o in window.graph.output}
        window.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names if n not in declared)
        return window

    def tensor_bytes(self, feeds: Mapping[str, Array]) -> dict[str, int]:
        """Estimated bytes of each value for `feeds`: ONNX shape inference on the weightless graph with the inputs'
        dimensions made those of the feeds; a value whose shape stays unknown is absent."""
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        for value in model.graph.input:
            dims = value.type.tensor_type.shape.dim
            if value.name in feeds and len(dims) == np.ndim(feeds[value.name]):
                for dim, size in zip(dims, np.shape(feeds[value.name]), strict=True):
                    dim.Clear()
                    dim.dim_value = int(size)
        try:
            inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
        except Exception:  # an op shape inference does not know, a custom domain: sized by value count only
            return {}
        sizes = {}
        for value in (*inferred.graph.value_info, *inferred.graph.output):
            tensor = value.type.tensor_type
            sized = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
            if tensor.elem_type and tensor.HasField("shape") and min(sized, default=0) >= 0:
                item = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)).itemsize
                sizes[value.name] = int(np.prod(sized, dtype=np.int64)) * item
        return sizes

    def run(
        self,
        names: Sequence[str],
        feeds: Mapping[str, Array],
        graph: onnx.ModelProto | None = None,
        cancel: CancelToken | None = None,
        what: str = "",
    ) -> dict[str, Array]:
        """The values `names` computed by `graph` (a model cut from `model`, its weights in `folder`; default: the
        whole model, `window(names)`) fed `feeds`, from a session of this window only; `Cancelled` (named by
        `what`) when `cancel` is set before or while it runs, RunFailed when ORT refuses."""
        # Imported here: the transforms package loads onnx_ir, which a GPU host running the engine may lack.
        from dld_jupyter.transforms.progress import Cancelled, CancelToken

        ort = self._ort
        path = self.folder / "window.onnx"
        chosen = graph if graph is not None else self.window(names)
        path.write_bytes(chosen.SerializeToString())
        given = _typed_feeds(chosen.graph, feeds)
        del chosen
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.log_severity_level = 3
        options.enable_cpu_mem_arena = False
        if self.threads:
            options.intra_op_num_threads = self.threads
        run_options = ort.RunOptions()
        stop = (cancel or CancelToken()).on_cancel(lambda: setattr(run_options, "terminate", True))
        fallback = [] if self.provider == PROVIDERS["cpu"] else [PROVIDERS["cpu"]]  # ops CUDA lacks
        session = None
        try:
            session = ort.InferenceSession(str(path), options, providers=[self.provider, *fallback])
            self.sessions_built += 1
            if cancel is not None:
                cancel.check(what or self.label)  # building a large model's session takes seconds: no run after
            values: list[Any] = session.run(list(names), given, run_options)
        except Cancelled:
            raise
        except Exception as error:  # ORT raises its own classes (InvalidArgument, Fail, RuntimeException)
            if cancel is not None and cancel.cancelled:  # the terminate flag ended the run
                raise Cancelled(what or self.label) from error
            shown = list(names)[:3]
            raise RunFailed(f"{self.label} failed to compute {shown} on {self.provider}: {error}") from error
        finally:
            stop()
            session = None
            _trim_heap()
        self.sequences.update(n for n, v in zip(names, values, strict=True) if isinstance(v, list))
        out = {name: np.asarray(value) for name, value in zip(names, values, strict=True)}
        self.most_outputs = max(self.most_outputs, len(out))
        self.largest_window = max(self.largest_window, sum(a.nbytes for a in out.values()))
        return out


def _typed_feeds(graph: onnx.GraphProto, feeds: Mapping[str, Array]) -> dict[str, Array]:
    """The feeds `graph` declares as inputs, each in the element type it declares."""
    out = {}
    for value in graph.input:
        if value.name not in feeds:
            continue
        array = feeds[value.name]
        elem = value.type.tensor_type.elem_type if value.type.HasField("tensor_type") else 0
        if elem:
            array = np.asarray(array).astype(onnx.helper.tensor_dtype_to_np_dtype(elem), copy=False)
        out[value.name] = array
    return out


def _private_copy(source: str | os.PathLike[str] | ir.Model, folder: Path) -> onnx.ModelProto:
    """The model written into `folder` with its weights in one external file; its graph (no weights)."""
    if not isinstance(source, (str, os.PathLike)):  # an onnx_ir model (a document's): only then is onnx_ir needed
        import onnx_ir as ir

        ir.save(source, folder / "model.onnx", external_data=WEIGHTS, max_workers=1, max_in_flight_bytes=IN_FLIGHT)
        return onnx.load(str(folder / "model.onnx"), load_external_data=False)
    with (folder / WEIGHTS).open("wb") as weights:
        return read_model(Path(source), weights)


def _trim_heap() -> None:
    """Give the freed pages of the last session back to the system (glibc's malloc_trim; elsewhere nothing)."""
    global _LIBC
    if _LIBC is None:
        try:
            _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        except OSError:
            _LIBC = False
    if _LIBC and hasattr(_LIBC, "malloc_trim"):
        _LIBC.malloc_trim(0)
