"""The one guard for every path a command or a panel is about to write: outputs never replace an input.

Why: `dld profile m.onnx -o m.onnx` replaced the model with its own report (exit 0), and `dld export-engine`
accepted an engine, metadata or report path equal to the model or to each other, `/dev/full` or a folder. Every
writer (the activity targets, every `dld` verb that writes, the Profile and Export Engine panels) asks this module
first, so the rules live once. `check_outputs` refuses, naming each output and the fix:
- an output that is an input: the same path after symlinks, or the same file through a hard link (samefile);
  an ONNX model's external data files count as its inputs (found without reading any weights);
- two outputs that are one file;
- an output that is a folder, or an existing file that is not a regular file (`/dev/full`, a FIFO, a socket);
- an output whose folder cannot hold it: the nearest existing folder above it is a file, or is not writable.
An output that does not exist yet cannot be any input, so a model is only parsed for its external data when
some output already exists. Standard library plus a lazy `onnx`, in the lowest layer, so every layer and front
door uses the same rules.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # onnx loads only when a model is read
    import onnx

Pathish = str | os.PathLike[str]
FIX = "Nothing was written: choose other output paths."


class OutputPathError(ValueError):
    """An output path that would destroy an input or cannot be written; bad input (exit 2 in the CLI, a SpecError
    for the activities)."""


def _real(path: Pathish) -> str:
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def _same(a: str, b: str) -> bool:
    if _real(a) == _real(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links, bind mounts
    except OSError:
        return False


def _tensors(graph: onnx.GraphProto | onnx.FunctionProto) -> Iterator[onnx.TensorProto]:
    yield from getattr(graph, "initializer", ())
    yield from (sparse.values for sparse in getattr(graph, "sparse_initializer", ()))
    for node in getattr(graph, "node", ()):
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t
            yield from attribute.tensors
            for sub in ([attribute.g] if attribute.HasField("g") else []) + list(attribute.graphs):
                yield from _tensors(sub)


def model_files(model: Pathish) -> list[str]:
    """The model file and the external data files its tensors name (resolved beside the model); the model
    alone when it cannot be read (the verb that reads it reports that)."""
    files = [os.fspath(model)]
    try:
        import onnx

        proto = onnx.load(os.fspath(model), load_external_data=False)
    except Exception:  # unreadable or not ONNX: nothing more to protect here
        return files
    base = Path(os.fspath(model)).parent
    graphs = [proto.graph, *proto.functions]
    for graph in graphs:
        for tensor in _tensors(graph):
            if tensor.data_location == onnx.TensorProto.EXTERNAL:
                location = next((e.value for e in tensor.external_data if e.key == "location"), "")
                if location and str(base / location) not in files:
                    files.append(str(base / location))
    return files


def _writable_problem(label: str, path: str) -> str | None:
    """Why `path` itself cannot be written as a regular file, or None."""
    if os.path.isdir(path):
        return f"the {label} {path} is a folder; give a file path (e.g. {os.path.join(path, 'NAME')})"
    try:
        mode = os.stat(path).st_mode if os.path.exists(path) else stat.S_IFREG
    except OSError as error:  # a dangling or looping link, a folder we may not look into
        return f"the {label} {path} cannot be examined ({error.strerror}); give another file path"
    if not stat.S_ISREG(mode):
        return f"the {label} {path} is not a regular file (a device, pipe or socket); give the path of a file"
    folder = Path(os.path.abspath(path)).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"the {label} {path} cannot be created: {folder} is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the {label} {path} cannot be written: the folder {folder} is not writable"
    return None


def check_outputs(
    outputs: Mapping[str, Pathish | None],
    inputs: Mapping[str, Pathish | None] | None = None,
    models: Iterable[Pathish | None] = (),
) -> None:
    """Raise OutputPathError listing every output (label -> path; None: not written) that would replace an input
    (label -> path), an ONNX model of `models` or its external data, another output, or cannot be written."""
    wanted = {label: os.fspath(path) for label, path in outputs.items() if path}
    problems = [p for p in (_writable_problem(label, path) for label, path in wanted.items()) if p]
    named = list(wanted.items())
    for i, (label, path) in enumerate(named):
        for other_label, other in named[:i]:
            if _same(path, other):
                problems.append(f"the {other_label} and the {label} are the same file {path}")
    existing = [(label, path) for label, path in named if os.path.lexists(path)]
    if existing:
        sources = [(label, os.fspath(path)) for label, path in (inputs or {}).items() if path]
        for model in models:
            if model:
                files = model_files(model)
                sources += [("input model", files[0])] + [("input model's external data", f) for f in files[1:]]
        for label, path in existing:
            hit = next(((what, source) for what, source in sources if _same(path, source)), None)
            if hit is not None:
                problems.append(f"the {label} {path} is the {hit[0]} {hit[1]}: writing it would destroy that input")
    if problems:
        raise OutputPathError("; ".join(dict.fromkeys(problems)) + f". {FIX}")
