"""Comparing two models: the structural diff (what changed) and the divergence (where the numbers part).

A layer of its own above transforms: it reads documents and runs models, and nothing below it needs it. The front
doors (`dld.diff`, `dld diff`, the designer's "Compare with…") call it; it imports no Jupyter package.
"""

from .structural_diff import ChangedNode, GraphDiff, ModelDiff, NodeRef, diff

__all__ = ["ChangedNode", "GraphDiff", "ModelDiff", "NodeRef", "diff"]
