"""What the parameter editor shows about local functions (seed 000 "Local Functions"), under the view's
``"function"`` key (None when there is nothing to show):
- in a function document with no node selected: the function's parameters (Edit Local Function Parameters) and the
  types a new one can have;
- in a function document with one node selected: its references (attribute -> parameter, the value rows show
  ``"@param"``), the attributes that can take one, and for each the parameters offered, incompatible ones marked
  (Set Reference Parameter's two drop-downs);
- for one selected function instance, in any document: the parameters it passes values for, set or defaulted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dld_jupyter.document import Document, FunctionDocument, FunctionParameter
from dld_jupyter.document.functions.function_model import PARAMETER_TYPES

from .attribute_text import to_text


def _parameter(p: FunctionParameter, value: Any = None, is_set: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {
        "name": p.name,
        "type": p.type,
        "default_text": to_text(p.default, p.type) if p.default is not None else "",
    }
    if is_set:
        row["text"] = to_text(value, p.type if p.type != "UNDEFINED" else _type_of(value))
    row["set"] = is_set
    return row


def _type_of(value: Any) -> str:
    if hasattr(value, "shape"):
        return "TENSOR"
    if isinstance(value, list):
        return "INTS" if all(isinstance(v, int) for v in value) else "FLOATS"
    return "INT" if isinstance(value, int) else "FLOAT" if isinstance(value, float) else "STRING"


def function_view(doc: Document, ids: Sequence[str]) -> dict[str, Any] | None:
    if isinstance(doc, FunctionDocument):
        out: dict[str, Any] = {
            "title": doc.title,
            "parameters": [_parameter(p) for p in doc.parameters()],
            "parameter_types": [t.lower() for t in PARAMETER_TYPES],
        }
        if len(ids) == 1:
            node = doc.node(ids[0])
            references = {
                name: value[1:]
                for name, value in node.attributes.items()
                if isinstance(value, str) and value[:1] == "@"
            }
            referable = doc.referable_attributes(ids[0])
            out["references"] = references
            out["referable"] = referable
            out["choices"] = {
                name: [vars(c) for c in doc.reference_choices(ids[0], name)] for name in (*references, *referable)
            }
        return out
    if len(ids) == 1:
        node = doc.node(ids[0])
        if node.function is None:
            return None
        domain, _, name = node.function.partition("::")
        info = next((f for f in doc.functions.list() if (f.domain, f.name) == (domain, name)), None)
        if info is None:
            return None
        return {
            "instance_of": node.function,
            "parameters": [
                _parameter(p, node.attributes.get(p.name), p.name in node.attributes) for p in info.parameters
            ],
        }
    return None
