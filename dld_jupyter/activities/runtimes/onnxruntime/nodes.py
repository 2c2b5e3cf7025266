"""Map the nodes ONNX Runtime executed back to the ONNX nodes of the user's model, from ORT's own facts.

Without optimization ORT runs the ONNX nodes under their own names: the map is one to one. With optimization on,
the optimized model (`SessionOptions.optimized_model_filepath`) says which node ran and which tensors it reads and
writes; its nodes are tied to ONNX nodes in this order, never by position:
1. constants first: a node whose inputs are all initializers or outputs of such nodes (PyTorch's weight-alias
   `Identity(initializer)`, Constant nodes, Shape arithmetic on constants) is folded by ORT before the first run;
   it belongs to no layer and goes to `removed` with that reason;
2. an executed node that keeps the name of an ONNX node owns it (Conv+Relu fused into the Conv's node);
3. heads: the ONNX producer of each tensor the executed node writes (`FusedConv` writes the Relu's output), the
   tensor an NCHWc name replaces (`<tensor>_nchwc`), the node a QDQ fusion is named after (`<node>_token_<n>`)
   and nodes named in a fused name. Layout and copy nodes
   (ReorderOutput, Memcpy) write original tensors but compute nothing of the model: they get no head;
4. the chain from each head back to the node of the layer's own op type (an NCHWc `Conv` named after the Relu's
   output owns the Relu and the Conv before it) is reserved for that layer, so no neighbouring layer can take it;
5. until nothing moves: backwards, an unclaimed node whose outputs feed only one layer joins it (the Erf/Div/Mul of
   a decomposed Gelu, a Transpose folded into a FusedMatMul); then forwards, an unclaimed node whose first computed
   input comes from a fused layer joins it (the residual Add and Relu an NCHWc Conv applies as its epilogue);
6. ONNX nodes still unclaimed ran nowhere: they go to `removed` ("eliminated by the optimizer").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import onnx

NCHWC_SUFFIX = "_nchwc"
_TOKEN = re.compile(r"(.+)_token_\d+")
INLINED_PREFIX = "_inlfunc_"  # ORT's names for the values inside a function body it inlined
# ORT nodes that move or copy tensors without computing anything of the model: they own no ONNX node.
LAYOUT_OPS = frozenset({"ReorderInput", "ReorderOutput", "MemcpyToHost", "MemcpyFromHost"})
# Contrib fused kernels -> the ONNX op at their core (the node a layer of that type must hold).
CORE_OP = {
    "FusedConv": "Conv",
    "FusedMatMul": "MatMul",
    "FusedGemm": "Gemm",
    "NhwcConv": "Conv",
    "QLinearConv": "Conv",
    "BiasGelu": "Gelu",
    "FastGelu": "Gelu",
    "SkipLayerNormalization": "LayerNormalization",
    "SkipSimplifiedLayerNormalization": "SimplifiedLayerNormalization",
    "MatMulNBits": "MatMul",
}
CHAIN_DEPTH = 6  # a head is at most a few activations/adds away from the op it fuses onto
FOLDED = "constant: computed from initializers only, folded before the first run"
CONSTANT = "Constant: turned into an initializer"
ELIMINATED = "eliminated by the optimizer: no executed layer computes it"


@dataclass
class NodeMap:
    sources: dict[str, list[str]] = field(default_factory=dict)  # executed node -> ONNX nodes, in graph order
    removed: list[str] = field(default_factory=list)  # ONNX nodes with no executed layer, in graph order
    reasons: dict[str, str] = field(default_factory=dict)  # removed node -> why it has no layer
    # Kernels of one function op ORT inlined (HardSwish -> HardSigmoid + Mul) form one layer named after the ONNX
    # node they compute: executed name -> (layer name, layer type). Executed names not listed are layers themselves.
    merged: dict[str, tuple[str, str]] = field(default_factory=dict)

    def layer_of(self, executed: str) -> str:
        return self.merged[executed][0] if executed in self.merged else executed


class _Graph:
    """The user's graph, indexed for walking: producers, consumers and which tensors are constant."""

    def __init__(self, graph: onnx.GraphProto) -> None:
        self.nodes = list(graph.node)
        self.order = {node.name: i for i, node in enumerate(self.nodes)}
        self.by_name = {node.name: node for node in self.nodes}
        self.producer = {out: node.name for node in self.nodes for out in node.output if out}
        self.consumers: dict[str, list[str]] = {}
        for node in self.nodes:
            for tensor in node.input:
                if tensor:
                    self.consumers.setdefault(tensor, []).append(node.name)
        inputs = {value.name for value in graph.input}
        constant = {init.name for init in graph.initializer if init.name not in inputs}
        constant |= {sparse.values.name for sparse in graph.sparse_initializer}
        self.folded: set[str] = set()
        for node in self.nodes:  # graph order is topological in valid ONNX
            if all(t in constant for t in node.input if t) and not node.op_type.startswith("Random"):
                self.folded.add(node.name)
                constant.update(t for t in node.output if t)
        self.constant = constant

    def computed_inputs(self, name: str) -> list[str]:
        """Producers of the node's non-constant inputs, in input order."""
        node = self.by_name[name]
        return [self.producer[t] for t in node.input if t and t not in self.constant and t in self.producer]


