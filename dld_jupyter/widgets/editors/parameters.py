"""Parameter editor (seed 000 "Parameters"): the selected nodes' name and attributes, or the model's information.

The view is a JSON dict the front end draws (js/src/widgets/editors/parameters.ts); ``handle`` turns its messages
into Document commands. Several selected nodes show only the attributes they share, edited in one undo step.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits.model_commands import set_ir_version
from dld_jupyter.document.layout.metadata import POSITIONS_KEY
from dld_jupyter.document.operators.schema import AttributeInfo, OpSchemaInfo, registry

from . import child_edits, io_types
from .attribute_text import EDITABLE, from_text, to_text
from .edit_error import EditError, as_edit_error
from .function_view import function_view

DTYPE_NAMES = frozenset({"to", "dtype", "output_dtype", "output_datatype"})
DTYPE_CHOICES = [[str(int(t)), t.name.lower()] for t in ir.DataType if t != ir.DataType.UNDEFINED]
MODEL_TEXT_FIELDS = ("producer_name", "producer_version", "domain", "doc_string", "graph_name", "graph_doc_string")


def schema_of(doc: Document, op_type: str, domain: str) -> OpSchemaInfo | None:
    opset = doc.model.opset_imports.get(domain or "", None)
    return registry.get(op_type, domain, opset)


def _op_ids(doc: Document, selection: Sequence[str]) -> list[str]:
    """The selected op nodes still in the graph (looked up one by one: the graph may have 50k nodes)."""
    out = []
    for nid in selection:
        try:
            if doc.node(nid).kind == "op":
                out.append(nid)
        except DocumentError:
            continue
    return out


def _attribute_row(info: AttributeInfo, values: list[Any], set_flags: list[bool]) -> dict[str, Any]:
    texts = [to_text(v, info.type) for v, s in zip(values, set_flags, strict=True) if s]
    is_set = any(set_flags)
    mixed = is_set and (not all(set_flags) or len(set(texts)) > 1)
    return {
        "name": info.name,
        "type": info.type,
        "required": info.required,
        "set": is_set,
        "mixed": mixed,
        "text": texts[0] if texts and not mixed else "",
        "default_text": to_text(info.default, info.type) if info.default is not None else "",
        "editable": info.type in EDITABLE,
        "list": info.type in ("INTS", "FLOATS", "STRINGS", "TENSOR"),
        "doc": info.doc,
        "choices": DTYPE_CHOICES if is_dtype_attribute(info) else None,
    }


def is_dtype_attribute(info: AttributeInfo) -> bool:
    """INT attributes holding an element type (Cast.to, RandomNormal.dtype, ...): edited with a type menu."""
    if info.type != "INT":
        return False
    return info.name in DTYPE_NAMES or "DataType" in info.doc or "TensorProto" in info.doc


def documentation(schema: OpSchemaInfo) -> str:
    """The operator's reference as plain text: description, inputs, outputs, attributes (with defaults)."""
    lines = [schema.doc.strip(), ""]
    for title, params in (("Inputs", schema.inputs), ("Outputs", schema.outputs)):
        if params:
            lines.append(title)
        for f in params:
            flags = ", ".join(x for x in ("optional" if f.optional else "", "variadic" if f.variadic else "") if x)
            kind = f.type_str + (f", {flags}" if flags else "")
            lines.append(f"  {f.name} ({kind}): {' '.join(f.doc.split())}")
    if schema.attributes:
        lines.append("Attributes")
    for a in schema.attributes:
        default = (
            " required" if a.required else f" default {to_text(a.default, a.type)}" if a.default is not None else ""
        )
        lines.append(f"  {a.name} ({a.type.lower()}{default}): {' '.join(a.doc.split())}")
    return "\n".join(lines).strip()


def view(doc: Document, selection: Sequence[str]) -> dict[str, Any]:
    """What the parameter editor shows for ``selection`` (node ids)."""
    return child_edits.decorate(doc, _view(doc, selection))


def _view(doc: Document, selection: Sequence[str]) -> dict[str, Any]:
    if (io := io_types.io_id(doc, selection)) is not None:
        return io_types.view(doc, io)
    ids = _op_ids(doc, selection)
    if not ids:
        return {"mode": "model", "model": model_info(doc), "function": function_view(doc, [])}
    nodes = [doc.node(nid) for nid in ids]
    schemas = [schema_of(doc, n.op_type, n.domain) for n in nodes]
    shared: list[AttributeInfo] = []
    first = schemas[0]
    if first is not None and all(s is not None for s in schemas):
        for info in first.attributes:
            if all(s is not None and s.attribute(info.name) == info for s in schemas):
                shared.append(info)
    rows = [
        _attribute_row(info, [n.attributes.get(info.name) for n in nodes], [info.name in n.attributes for n in nodes])
        for info in shared
    ]
    # Set attributes the schema does not know (custom domains) are still shown and editable by their value's type.
    if first is None and len(nodes) == 1:
        rows = [_unknown_row(name, value) for name, value in nodes[0].attributes.items()]
    single = nodes[0] if len(nodes) == 1 else None
    op_types = sorted({n.op_type for n in nodes})
    return {
        "mode": "nodes",
        "ids": ids,
        "name": single.name if single else None,
        "title": f"{single.op_type}" if single else f"{len(nodes)} nodes: {', '.join(op_types)}",
        "op_type": op_types[0] if len(op_types) == 1 else None,
        "domain": nodes[0].domain,
        "since_version": first.since_version if first and len(op_types) == 1 else None,
        "doc": documentation(first) if first and len(op_types) == 1 else "",
        "attributes": [r for r in rows if r["set"] or r["required"]],
        "defaults": [r for r in rows if not r["set"] and not r["required"]],
        "function": function_view(doc, ids),
    }


