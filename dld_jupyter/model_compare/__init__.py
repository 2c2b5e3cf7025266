"""Comparing two models: the structural diff (what changed) and the divergence (where the numbers part).

A layer of its own above activities (it runs models through ONNX Runtime's providers) and below the front doors:
`dld.diff`/`dld.diverge`, `dld diff`/`dld diverge` and the designer's "Compare with…" call it. No Jupyter import.
The divergence runs in the activity worker as a kind registered from here (divergence_kind.py).
Its names load their modules on first use (_lazy_names.py: a designer's overlays name only the result types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dld_jupyter._lazy_names import lazy_names

if TYPE_CHECKING:
    from .divergence import Divergence, NodeDivergence, diverge
    from .node_data import (
        NodeData,
        diff_node_data,
        read_node_data,
        read_node_data_file,
        save_node_data,
        to_node_data,
        write_node_data,
    )
    from .structural_diff import ChangedNode, GraphDiff, ModelDiff, NodeRef, diff

__all__ = [
    "ChangedNode",
    "Divergence",
    "GraphDiff",
    "ModelDiff",
    "NodeData",
    "NodeDivergence",
    "NodeRef",
    "diff",
    "diff_node_data",
    "diverge",
    "read_node_data",
    "read_node_data_file",
    "save_node_data",
    "to_node_data",
    "write_node_data",
]

_NAMES = {  # name: the module that defines it
    "Divergence": "dld_jupyter.model_compare.divergence",
    "NodeDivergence": "dld_jupyter.model_compare.divergence",
    "diverge": "dld_jupyter.model_compare.divergence",
    "NodeData": "dld_jupyter.model_compare.node_data",
    "diff_node_data": "dld_jupyter.model_compare.node_data",
    "read_node_data": "dld_jupyter.model_compare.node_data",
    "read_node_data_file": "dld_jupyter.model_compare.node_data",
    "save_node_data": "dld_jupyter.model_compare.node_data",
    "to_node_data": "dld_jupyter.model_compare.node_data",
    "write_node_data": "dld_jupyter.model_compare.node_data",
    "ChangedNode": "dld_jupyter.model_compare.structural_diff",
    "GraphDiff": "dld_jupyter.model_compare.structural_diff",
    "ModelDiff": "dld_jupyter.model_compare.structural_diff",
    "NodeRef": "dld_jupyter.model_compare.structural_diff",
    "diff": "dld_jupyter.model_compare.structural_diff",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