def _name_hints(name: str) -> list[str]:
    hints = [name[: -len(NCHWC_SUFFIX)]] if name.endswith(NCHWC_SUFFIX) else []
    token = _TOKEN.fullmatch(name)
    if token:  # a QDQ fusion keeps the core node's name: `<Conv's name>_token_<n>` is a QLinearConv
        hints.append(token.group(1))
    return hints + [part for part in name.split("/") if part and part != name]


def _heads(g: _Graph, name: str, opt: onnx.NodeProto | None) -> list[str]:
    if opt is not None and opt.op_type in LAYOUT_OPS:
        return []
    heads = [name] if name in g.by_name else []
    tensors = list(opt.output) if opt is not None else []
    for hint in _name_hints(name):
        if hint in g.by_name:
            heads.append(hint)
        tensors.append(hint)
    heads += [g.producer[t] for t in tensors if t in g.producer]
    return [h for h in dict.fromkeys(heads) if h not in g.folded]


def _core_ops(opt: onnx.NodeProto | None, head_op: str) -> set[str]:
    if opt is None:
        return {head_op}
    return {opt.op_type, CORE_OP.get(opt.op_type, opt.op_type), opt.op_type.removeprefix("Fused")}


def _chain(g: _Graph, head: str, core: set[str], taken: dict[str, str]) -> list[str]:
    """Nodes from `head` back to the nearest node whose op is one of `core` (just the head if none is near)."""
    frontier: list[list[str]] = [[head]]
    for _ in range(CHAIN_DEPTH):
        reached: list[list[str]] = []
        for path in frontier:
            if g.by_name[path[-1]].op_type in core:
                return path
            for prev in g.computed_inputs(path[-1]):
                if prev not in taken and prev not in path:
                    reached.append([*path, prev])
        frontier = reached
    return [head]


def _is_fused(opt: onnx.NodeProto | None, source: onnx.NodeProto | None) -> bool:
    if opt is None or source is None:
        return opt is not None
    return (
        opt.op_type != source.op_type
        or opt.domain != source.domain
        or len([i for i in opt.input if i]) > len([i for i in source.input if i])
    )


def _absorb(g: _Graph, owner: dict[str, str], fused: set[str]) -> None:
    """Rule 5: claim unowned nodes backwards (single consuming layer), then forwards (epilogues), until stable."""
    changed = True
    while changed:
        changed = False
        for node in reversed(g.nodes):  # backwards: consumers settle before their producers are asked
            if node.name in owner or node.name in g.folded or not node.name:
                continue
            users = {owner.get(u) for out in node.output for u in g.consumers.get(out, ())}
            if len(users) == 1 and None not in users:
                owner[node.name] = next(u for u in users if u is not None)
                changed = True
        if changed:
            continue
        for node in g.nodes:
            if node.name in owner or node.name in g.folded or not node.name:
                continue
            computed = g.computed_inputs(node.name)
            first = owner.get(computed[0]) if computed else None
            if first is not None and first in fused:
                owner[node.name] = first
                changed = True
                break  # one at a time: an epilogue's own epilogue is asked backwards first


