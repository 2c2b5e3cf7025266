"""Where a node sits in the model's module tree: its group path, from its name or from the exporter's metadata.

The TorchScript exporter names nodes by scope (`/encoder/layer.3/attn/MatMul_2` is in ("encoder", "layer.3",
"attn")). The newer torch.export-based exporter names them `node_MatMul_12` and writes the scopes into the node's
metadata instead (`pkg.torch.onnx.name_scopes`: `['', 'model', 'model.layers.0', 'model.layers.0.mlp', 'mul_3']`),
so a GPT-2 or Llama it exports has no name scope at all. Both give the same kind of path here: each module's name
relative to its parent (`layers.0`), the op's own name left out. Paths are cached by their text: 50k names share a
few thousand scopes.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

GroupPath = tuple[str, ...]
NAME_SCOPES = "pkg.torch.onnx.name_scopes"
NO_MODULE = "_empty_nn_module_stack"  # torch.export's mark on ops outside every module (symbolic sizes): no scope


def raw_path(name: str) -> GroupPath:
    if "/" not in name:
        return ()
    return tuple(p for p in name.split("/")[:-1] if p)


def scopes_path(text: str) -> GroupPath:
    """The group path of a `pkg.torch.onnx.name_scopes` list: each scope relative to the one before it."""
    try:
        scopes = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return ()
    if not isinstance(scopes, list):
        return ()
    out: list[str] = []
    parent = ""
    for scope in scopes[:-1]:  # the last one is the op itself
        if not isinstance(scope, str) or not scope or scope.startswith(NO_MODULE):
            continue
        out.append(scope[len(parent) + 1:] if parent and scope.startswith(parent + ".") else scope)
        parent = scope
    return tuple(out)


class ScopePaths:
    """Group path of a node from its name (`/a/b/Conv` -> ("a", "b")) or, lacking one, from its metadata."""

    def __init__(self) -> None:
        self._paths: dict[str, GroupPath] = {}
        self._scopes: dict[str, GroupPath] = {}

    def __call__(self, name: str, metadata: Mapping[str, str] | None = None) -> GroupPath:
        scope = name.rpartition("/")[0]
        path = self._paths.get(scope)
        if path is None:
            path = self._paths[scope] = raw_path(scope + "/")
        if not path and metadata:
            text = metadata.get(NAME_SCOPES)
            if text:
                path = self._scopes.get(text)
                if path is None:
                    path = self._scopes[text] = scopes_path(text)
        return path
