"""Layers filtered by any attribute (seed 000 layer explorer "advanced filters"), evaluated where the model lives.

Why in the kernel: the sidebar holds names, types and precisions of up to 50,000 layers, not their attributes; a
filter expression goes to the kernel and the matching layer ids come back. Terms are separated by commas and must
all hold: `group` (has the attribute), `group=1`, `kernel_shape=[3, 3]`, `auto_pad!=NOTSET`, `mode~linear`
(the value's text contains it, any case). Values compare as the attribute's text without spaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import onnx_ir as ir

from dld_jupyter.document.model.document import Document

_TERM = re.compile(r"\s*([A-Za-z_][\w.]*)\s*(?:(!=|=|~)\s*(.*?))?\s*")


@dataclass(frozen=True)
class Term:
    name: str
    op: str  # "" (present), "=", "!=", "~"
    value: str

    def holds(self, node: ir.Node) -> bool:
        attr = node.attributes.get(self.name)
        if attr is None:
            return self.op == "!="  # an absent attribute is not equal to any value
        if not self.op:
            return True
        text = attribute_text(attr)
        if self.op == "~":
            return self.value.lower() in text.lower()
        equal = _squeeze(text) == _squeeze(self.value)
        return equal if self.op == "=" else not equal


def attribute_text(attr: ir.Attr) -> str:
    if attr.is_ref():
        return f"@{attr.ref_attr_name}"
    value = attr.value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, (ir.Graph,)):
        return f"<graph {value.name}>"
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"<tensor {value.dtype} {list(value.shape)}>"
    return str(value)


def _squeeze(text: str) -> str:
    return "".join(text.split())


def parse(expression: str) -> list[Term]:
    """The terms of `expression`; ValueError says which term is not understood and the forms that are."""
    terms = []
    for part in _split(expression):
        match = _TERM.fullmatch(part)
        if match is None:
            raise ValueError(
                f"attribute filter: {part.strip()!r} is not a term; use name, name=value, name!=value or "
                "name~text, separated by commas (e.g. group=1, kernel_shape=[3, 3])"
            )
        name, op, value = match.group(1), match.group(2) or "", match.group(3) or ""
        terms.append(Term(name, op, value))
    return terms


def _split(expression: str) -> Iterator[str]:
    """Commas outside brackets separate terms: kernel_shape=[3, 3] is one."""
    depth, start = 0, 0
    for i, char in enumerate(expression):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        if char == "," and depth == 0:
            if expression[start:i].strip():
                yield expression[start:i]
            start = i + 1
    if expression[start:].strip():
        yield expression[start:]


def matching_layers(document: Document, expression: str) -> list[str]:
    """Ids of the main graph's op nodes whose attributes satisfy every term of `expression`."""
    terms = parse(expression)
    return [document.node_id(node) for node in document.model.graph if all(t.holds(node) for t in terms)]
