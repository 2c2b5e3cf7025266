"""Map the nodes ONNX Runtime executed back to the ONNX nodes of the user's model.

Without optimization ORT runs the ONNX nodes under their own names. With optimization on, fused nodes get new names
and new tensors; the optimized model (`SessionOptions.optimized_model_filepath`) tells which node exists after
optimization, and these cases are handled, in order:
1. an executed node keeps the name of an ONNX node (e.g. Conv+Relu fused into the Conv's node);
2. an output tensor of the fused node is an ONNX tensor: its ONNX producer belongs to the layer
   (BiasGelu writes the Gelu's output), as does a node named in the fused name (`l0_scores/MatMulScaleFusion/`)
   or the tensor in an NCHWc name (`<tensor>_nchwc`);
3. forwards, into fused layers only (new op type, domain or inputs): an unclaimed node whose first input comes from
   the layer (the residual Add and Relu of an NCHWc Conv);
4. backwards: an unclaimed ONNX node whose outputs feed only nodes of one layer is absorbed into it (the BN before
   a fused Conv, the Transpose folded into a FusedMatMul).
ONNX nodes still unclaimed ran nowhere: they are `removed_nodes` (Constant nodes, which ORT always turns into
initializers, folded constants, eliminated identities).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import onnx

NCHWC_SUFFIX = "_nchwc"


@dataclass
class NodeMap:
    sources: dict[str, list[str]] = field(default_factory=dict)  # executed node → ONNX nodes, in graph order
    removed: list[str] = field(default_factory=list)  # ONNX nodes with no executed layer


def _name_hints(name: str) -> list[str]:
    hints = [name]
    if name.endswith(NCHWC_SUFFIX):
        hints.append(name[: -len(NCHWC_SUFFIX)])
    hints += [part for part in name.split("/") if part]
    return hints


def map_nodes(original: onnx.GraphProto, optimized: onnx.GraphProto | None, executed: Iterable[str]) -> NodeMap:
    order = {node.name: i for i, node in enumerate(original.node)}
    by_name = {node.name: node for node in original.node}
    producer = {out: node.name for node in original.node for out in node.output if out}
    consumers: dict[str, set[str]] = {}
    for node in original.node:
        for tensor in node.input:
            consumers.setdefault(tensor, set()).add(node.name)
    opt_nodes = {node.name: node for node in (optimized.node if optimized is not None else [])}

    owner: dict[str, str] = {}  # ONNX node → executed node
    fused: set[str] = set()
    names = list(dict.fromkeys(executed))
    for name in names:  # case 1 first, so that exact names win over hints of other nodes
        if name in by_name:
            owner[name] = name
    for name in names:  # case 2
        opt = opt_nodes.get(name)
        anchors = [producer[t] for t in (opt.output if opt is not None else []) if t in producer]
        anchors += [h for h in _name_hints(name)[1:] if h in by_name]
        anchors += [producer[h] for h in _name_hints(name)[1:] if h in producer]
        for anchor in anchors:
            owner.setdefault(anchor, name)
        if opt is not None and _is_fused(opt, by_name.get(name) or _first(by_name, anchors)):
            fused.add(name)

    changed = optimized is not None  # without optimization ORT runs the ONNX nodes by name: nothing to infer
    while changed:  # cases 3 and 4 until nothing moves
        changed = False
        for node in original.node:
            if node.name in owner or not node.name or node.op_type == "Constant":
                continue  # Constant nodes become initializers in ORT: removed, never fused
            first = producer.get(node.input[0]) if node.input else None
            if first in owner and owner[first] in fused:  # forwards first: an epilogue belongs to its producer
                owner[node.name] = owner[first]
                changed = True
                continue
            users = {owner.get(u) for out in node.output for u in consumers.get(out, ())}
            if len(users) == 1 and None not in users:
                owner[node.name] = next(iter(u for u in users if u is not None))
                changed = True

    sources: dict[str, list[str]] = {name: [] for name in names}
    for onnx_name, name in owner.items():
        sources[name].append(onnx_name)
    for name in sources:
        sources[name].sort(key=lambda n: order.get(n, 0))
    removed = [node.name for node in original.node if node.name not in owner]
    return NodeMap(sources=sources, removed=removed)


def _first(by_name: dict[str, onnx.NodeProto], names: list[str]) -> onnx.NodeProto | None:
    return next((by_name[n] for n in names if n in by_name), None)


def _is_fused(opt: onnx.NodeProto, source: onnx.NodeProto | None) -> bool:
    if source is None:
        return True
    return (
        opt.op_type != source.op_type
        or opt.domain != source.domain
        or len([i for i in opt.input if i]) > len([i for i in source.input if i])
    )
