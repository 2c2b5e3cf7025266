"""Input data for an ONNX Runtime run: random tensors (free dimensions → 1, or an inferred batch; the values by the
one rule of `runtimes/random_inputs.py`) or a folder of TensorProto files, one `<input name>.pb` per model input
(seed 000 "Profiling with ONNX Runtime")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import helper, numpy_helper

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.random_inputs import input_seed, random_array

Feeds = dict[str, Any]


def model_inputs(graph: onnx.GraphProto) -> list[onnx.ValueInfoProto]:
    """Inputs that need data: graph inputs without an initializer of the same name."""
    initialized = {init.name for init in graph.initializer}
    return [value for value in graph.input if value.name not in initialized]


def _dtype(value: onnx.ValueInfoProto) -> np.dtype[Any]:
    if value.type.WhichOneof("value") != "tensor_type":
        raise SpecError(f"input {value.name!r}: only tensor inputs can be profiled")
    return np.dtype(helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type))


def _dims(value: onnx.ValueInfoProto) -> list[int | None]:
    """Fixed dimensions as ints, free (symbolic or unknown) ones as None."""
    shape = value.type.tensor_type.shape
    return [d.dim_value if d.HasField("dim_value") else None for d in shape.dim]


def concrete_shape(value: onnx.ValueInfoProto, batch_size: int | None) -> list[int]:
    """Free dimensions become 1; with a batch size, a single leading free dimension becomes the batch."""
    dims = _dims(value)
    free = [i for i, d in enumerate(dims) if d is None]
    batch = batch_size if batch_size is not None and free == [0] else None
    return [batch if (i == 0 and batch is not None) else (1 if d is None else d) for i, d in enumerate(dims)]


def batch_problem(graph: onnx.GraphProto, batch_size: int | None) -> str | None:
    """Why random inputs of `graph` cannot carry `batch_size` (None when they can): no input takes it (a single free
    leading dimension) and the leading sizes the run would use differ from it. The one rule every front door, the
    session and sweeps read, so that a fixed-batch model asked for batch 32 is refused, never run at batch 1 under a
    report that says 32 (re-batching it would mean rewriting shapes its Reshape constants still hold)."""
    if batch_size is None:
        return None
    values = [v for v in model_inputs(graph) if v.type.WhichOneof("value") == "tensor_type"]
    shapes = [(v.name, _dims(v)) for v in values]
    if any([i for i, d in enumerate(dims) if d is None] == [0] for _, dims in shapes):
        return None  # that input takes the batch
    leads = {(1 if dims[0] is None else dims[0]) if dims else 1 for _, dims in shapes}
    if leads == {batch_size}:
        return None  # the model's own batch is the one asked for
    listed = "; ".join(f"{name}: {['?' if d is None else d for d in dims]}" for name, dims in shapes)
    several = [name for name, dims in shapes if dims and dims[0] is None]
    why = (
        f"the leading dimension of {', '.join(several)} is not its only free one, so it is not taken as the batch"
        if several
        else "the model's inputs have a fixed batch"
    )
    return (
        f"batch {batch_size}: {why} ({listed or 'no tensor input'}); a run would measure batch "
        f"{'/'.join(str(n) for n in sorted(leads)) or 1}, not {batch_size}. Export the model with a dynamic leading "
        "(batch) dimension as its only free one, give an input folder with tensors of that batch, or leave the batch "
        "size out."
    )


def random_feeds(graph: onnx.GraphProto, batch_size: int | None, seed: int) -> Feeds:
    """Random data for every input that needs data, by the one rule every runtime follows (`random_inputs.py`)."""
    problem = batch_problem(graph, batch_size)
    if problem is not None:
        raise SpecError(problem)
    feeds: Feeds = {}
    for position, value in enumerate(model_inputs(graph)):
        dtype, shape = _dtype(value), concrete_shape(value, batch_size)
        feeds[value.name] = random_array(value.name, shape, dtype, input_seed(seed, position), "use an input folder")
    return feeds


def _candidates(folder: Path, name: str) -> list[Path]:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)  # input names may hold '/' or ':' that no file name can
    return [folder / f"{name}.pb", folder / f"{safe}.pb"] if safe != name else [folder / f"{name}.pb"]


def folder_feeds(graph: onnx.GraphProto, folder: str) -> Feeds:
    root = Path(folder)
    if not root.is_dir():
        raise SpecError(f"input_folder: {folder} is not a directory")
    inputs = model_inputs(graph)
    missing = [v.name for v in inputs if not any(p.is_file() for p in _candidates(root, v.name))]
    if missing:
        expected = ", ".join(f"{name}.pb" for name in missing)
        raise SpecError(f"input_folder: {folder} lacks {expected} (one TensorProto file per model input)")
    feeds: Feeds = {}
    for value in inputs:
        path = next(p for p in _candidates(root, value.name) if p.is_file())
        tensor = onnx.TensorProto()
        try:
            tensor.ParseFromString(path.read_bytes())
            array = numpy_helper.to_array(tensor)
        except (DecodeError, ValueError, TypeError) as error:
            raise SpecError(f"{path}: not a readable ONNX TensorProto ({error})") from error
        _check_matches(value, array, path)
        feeds[value.name] = array
    return feeds


def _check_matches(value: onnx.ValueInfoProto, array: np.ndarray[Any, Any], path: Path) -> None:
    dtype, dims = _dtype(value), _dims(value)
    if array.dtype != dtype:
        raise SpecError(f"{path}: holds {array.dtype} data but input {value.name!r} expects {dtype}")
    if dims and (
        len(dims) != array.ndim or any(d is not None and d != s for d, s in zip(dims, array.shape, strict=True))
    ):
        shown = ["?" if d is None else d for d in dims]
        raise SpecError(f"{path}: shape {list(array.shape)} does not fit input {value.name!r} {shown}")
