"""Comparing two models: the structural diff (what changed) and the divergence (where the numbers part).

A layer of its own above activities (it runs models through ONNX Runtime's providers) and below the front doors:
`dld.diff`/`dld.diverge`, `dld diff`/`dld diverge` and the designer's "Compare with…" call it. No Jupyter import.
The divergence runs in the activity worker as a kind registered from here (divergence_kind.py).
"""

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
