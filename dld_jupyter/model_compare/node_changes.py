"""What differs between two paired nodes: op, attributes, weights, connections, subgraphs.

Cases handled, in order (each a `Change` with a kind and a sentence in ONNX names):
1. `op`: another op type, domain or overload (a node swapped in place, paired by its name);
2. `attribute`: an attribute added, removed or of another value; a tensor attribute (Constant's value) by dtype,
   shape, then content; a graph attribute (If/Loop/Scan bodies) diffed as a graph of its own, nested;
3. `weight`: an initializer read at the same input slot with another dtype or shape, or other bytes (with both
   content hashes);
4. `folded`: a slot that read a node only A has and reads a weight in B (Sanitize folded the node into it);
   `input`: a slot fed from somewhere else: another node than the partner of the old producer, a graph input at
   another position, a weight where a paired node was; the input count itself;
5. `outputs`: another number of outputs.
Names of values and nodes are never compared: a renamed export has no change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import onnx_ir as ir

from .graph_index import GraphIndex, attribute_key, output_slot, tensor_key
from .tensor_content import ContentCache

AT = ir.AttributeType
_TEXT_LIMIT = 80


@dataclass(frozen=True)
class Change:
    """One difference of a paired node. ``nested`` holds the diff of a subgraph attribute."""

    kind: str  # op | attribute | weight | folded | input | outputs
    what: str
    nested: Any = None  # GraphDiff of a subgraph attribute (structural_diff), None otherwise

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "what": self.what}
        if self.nested is not None:
            out["subgraph"] = self.nested.to_dict()
        return out


SubgraphDiff = Callable[[ir.Graph, ir.Graph], Any]  # (a body, b body) -> GraphDiff with `.identical`


def _text(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"


def _tensor_change(what: str, ta: Any, tb: Any, content: ContentCache, keys: tuple[object, object] | None = None
                   ) -> str | None:
    ka, kb = keys if keys is not None else (tensor_key(ta), tensor_key(tb))
    if ka != kb:
        return f"{what}: {_describe(ta)} → {_describe(tb)}"
    if ta is None or content.same(ta, tb):
        return None
    return f"{what}: content {content.digest(ta)} → {content.digest(tb)}"


def _describe(tensor: Any) -> str:
    if tensor is None:
        return "none"
    return f"{ir.DataType(tensor.dtype).name.lower()}{list(tensor.shape.numpy())}"


class NodeComparer:
    """Compares paired nodes of two graphs; ``partner`` maps a's node positions to b's."""

    def __init__(self, a: GraphIndex, b: GraphIndex, partner: dict[int, int], content: ContentCache,
                 subgraph_diff: SubgraphDiff) -> None:
        self.a, self.b, self.partner, self.content, self.subgraph_diff = a, b, partner, content, subgraph_diff

    def changes(self, i: int, j: int) -> list[Change]:
        na, nb = self.a.nodes[i], self.b.nodes[j]
        found: list[Change] = []
        if self.a.keys[i][0] != self.b.keys[j][0]:
            found.append(Change("op", f"op {_op(na)} → {_op(nb)}"))
        found.extend(self._attributes(na, nb))
        found.extend(self._inputs(na, nb))
        if len(na.outputs) != len(nb.outputs):
            found.append(Change("outputs", f"{len(na.outputs)} outputs → {len(nb.outputs)}"))
        return found

    def _attributes(self, na: ir.Node, nb: ir.Node) -> list[Change]:
        found: list[Change] = []
        for name in sorted(set(na.attributes) | set(nb.attributes)):
            aa, ab = na.attributes.get(name), nb.attributes.get(name)
            if aa is None or ab is None:
                state = "added" if aa is None else "removed"
                found.append(Change("attribute", f"attribute {name} {state}"))
                continue
            if aa.type != ab.type or aa.is_ref() or ab.is_ref():
                if attribute_key(aa) != attribute_key(ab) or aa.type != ab.type:
                    found.append(Change("attribute", f"attribute {name}: {_text(attribute_key(aa))} → "
                                                     f"{_text(attribute_key(ab))}"))
                continue
            found.extend(self._attribute_value(name, aa, ab))
        return found

    def _attribute_value(self, name: str, aa: ir.Attr, ab: ir.Attr) -> list[Change]:
        kind = aa.type
        if kind == AT.TENSOR:
            text = _tensor_change(f"attribute {name}", aa.value, ab.value, self.content)
            return [Change("attribute", text)] if text else []
        if kind == AT.TENSORS:
            if len(aa.value) != len(ab.value):
                return [Change("attribute", f"attribute {name}: {len(aa.value)} tensors → {len(ab.value)}")]
            texts = [_tensor_change(f"attribute {name}[{k}]", x, y, self.content)
                     for k, (x, y) in enumerate(zip(aa.value, ab.value, strict=True))]
            return [Change("attribute", t) for t in texts if t]
        if kind == AT.GRAPH:
            nested = self.subgraph_diff(aa.value, ab.value)
            return [] if nested.identical else [Change("attribute", f"subgraph {name}: {nested.headline()}", nested)]
        if kind == AT.GRAPHS:
            if len(aa.value) != len(ab.value):
                return [Change("attribute", f"attribute {name}: {len(aa.value)} graphs → {len(ab.value)}")]
            found = []
            for k, (ga, gb) in enumerate(zip(aa.value, ab.value, strict=True)):
                nested = self.subgraph_diff(ga, gb)
                if not nested.identical:
                    found.append(Change("attribute", f"subgraph {name}[{k}]: {nested.headline()}", nested))
            return found
        before, after = attribute_key(aa), attribute_key(ab)
        return [] if before == after else [Change("attribute", f"attribute {name}: {_text(before)} → {_text(after)}")]

    def _inputs(self, na: ir.Node, nb: ir.Node) -> list[Change]:
        found: list[Change] = []
        if len(na.inputs) != len(nb.inputs):
            found.append(Change("input", f"{len(na.inputs)} inputs → {len(nb.inputs)}"))
        for slot, (va, vb) in enumerate(zip(na.inputs, nb.inputs, strict=False)):
            pa, pb = self.a.producer_index(va), self.b.producer_index(vb)
            if pa is not None or pb is not None:
                if pa is not None and pb is None and pa not in self.partner and self.b.source(vb)[0] == "weight":
                    found.append(Change("folded", f"input {slot}: node {self.a.labels[pa]} folded into "
                                                  f"{self._from(self.b, vb)}"))
                elif pa is None or pb is None or self.partner.get(pa) != pb or output_slot(va) != output_slot(vb):
                    found.append(Change("input", f"input {slot}: from {self._from(self.a, va)} → "
                                                 f"from {self._from(self.b, vb)}"))
                continue
            sa, sb = self.a.source(va), self.b.source(vb)
            if sa[0] == sb[0] == "weight":
                assert va is not None and vb is not None
                text = _tensor_change(f"weight {va.name} (input {slot})", va.const_value, vb.const_value, self.content,
                                      (sa[1], sb[1]))
                if text:
                    found.append(Change("weight", text))
            elif sa != sb:
                found.append(Change("input", f"input {slot}: from {self._from(self.a, va)} → "
                                             f"from {self._from(self.b, vb)}"))
        return found

    @staticmethod
    def _from(g: GraphIndex, value: ir.Value | None) -> str:
        if value is None:
            return "nothing"
        p = g.producer_index(value)
        if p is not None:
            return f"node {g.labels[p]}"
        source = g.source(value)
        kind = source[0]
        if kind == "input":
            return f"graph input {value.name}"
        if kind == "weight":
            return f"weight {value.name}"
        return f"outer value {value.name}"


def _op(node: ir.Node) -> str:
    return f"{node.domain}::{node.op_type}" if node.domain else node.op_type
