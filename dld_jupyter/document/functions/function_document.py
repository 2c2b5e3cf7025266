"""FunctionDocument: a local function's body edited as a model (seed 000 "Local Functions").

``doc.functions.open(name, domain)`` opens a copy of the definition: its graph is the body (function inputs and
outputs are the graph's inputs and outputs; untyped ones have no type), the model imports the function's opsets
and holds copies of the parent's other functions (so calls to them keep their signatures). It is edited like a
model, except that a function holds no initializers (refused: use a Constant). Parameters and references are
edits of this document too (``function_parameters``). ``confirm()`` writes the definition back as ONE undo step
of the parent ("Confirm Local Function Edits"); every instance is reported changed, so each one redraws.

Checks: ``onnx.checker.check_function`` with the parent's opsets on the definition, then the usual checks on the
standalone model the body becomes with the inputs typed by the parent's first instance and references resolved
by its attributes (``check_input``); diagnostics are bound to this document's node ids.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import onnx
import onnx_ir as ir

from dld_jupyter.document.checks.diagnostics import Diagnostic
from dld_jupyter.document.edits.commands import Command, Composite
from dld_jupyter.document.files import io
from dld_jupyter.document.functions.function_body import instance_types, model_types, nested_functions, standalone_model
from dld_jupyter.document.functions.function_commands import SetFunctions, SetOpsetImport
from dld_jupyter.document.functions.function_model import FunctionKey, FunctionParameter, find_function, instances_of
from dld_jupyter.document.functions.function_parameters import (
    ParameterTable,
    ReferenceChoice,
    add_parameter,
    clear_reference,
    parameters,
    referable_attributes,
    reference_choices,
    references,
    remove_parameter,
    set_reference,
)
from dld_jupyter.document.layout.metadata import POSITIONS_KEY, encode_positions
from dld_jupyter.document.model.document import Document
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.ids import value_node_id
from dld_jupyter.document.subgraphs.child_document import ChildDocument
from dld_jupyter.document.subgraphs.child_lock import register_opener

_NODE_NAME = re.compile(r"Node \(([^)]+)\)|Name: (\S+)")
_UNTYPED_OUTPUT = "Field 'type' of 'value_info' is required but missing"
NO_INITIALIZERS = ("a local function holds no initializers.", "Use a Constant node to hold the value.")


class FunctionDocument(ChildDocument):
    """The body of local function ``key`` of ``parent``; see the module docstring."""

    kind = "function"
    confirm_label = "Confirm Local Function Edits"

    def __init__(self, parent: Document, key: FunctionKey, model: ir.Model, table: ParameterTable) -> None:
        domain, name, overload = key
        self.key = key  # before the base attaches to the parent: the lock's reason reads it
        self._table = table
        super().__init__(parent, model, f"function {domain}::{name}" + (f":{overload}" if overload else ""))

    @classmethod
    def open_in(cls, parent: Document, name: str, domain: str, overload: str = "") -> FunctionDocument:
        what = f"Open function {domain}::{name}"
        key = find_function(parent.model, name, domain, overload, what)
        for child in parent.open_children:
            if isinstance(child, FunctionDocument) and child.key == key:
                raise DocumentError(what, f"{child.title} is open already.", "Use that document (doc.open_children).")
        original = parent.model.functions[key]
        copy = original.clone()
        others = [f.clone() for k, f in parent.model.functions.items() if k != key]
        model = ir.Model(copy.graph, ir_version=parent.model.ir_version, producer_name="dld_jupyter", functions=others)
        positions = original.metadata_props.get(POSITIONS_KEY)
        if positions:  # the canvas places the body as it was left
            model.metadata_props[POSITIONS_KEY] = positions
        return cls(parent, key, model, ParameterTable(dict(copy.attributes)))

    # ------------------------------------------------------------ the ChildDocument contract
    @property
    def lock_reason(self) -> str:
        return f"Local function '{self.key[0]}::{self.key[1]}' is open for editing: confirm or close it first."

    def definition(self) -> ir.Function:
        """The function this document describes now (a copy: body, parameters, the opsets its nodes need)."""
        graph = self.model.graph.clone()
        imports = graph.opset_imports
        parent_imports = self.parent.model.opset_imports
        for node in graph:
            if node.domain not in imports:
                imports[node.domain] = parent_imports.get(node.domain, 1)
        domain, name, overload = self.key
        function = ir.Function(domain, name, overload, graph=graph, attributes=list(self._table.attrs.values()))
        original = self.parent.model.functions.get(self.key)
        if original is not None:
            function.doc_string = original.doc_string
            function.metadata_props.update(original.metadata_props)
        function.metadata_props.pop(POSITIONS_KEY, None)
        positions = encode_positions(self.model.graph, self._ctx.ids, self._ctx.positions)
        if positions:  # where the user left the body's nodes (ONNX and onnxruntime accept function metadata)
            function.metadata_props[POSITIONS_KEY] = positions
        return function

    def definition_proto(self) -> onnx.FunctionProto:
        return ir.serde.serialize_function(self.definition())

    def _checker_context(self, definition: ir.Function) -> Any:
        context = onnx.checker.C.CheckerContext()
        context.ir_version = self.parent.model.ir_version
        context.opset_imports = {**dict(self.parent.model.opset_imports), **dict(definition.opset_imports)}
        return context

    def validate(self) -> None:
        what = self.confirm_label
        graph = self.model.graph
        if not graph.outputs:
            raise DocumentError(what, "the function has no output.", "Add a graph output (add_graph_output).")
        made = {out for node in graph for out in node.outputs} | set(graph.inputs)
        for value in graph.outputs:
            if value not in made:
                raise DocumentError(what, f"output {value.name!r} is made by nothing.", "Connect it to a node.")
        for node, attr in references(graph):
            if attr.ref_attr_name not in self._table.attrs:
                raise DocumentError(
                    what,
                    f"{node.name or node.op_type}.{attr.name} references {attr.ref_attr_name!r}, not a parameter.",
                    "Add that parameter or clear the reference.",
                )
        calls = [self.key] if self.key in {(n.domain, n.op_type, n.overload) for n in graph} else []
        calls += [k for k in nested_functions(self.parent.model, list(graph)) if k == self.key]
        if calls:
            raise DocumentError(what, "the body calls the function itself.", "Remove that call: ONNX has no recursion.")
        definition = self.definition()
        imports = self.parent.model.opset_imports
        for domain, version in definition.opset_imports.items():
            if imports.get(domain, version) != version:
                raise DocumentError(
                    what,
                    f"the body imports {domain or 'ai.onnx'} {version}, the model {imports[domain]}: onnxruntime "
                    "needs one version per domain.",
                    f"Set the function's import to {imports[domain]} (Model information, opset imports).",
                )
        try:
            onnx.checker.check_function(ir.serde.serialize_function(definition), self._checker_context(definition))
        except Exception as error:  # ValidationError and whatever a broken body provokes
            raise DocumentError(what, f"the definition is not valid ONNX: {error}", "Run Check and fix it.") from None

    def write_back_command(self) -> Command:
        """The new definition in place of the old, and the parent's imports of domains only the body uses."""
        items = dict(self.parent.model.functions)
        definition = self.definition()
        items[self.key] = definition
        imports = self.parent.model.opset_imports
        missing = [SetOpsetImport(d, v) for d, v in definition.opset_imports.items() if d not in imports]
        return Composite((SetFunctions(tuple(items.items())), *missing))

    # ------------------------------------------------------------ edits: no initializers
    @contextlib.contextmanager
    def transaction(self, label: str) -> Iterator[None]:
        """A Document transaction that refuses (and rolls back) initializers: a function has none."""
        outer = not self._history.in_transaction
        with super().transaction(label):
            yield
            if outer and self.model.graph.initializers:
                raise DocumentError(label, *NO_INITIALIZERS)

    # ------------------------------------------------------------ parameters and references
    def parameters(self) -> list[FunctionParameter]:
        """The function's parameters as edited here (they land in the definition on confirm)."""
        return parameters(self._table)

    def add_parameter(self, name: str, type: str, default: Any = None) -> None:
        """A parameter of ``type`` ("int", "floats", ... or "undefined": no default); one undo step."""
        with self.transaction(f"Add parameter {name}"):
            add_parameter(self._ctx, self._do, self._table, name, type, default)

    def remove_parameter(self, name: str) -> None:
        """Remove a parameter no reference uses (refused, naming them, otherwise); one undo step."""
        with self.transaction(f"Remove parameter {name}"):
            remove_parameter(self._ctx, self._do, self._table, name)

    def set_reference_attribute(self, node_id: str, attr_name: str, parameter: str) -> None:
        """Bind ``attr_name`` of an op node to ``parameter`` (type checked against the schema); one undo step."""
        with self.transaction(f"Set reference {attr_name} -> {parameter}"):
            set_reference(self._ctx, self._do, self._table, node_id, attr_name, parameter)

    def clear_reference_attribute(self, node_id: str, attr_name: str) -> None:
        """Drop the reference: the attribute is unset (its schema default); one undo step."""
        with self.transaction(f"Clear reference {attr_name}"):
            clear_reference(self._ctx, self._do, node_id, attr_name)

    def reference_choices(self, node_id: str, attr_name: str) -> list[ReferenceChoice]:
        """The parameters the reference dialog offers for ``attr_name``, incompatible ones marked."""
        return reference_choices(self._ctx, self._table, node_id, attr_name)

    def referable_attributes(self, node_id: str) -> dict[str, str]:
        """The node's attributes without a reference yet, with their schema types."""
        return referable_attributes(self._ctx, node_id)

    # ------------------------------------------------------------ checks
    def instances(self) -> list[str]:
        """The parent's node ids of this function's instances."""
        return [self.parent.node_id(n) for n in instances_of(self.parent.model.graph, self.key)]

    def check_input(self) -> tuple[ir.Model, Callable[[ir.Node], str | None]]:
        """The standalone model the body becomes for the parent's first instance (its input types and attribute
        values), and how its nodes map to this document's ids."""
        calls = instances_of(self.parent.model.graph, self.key)
        instance = calls[0] if calls else None
        parent = self.parent.model
        types = instance_types(parent, instance, lambda: model_types(parent))
        graph = self.model.graph
        model, originals = standalone_model(
            parent, graph, self._table.attrs, instance, types, self.key[1], partial=True
        )
        ids = {copy: self.node_id(node) for copy, node in originals.items()}
        return model, ids.get

    def save_copy(self, path: str | os.PathLike[str]) -> None:
        """Write the body as a standalone model (inputs typed and references resolved by the parent's first
        instance): what profiling or exporting from inside a function document runs. Refused when an input type is
        unknown or an output is made by nothing."""
        calls = instances_of(self.parent.model.graph, self.key)
        instance = calls[0] if calls else None
        parent = self.parent.model
        types = instance_types(parent, instance, lambda: model_types(parent))
        model, _ = standalone_model(parent, self.model.graph, self._table.attrs, instance, types, self.key[1])
        untyped = [v.name for v in model.graph.inputs if v.type is None]
        if untyped:
            raise DocumentError(
                f"Write {self.title} as a model",
                f"the type of input {untyped[0]!r} is not known (no instance in the parent passes a typed value).",
                "Place an instance of the function in the parent model and connect its inputs.",
            )
        io.save(model, pathlib.Path(path), {})

    def check(self) -> list[Any]:
        """check_function on the definition, then the model checks of ``check_input``; fills ``inferred``."""
        from dld_jupyter.document.checks.checks import CheckResult, check_model

        definition = self.definition()
        found: list[Diagnostic] = []
        try:
            onnx.checker.check_function(ir.serde.serialize_function(definition), self._checker_context(definition))
        except Exception as error:  # every checker failure is a diagnostic
            text = str(error).strip()
            named = _NODE_NAME.search(text)
            name = (named.group(1) or named.group(2)) if named else None
            node = next((n for n in self.model.graph if name and n.name == name), None)
            found.append(Diagnostic("error", text, self.node_id(node) if node else None, "", "checker"))
        try:
            result = check_model(*self.check_input())
        except DocumentError as error:
            result = CheckResult([Diagnostic("error", str(error), None, error.fix, "structure")], {})
        graph = self.model.graph
        made = {out for node in graph for out in node.outputs} | set(graph.inputs)
        if not graph.outputs:
            found.append(Diagnostic("error", "The function has no output.", None, "Add a graph output.", "structure"))
        for value in graph.outputs:
            if value not in made:
                message = f"Function output '{value.name}' is made by nothing."
                where = value_node_id("output", self.value_id(value))
                found.append(Diagnostic("error", message, where, "Connect it to a node.", "structure"))
        diagnostics = found + list(result.diagnostics)
        if len(diagnostics) > 1:  # an output left untyped by an earlier error: that error is the news
            diagnostics = [d for d in diagnostics if _UNTYPED_OUTPUT not in d.message]
        return self.apply_check(CheckResult(diagnostics, result.inferred))


def _open(parent: Document, name: str, domain: str, overload: str = "") -> FunctionDocument:
    return FunctionDocument.open_in(parent, name, domain, overload)


register_opener("function", _open)
