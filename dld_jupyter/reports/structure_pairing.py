"""Pair the layers of two reports through their networks' structure, for a comparison whose names differ.

Why (issue 41): `dld report compare` of the FP16 and the INT8 (QAT) builds of one network paired 0 of 73 layers,
because the two exports name their nodes differently. Each report points at its structure: the ONNX model it
profiled (`summary.model_path`; a trtexec import given `--model`), else, for a trtexec import, the engine's layer
information (`settings.files.layers`); or the caller names one. Two models pair their ONNX nodes with the
structural matcher (model_compare/correspondence.py) and then the layers holding them; two engine graphs pair
their layers directly, by topology. A report whose structure file is not there is paired by names only, and the
comparison says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dld_jupyter.model_compare.correspondence import engine_layer_pairs, model_node_pairs
from dld_jupyter.report_format.engine_graph import EngineGraphError, load_engine_graph
from dld_jupyter.report_format.errors import ReportError
from dld_jupyter.report_format.model import Report

Pathish = str | os.PathLike[str]


@dataclass(frozen=True)
class Structure:
    kind: str  # "model" (an ONNX file) | "engine" (TensorRT layer information)
    path: str


def structure_of(report: Report, given: Pathish | None = None) -> Structure | str:
    """The structure file of ``report`` (``given`` wins), or why there is none (a sentence)."""
    if given is not None:
        path = os.fspath(given)
        if not Path(path).is_file():
            return f"{path} is not a file"
        return Structure("model" if path.lower().endswith(".onnx") else "engine", path)
    model = report.summary.model_path
    if model and model.lower().endswith(".onnx") and Path(model).is_file():
        return Structure("model", model)
    files = report.summary.settings.get("files")
    layers = files.get("layers") if isinstance(files, dict) else None
    if isinstance(layers, str) and Path(layers).is_file():
        return Structure("engine", layers)
    if model:
        return f"its model {model} is not there (pass it with --model / models=)"
    if isinstance(layers, str):
        return f"its layer information {layers} is not there"
    return "it names no model (import trtexec profiles with --layers or --model)"


def layer_pairs(a: Report, sa: Structure, b: Report, sb: Structure) -> list[tuple[int, int]]:
    """(position in ``a``, position in ``b``) of the layers that compute the same part of the network; empty when
    the two structures are of different kinds (a model and an engine graph)."""
    if sa.kind == "model" and sb.kind == "model":
        nodes = _model_pairs(sa.path, _stamp(sa.path), sb.path, _stamp(sb.path))
        holder: dict[str, int] = {}
        for pos, layer in enumerate(b.layers):
            for node in layer.onnx_nodes:
                holder.setdefault(node, pos)
        found = []
        for pos, layer in enumerate(a.layers):
            found += [(pos, holder[m]) for m in (nodes.get(n) for n in layer.onnx_nodes) if m in holder]
        return list(dict.fromkeys(found))
    if sa.kind == "engine" and sb.kind == "engine":
        names = _engine_pairs(sa.path, _stamp(sa.path), sb.path, _stamp(sb.path))
        where = {layer.name: pos for pos, layer in reversed(list(enumerate(b.layers)))}
        return [(pos, where[names[layer.name]]) for pos, layer in enumerate(a.layers)
                if names.get(layer.name) in where]
    return []


def _stamp(path: str) -> float:
    return Path(path).stat().st_mtime


@lru_cache(maxsize=16)
def _model_pairs(a: str, _a_time: float, b: str, _b_time: float) -> dict[str, str]:
    return model_node_pairs(a, b)


@lru_cache(maxsize=16)
def _engine_pairs(a: str, _a_time: float, b: str, _b_time: float) -> dict[str, str]:
    try:
        return engine_layer_pairs(load_engine_graph(a), load_engine_graph(b))
    except EngineGraphError as error:
        raise ReportError(f"pairing layers by structure: {error}") from error