def _optimized_nodes(optimized: onnx.GraphProto | None, executed: list[str]) -> dict[str, onnx.NodeProto]:
    """Executed name -> optimized node. ORT names the nodes it adds without a name (the body of a function op it
    inlines, such as HardSwish -> HardSigmoid + Mul) `<op>_<index>` in its profile but writes them unnamed; both
    lists are in the session's topological order, so they pair up per op type in order."""
    if optimized is None:
        return {}
    found = {node.name: node for node in optimized.node if node.name}
    unnamed: dict[str, list[onnx.NodeProto]] = {}
    for node in optimized.node:
        if not node.name:
            unnamed.setdefault(node.op_type, []).append(node)
    for name in executed:
        op = name.rsplit("_", 1)[0]
        if name not in found and name.rsplit("_", 1)[-1].isdigit() and unnamed.get(op):
            found[name] = unnamed[op].pop(0)
    return found


def _inlined_groups(opt_nodes: dict[str, onnx.NodeProto]) -> list[list[str]]:
    """Executed nodes of one inlined function body: linked by the `_inlfunc_` tensors ORT names their values."""
    members = {
        name: node
        for name, node in opt_nodes.items()
        if any(t.startswith(INLINED_PREFIX) for t in [*node.input, *node.output])
    }
    group: dict[str, int] = {}
    groups: list[list[str]] = []
    writer = {t: name for name, node in members.items() for t in node.output if t.startswith(INLINED_PREFIX)}
    for name, node in members.items():  # topological: a body's first node comes before the ones it feeds
        linked = [group[writer[t]] for t in node.input if t in writer and writer[t] in group]
        if linked:
            group[name] = linked[0]
            groups[linked[0]].append(name)
        else:
            group[name] = len(groups)
            groups.append([name])
    return groups


def _merge_inlined(g: _Graph, opt_nodes: dict[str, onnx.NodeProto], sources: dict[str, list[str]]) -> dict[
    str, tuple[str, str]
]:
    merged: dict[str, tuple[str, str]] = {}
    for members in _inlined_groups(opt_nodes):
        nodes = sorted({n for m in members for n in sources.get(m, [])}, key=lambda n: g.order.get(n, 0))
        if not nodes or any(m not in sources for m in members):
            continue
        layer = nodes[-1]  # the function node writes the body's output
        for member in members:
            merged[member] = (layer, g.by_name[layer].op_type)
            del sources[member]
        sources[layer] = nodes
    return merged


def map_nodes(original: onnx.GraphProto, optimized: onnx.GraphProto | None, executed: Iterable[str]) -> NodeMap:
    g = _Graph(original)
    names = list(dict.fromkeys(executed))
    opt_nodes = _optimized_nodes(optimized, names)
    owner: dict[str, str] = {name: name for name in names if name in g.by_name}  # rule 2
    fused: set[str] = set()
    if optimized is not None:
        for name in names:  # rules 3 and 4, in execution order
            opt = opt_nodes.get(name)
            heads = _heads(g, name, opt)
            if not heads:
                continue
            if _is_fused(opt, g.by_name.get(name) or g.by_name[heads[0]]):
                fused.add(name)
            core = _core_ops(opt, g.by_name[heads[0]].op_type)
            for head in heads:
                for node in _chain(g, head, core, owner):
                    owner.setdefault(node, name)
        _absorb(g, owner, fused)
    sources: dict[str, list[str]] = {name: [] for name in names}
    for onnx_name, name in owner.items():
        if onnx_name in g.by_name and name in sources:
            sources[name].append(onnx_name)
    for found in sources.values():
        found.sort(key=lambda n: g.order.get(n, 0))
    merged = _merge_inlined(g, opt_nodes, sources)
    removed = [node.name for node in g.nodes if node.name not in owner]
    reasons = {
        node.name: CONSTANT if node.op_type == "Constant" else FOLDED if node.name in g.folded else ELIMINATED
        for node in g.nodes
        if node.name not in owner
    }
    return NodeMap(sources=sources, removed=removed, reasons=reasons, merged=merged)
