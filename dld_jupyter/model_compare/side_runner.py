"""One side of a divergence: a model and a provider, run again for each window of tensors it must show.

Why windows and not "every tensor an output": marking every tensor as a graph output keeps them all alive to the
end of the pass (measured on a BERT-base-sized encoder, seq 128: +300 MB over a plain run, and 9x slower since ORT
copies each), and on a 7B decoder that is the out-of-memory Polygraphy users report. Here the model is written once
into a private folder with its weights as external data (each read from its own folder, at most 64 MB in flight),
and each window is a copy of the small graph protobuf with only that window's tensors added as outputs, loaded next
to the same weights file; the session lives for one window. ORT runs with graph optimizations off, so every ONNX
tensor still exists and holds what the model as written computes. A provider that is not installed is an
UnavailableError saying which build to install (exit 3 in the CLI).

A `CancelToken` given to `run` ends the window's ORT run through `RunOptions.terminate` (the session is dropped at
once) and is checked again after the session is built, so a cancel costs at most the step in flight; the private
folder goes whenever the runner is closed, also when its copy fails half-written.
"""

from __future__ import annotations

import pathlib
import tempfile
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

import numpy as np
import onnx
import onnx_ir as ir

from dld_jupyter.activities.errors import RunFailed, UnavailableError
from dld_jupyter.activities.optional import import_optional
from dld_jupyter.activities.runtimes.onnxruntime.install import cuda_missing_reason
from dld_jupyter.activities.runtimes.onnxruntime.spec import PROVIDERS
from dld_jupyter.transforms.progress import Cancelled, CancelToken

IN_FLIGHT = 64 << 20  # bytes of weights read at a time while writing the private copy


def ort_provider(provider: str) -> str:
    """The ORT execution provider of ``provider`` ("cpu", "cuda"), checked against the installed build."""
    ort = import_optional("onnxruntime", "onnxruntime")
    name = PROVIDERS.get(provider)
    if name is None:
        raise UnavailableError(f"provider {provider!r} is not one of {sorted(PROVIDERS)}")
    available = list(ort.get_available_providers())
    if name not in available:
        if provider == "cuda":
            raise UnavailableError(cuda_missing_reason(str(ort.__version__), available))
        raise UnavailableError(f"{name} is not available in onnxruntime {ort.__version__}; available: {available}")
    return name


class SideRunner:
    """Runs one model on one provider and returns the values of the tensors asked for (a context manager that
    removes its private folder)."""

    def __init__(self, model: ir.Model, provider: str, label: str) -> None:
        self.provider, self.label = ort_provider(provider), label
        self._folder = tempfile.TemporaryDirectory(prefix="dld-diverge-")
        folder = pathlib.Path(self._folder.name)
        try:
            ir.save(model, folder / "model.onnx", external_data="weights.bin", max_workers=1,
                    max_in_flight_bytes=IN_FLIGHT)
            self._graph = onnx.load(str(folder / "model.onnx"), load_external_data=False)  # no weights: small
        except BaseException:  # a full disk, Ctrl-C: no half-written copy stays behind
            self._folder.cleanup()
            raise
        self.inputs = {v.name: v for v in self._graph.graph.input}
        self.largest_window = 0  # bytes of the largest window's values

    def __enter__(self) -> SideRunner:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._folder.cleanup()

    def tensor_bytes(self, feeds: Mapping[str, np.ndarray]) -> dict[str, int]:
        """Estimated bytes of each tensor for ``feeds``: ONNX shape inference on the weightless graph with the inputs'
        dimensions made those of the feeds; a tensor whose shape stays unknown is absent."""
        model = onnx.ModelProto()
        model.CopyFrom(self._graph)
        for value in model.graph.input:
            dims = value.type.tensor_type.shape.dim
            if value.name in feeds and len(dims) == np.ndim(feeds[value.name]):
                for dim, size in zip(dims, np.shape(feeds[value.name]), strict=True):
                    dim.Clear()
                    dim.dim_value = int(size)
        try:
            inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
        except Exception:  # an op shape inference does not know, a custom domain: sized by tensor count only
            return {}
        sizes = {}
        for value in (*inferred.graph.value_info, *inferred.graph.output):
            tensor = value.type.tensor_type
            sized = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
            if tensor.elem_type and tensor.HasField("shape") and min(sized, default=0) >= 0:
                item = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)).itemsize
                sizes[value.name] = int(np.prod(sized, dtype=np.int64)) * item
        return sizes

    def run(self, names: Sequence[str], feeds: Mapping[str, np.ndarray], cancel: CancelToken | None = None,
            what: str = "Divergence") -> dict[str, np.ndarray]:
        """The values of ``names`` (tensors of this model) for ``feeds``, from a session of this window only;
        `Cancelled` (named by ``what``) when ``cancel`` is set before or while it runs."""
        ort = import_optional("onnxruntime", "onnxruntime")
        window = onnx.ModelProto()
        window.CopyFrom(self._graph)
        declared = {o.name for o in window.graph.output}
        for name in names:
            if name not in declared:
                window.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
        path = pathlib.Path(self._folder.name) / "window.onnx"
        path.write_bytes(window.SerializeToString())
        del window
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.log_severity_level = 3
        run_options = ort.RunOptions()
        stop = (cancel or CancelToken()).on_cancel(lambda: setattr(run_options, "terminate", True))
        try:
            session = ort.InferenceSession(str(path), options, providers=[self.provider])
            if cancel is not None:
                cancel.check(what)  # building a session of a large model takes seconds: no run after a cancel
            values: list[Any] = session.run(list(names), self._feeds(feeds), run_options)
        except Cancelled:
            raise
        except Exception as error:  # ORT raises its own classes (InvalidArgument, Fail, RuntimeException)
            if cancel is not None and cancel.cancelled:  # the terminate flag ended the run
                raise Cancelled(what) from error
            raise RunFailed(f"{self.label} failed to run on {self.provider}: {error}") from error
        finally:
            stop()
            session = None
        out = {name: np.asarray(value) for name, value in zip(names, values, strict=True)}
        self.largest_window = max(self.largest_window, sum(a.nbytes for a in out.values()))
        return out

    def _feeds(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The feeds this model declares, each in the element type it declares (an FP16 copy reads float16)."""
        out = {}
        for name, value in self.inputs.items():
            if name not in feeds:
                continue
            array = feeds[name]
            elem = value.type.tensor_type.elem_type
            if elem:
                array = array.astype(onnx.helper.tensor_dtype_to_np_dtype(elem), copy=False)
            out[name] = array
        return out