def _unknown_row(name: str, value: Any) -> dict[str, Any]:
    kind = "INT" if isinstance(value, int) else "FLOAT" if isinstance(value, float) else "STRING"
    if isinstance(value, list):
        kind = "INTS" if all(isinstance(v, int) for v in value) else "FLOATS"
    info = AttributeInfo(name, kind, False)
    return _attribute_row(info, [value], [True])


def model_info(doc: Document) -> dict[str, Any]:
    model = doc.model
    return {
        "ir_version": model.ir_version,
        "opsets": [{"domain": d, "version": v} for d, v in sorted(model.opset_imports.items())],
        "producer_name": model.producer_name or "",
        "producer_version": model.producer_version or "",
        "domain": model.domain or "",
        "model_version": model.model_version or 0,
        "doc_string": model.doc_string or "",
        "graph_name": model.graph.name or "",
        "graph_doc_string": model.graph.doc_string or "",
        "metadata": [{"key": k, "value": v} for k, v in sorted(model.metadata_props.items()) if k != POSITIONS_KEY],
    }


# ------------------------------------------------------------------ messages
def _attr_type(doc: Document, node_id: str, name: str) -> tuple[str, Any]:
    node = doc.node(node_id)
    schema = schema_of(doc, node.op_type, node.domain)
    info = schema.attribute(name) if schema else None
    current = node.attributes.get(name)
    if info is not None:
        return info.type, current
    declared = child_edits.parameter_type(doc, node.function, name) if node.function else None
    if declared == "LITERAL":  # an undefined parameter: keeps the type of the value passed, else the text's
        ir_node = doc.ir_node(node_id)
        attr = ir_node.attributes.get(name) if ir_node is not None else None
        return (attr.type.name if attr is not None else declared), current
    if declared is not None:  # a value a function instance passes for a parameter
        return declared, current
    return _unknown_row(name, current)["type"], current


def set_attribute(doc: Document, ids: Sequence[str], name: str, text: str) -> None:
    key = f"attr:{name}"
    try:
        values = {nid: from_text(text, *_attr_type(doc, nid, name)) for nid in ids}
        label = f"Set {name}" if len(ids) == 1 else f"Set {name} on {len(ids)} nodes"
        with doc.transaction(label):
            for nid, value in values.items():
                doc.set_attribute(nid, name, value)
    except Exception as exc:
        raise as_edit_error(key, exc) from exc


def reset_attribute(doc: Document, ids: Sequence[str], name: str) -> None:
    try:
        targets = [nid for nid in ids if name in doc.node(nid).attributes]
        with doc.transaction(f"Reset {name}"):
            for nid in targets:
                doc.reset_attribute(nid, name)
    except Exception as exc:
        raise as_edit_error(f"attr:{name}", exc) from exc


def rename(doc: Document, node_id: str, text: str) -> None:
    try:
        doc.rename_node(node_id, text.strip())
    except Exception as exc:
        raise as_edit_error("name", exc) from exc


def set_model_field(doc: Document, field: str, text: str) -> None:
    key = f"model:{field}"
    try:
        if field in ("model_version", "ir_version"):
            try:
                number = int(text.strip() or "0")
            except ValueError as exc:
                raise EditError(key, f"The {field.replace('_', ' ')} is an integer.") from exc
            if field == "ir_version":
                doc.edit(f"Set IR version {number}", functools.partial(set_ir_version, version=number))
            else:
                doc.set_model_info(model_version=number)
        elif field in MODEL_TEXT_FIELDS:
            doc.set_model_info(**{field: text})
        else:
            raise EditError(key, f"{field} cannot be edited.")
    except Exception as exc:
        raise as_edit_error(key, exc) from exc


def set_opset(doc: Document, domain: str, text: str) -> None:
    key = f"opset:{domain}"
    opsets = dict(doc.model.opset_imports)
    try:
        if text.strip() == "":
            opsets.pop(domain, None)
        else:
            opsets[domain] = int(text)
    except ValueError as exc:
        raise EditError(key, "An opset version is a positive integer.") from exc
    try:
        doc.set_model_info(opset_imports=opsets)
    except DocumentError as exc:
        raise as_edit_error(key, exc) from exc


def set_metadata(doc: Document, key_name: str, value: str | None) -> None:
    try:
        doc.set_metadata(key_name, value)
    except Exception as exc:
        raise as_edit_error(f"meta:{key_name}", exc) from exc


def handle(doc: Document, selection: Sequence[str], msg: dict[str, Any]) -> None:
    """Apply one parameter-editor message; raises EditError (document unchanged) when refused."""
    kind = msg.get("kind")
    if (io := io_types.io_id(doc, selection)) is not None and kind in ("rename", "set_io_type"):
        io_types.handle(doc, io, msg)
        return
    ids = _op_ids(doc, selection)
    if kind == "set_attr":
        set_attribute(doc, ids, str(msg["name"]), str(msg["text"]))
    elif kind == "reset_attr":
        reset_attribute(doc, ids, str(msg["name"]))
    elif kind == "rename":
        if len(ids) != 1:
            raise EditError("name", "Select one node to rename it.")
        rename(doc, ids[0], str(msg["text"]))
    elif kind == "set_model":
        set_model_field(doc, str(msg["field"]), str(msg["text"]))
    elif kind == "set_opset":
        set_opset(doc, str(msg["domain"]), str(msg["text"]))
    elif kind == "set_meta":
        value = msg.get("value")
        set_metadata(doc, str(msg["meta_key"]), None if value is None else str(value))
