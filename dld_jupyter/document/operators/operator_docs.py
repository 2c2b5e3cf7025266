"""The operator reference of the layer documentation browser (seed 000: "see the operator's description in the
editor's documentation browser (Help > Layer Documentation)"; issue 41): every operator of the schema registry
(schema.py: the installed onnx, every domain and version, ONNX Runtime's contrib operators) as plain data.

`operator_index()` lists the operators (name, domain, newest version, category, deprecated, a one-line summary) for
the browser's searchable list; `operator_reference(name, domain)` gives one operator's every version: description,
inputs, outputs, attributes (type, required or default), type constraints and input/output counts. Text comes from
the schemas as written (ONNX writes Markdown); whoever shows it treats it as data (the JupyterLab panel renders a
safe subset of Markdown with DOM text nodes, js/src/lab/doc_markdown.ts). JupyterLab reads both through the server
(lab/operator_docs_handler.py), Python and the CLI call them directly (`dld operators`).
"""

from __future__ import annotations

from typing import TypedDict

from dld_jupyter.document.edits.literals import format_literal
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.operators.schema import FormalParam, OpSchemaInfo, SchemaRegistry, registry

DEFAULT_DOMAIN = "ai.onnx"  # how the empty domain is named to users


class IndexEntry(TypedDict):
    name: str
    domain: str  # "ai.onnx" for the default domain
    since_version: int  # the newest version
    category: str
    deprecated: bool
    summary: str


class ParamDoc(TypedDict):
    name: str
    type: str  # the type variable ("T") or the concrete type
    types: list[str]
    optional: bool
    variadic: bool
    doc: str


class AttributeDoc(TypedDict):
    name: str
    type: str  # "INT", "INTS", "STRING", "TENSOR", ...
    required: bool
    default: str | None  # in the editors' literal syntax ("1", "'NOTSET'", "[1, 1]"), None when there is none
    doc: str


class ConstraintDoc(TypedDict):
    name: str
    types: list[str]
    doc: str


class VersionDoc(TypedDict):
    since_version: int
    deprecated: bool
    doc: str  # Markdown, as the schema writes it
    inputs: list[ParamDoc]
    outputs: list[ParamDoc]
    attributes: list[AttributeDoc]
    type_constraints: list[ConstraintDoc]
    inputs_range: list[int]  # [min, max] (max 2147483647: any number)
    outputs_range: list[int]


class OperatorReference(TypedDict):
    name: str
    domain: str
    category: str
    versions: list[VersionDoc]  # newest first


def summary_of(doc: str, limit: int = 240) -> str:
    """First paragraph of an operator's documentation, on one line (a palette tooltip, the browser's list)."""
    text = " ".join(doc.strip().split("\n\n", 1)[0].split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _domain(domain: str) -> str:
    return domain or DEFAULT_DOMAIN


def operator_index(schemas: SchemaRegistry = registry) -> list[IndexEntry]:
    """Every operator at its newest version, by name (case-insensitive) then domain."""
    newest = [schemas.get(name, domain) for domain, name in schemas.known_ops()]
    found = [
        IndexEntry(name=s.name, domain=_domain(s.domain), since_version=s.since_version, category=s.category,
                   deprecated=s.deprecated, summary=summary_of(s.doc))
        for s in newest
        if s is not None
    ]
    return sorted(found, key=lambda e: (e["name"].lower(), e["name"], e["domain"]))


def _param(p: FormalParam) -> ParamDoc:
    return ParamDoc(name=p.name, type=p.type_str, types=list(p.types), optional=p.optional, variadic=p.variadic,
                    doc=p.doc.strip())


def _version(s: OpSchemaInfo) -> VersionDoc:
    return VersionDoc(
        since_version=s.since_version,
        deprecated=s.deprecated,
        doc=s.doc.strip(),
        inputs=[_param(p) for p in s.inputs],
        outputs=[_param(p) for p in s.outputs],
        attributes=[
            AttributeDoc(name=a.name, type=a.type, required=a.required,
                         default=None if a.default is None else format_literal(a.default), doc=a.doc.strip())
            for a in s.attributes
        ],
        type_constraints=[ConstraintDoc(name=c.name, types=list(c.types), doc=c.doc.strip())
                          for c in s.type_constraints],
        inputs_range=[s.min_input, s.max_input],
        outputs_range=[s.min_output, s.max_output],
    )


class UnknownOperator(DocumentError):
    """No schema has this name in this domain; says so, where that name is known, and what to do."""


def operator_reference(name: str, domain: str = "", schemas: SchemaRegistry = registry) -> OperatorReference:
    """One operator, its versions newest first."""
    key = "" if domain == DEFAULT_DOMAIN else domain
    versions = schemas.versions(name, key)
    if not versions:
        hint = [e for e in operator_index(schemas) if e["name"].lower() == name.lower()]
        where = f" (in {', '.join(e['domain'] + ' as ' + e['name'] for e in hint)})" if hint else ""
        raise UnknownOperator("Operator documentation", f"no operator {name!r} in domain {_domain(key)!r}{where}.",
                              "`dld operators` lists every operator by name and domain.")
    found = [s for v in reversed(versions) if (s := schemas.get(name, key, v)) is not None]
    return OperatorReference(name=name, domain=_domain(key), category=found[0].category,
                             versions=[_version(s) for s in found])
