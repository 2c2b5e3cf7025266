"""`dld diverge REF CAND …`: the command line that runs a divergence again from a shell (the runs list's Copy).

Next to `divergence.py` because it is that function's arguments written as the CLI's options (`cli/diverge.py`
parses them back: tests/cli/test_command_lines.py). A model given as a path is named by its absolute path; a
Document is named by its file when it is saved, and an unsaved one, a ModelProto or an in-memory model is said in
`unsaid` (no command can name it); inputs given as arrays are said too (save each as .npy, pass --input).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from dld_jupyter.activities.command_line import Args, CommandLine
from dld_jupyter.document import Document

from .divergence import WINDOW, WINDOW_BYTES
from .structural_diff import ModelLike

MIB = 1 << 20


def divergence_command(
    reference: ModelLike,
    candidate: ModelLike,
    inputs: Mapping[str, Any] | None = None,
    metric: str = "max_abs",
    tolerance: float | None = None,
    reference_provider: str = "cpu",
    candidate_provider: str = "cpu",
    window: int = WINDOW,
    seed: int = 0,
    window_bytes: int = WINDOW_BYTES,
    node_data: str | None = None,
) -> CommandLine:
    """`diverge`'s arguments (and the CLI's --node-data) as `dld diverge REF CAND …`."""
    args = Args("dld", "diverge")
    for role, model in (("reference", reference), ("candidate", candidate)):
        path, why = _file_of(model)
        args.word(path)
        if why:
            args.unsaid(f"the {role} {why}; the command names {path}")
    args.option("--reference-provider", reference_provider, "cpu")
    args.option("--candidate-provider", candidate_provider, "cpu")
    for name in sorted(inputs or {}):
        args.unsaid(f"input {name} was given as an array: save it (numpy.save) and add --input {name}=FILE.npy")
    args.option("--metric", metric, "max_abs").option("--tolerance", tolerance)
    args.option("--window", window, WINDOW).option("--seed", seed, 0)
    if window_bytes != WINDOW_BYTES:
        args.option("--window-mb", window_bytes / MIB)
    return args.option("--node-data", node_data).done()


def _file_of(model: ModelLike) -> tuple[str, str | None]:
    """(the path a command names for `model`, why that is not the model itself or None)."""
    if isinstance(model, (str, os.PathLike)):
        return os.path.abspath(os.fspath(model)), None
    if isinstance(model, Document):
        if model.path is None:
            return f"{model.name}.onnx", "is a model never saved (save it first)"
        if model.dirty:
            return str(model.path), "had unsaved edits (the command reads the saved file: save first)"
        return str(model.path), None
    return "MODEL.onnx", f"was an in-memory {type(model).__name__} (save it as an .onnx file)"
