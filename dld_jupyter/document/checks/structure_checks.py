"""Our checks beyond onnx.checker, run on the ir model: node and value names, unknown ops and unconnected mandatory
inputs (one schema lookup per op type), nodes whose outputs go nowhere, and tensors whose data does not fit their
type and shape (data_size.py). Each finding goes to the check's Collector as a "structure" diagnostic."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import onnx_ir as ir

from dld_jupyter.document.checks.collector import Collector, hint
from dld_jupyter.document.checks.data_size import data_size_problems
from dld_jupyter.document.checks.diagnostics import Severity
from dld_jupyter.document.checks.skeleton import STANDARD_DOMAINS
from dld_jupyter.document.files.io import GENERATED_NAMES_KEY
from dld_jupyter.document.operators.schema import OpSchemaInfo, registry


def structural_checks(model: ir.Model, collector: Collector) -> None:
    """Names, connections, dangling nodes and unknown ops of the main graph."""
    nodes = collector.skeleton.nodes
    label = collector.skeleton.label  # built only for the nodes that get a message
    names = Counter(node.name for node in nodes)
    values = Counter(v.name for node in nodes for v in node.outputs if v.name)
    values.update(v.name for v in model.graph.inputs if v.name)
    twice = {name for name, count in values.items() if count > 1}
    functions = {(f.domain, f.name) for f in model.functions.values()}
    schemas = _SchemaCache(model)
    with_subgraphs = collector.skeleton.with_subgraphs  # their nodes are reported on the outer node
    generated = model.meta.get(GENERATED_NAMES_KEY)  # opening named them (io.py): said once, not per node
    if generated is not None and generated.names:
        shown = ", ".join(generated.names[:3]) + (", …" if len(generated.names) > 3 else "")
        message = f"{len(generated.names)} nodes had no name in the file: named on opening ({shown})."
        collector.add("info", message, None, "Save the model to write these names into its file.", "structure")
    unnamed = sum(1 for node in nodes if not node.name)
    if unnamed > _UNNAMED_LISTED:  # exporters often name nothing: one summary line, not thousands
        message = f"{unnamed} nodes have no name; the first {_UNNAMED_LISTED} are listed."
        collector.add("info", message, None, "Name them to tell them apart in the layer explorer.", "structure")
    listed = 0
    for index, node in enumerate(nodes):
        name, outputs = node.name, node.outputs
        if not name:
            if listed < _UNNAMED_LISTED:
                listed += 1
                collector.add("info", f"{label(index)} has no name.", index, _RENAME_HINT, "structure")
        elif names[name] > 1:
            message = f"Node name '{name}' is used by {names[name]} nodes."
            collector.add("error", message, index, _RENAME_HINT, "structure")
        for value in outputs if twice else ():
            if value.name in twice:
                message = f"{label(index)}: value name '{value.name}' is produced more than once."
                collector.add("error", message, index, hint("single static assignment"), "structure")
                collector.flagged.add(index)
        if not functions or (node.domain, node.op_type) not in functions:
            schemas.check(node, index, collector)
        for sub in _subgraph_nodes(node) if index in with_subgraphs else ():  # If/Loop/Scan bodies
            if (sub.domain, sub.op_type) not in functions:
                schemas.check(sub, index, collector, f"{label(index)}/{sub.name or sub.op_type}")
        if not any(v.is_graph_output() or v.uses() for v in outputs):
            message = f"{label(index)}: none of its outputs is used or is a graph output."
            collector.add("warning", message, index, "Connect an output, or delete the node.", "structure")


def data_sizes(model: ir.Model, collector: Collector) -> None:
    """Tensors whose data does not fit their type and shape (data_size.py): the skeleton has no data to check."""
    problems = data_size_problems(model)
    index = {node: i for i, node in enumerate(collector.skeleton.nodes)} if problems else {}
    for problem in problems:
        where = index.get(problem.node) if problem.node is not None else None
        collector.add("error", problem.message, where, problem.hint, "structure")
        collector.sized.add(problem.tensor)


def _subgraph_nodes(node: ir.Node) -> Iterator[ir.Node]:
    for attr in node.attributes.values():
        if attr.is_ref() or attr.type not in (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS):
            continue
        for graph in [attr.value] if attr.type == ir.AttributeType.GRAPH else attr.value:
            yield from ir.traversal.RecursiveGraphIterator(graph)


_UNNAMED_LISTED = 100
_RENAME_HINT = "Rename the node: names must be unique, valid C90 identifiers."


class _SchemaCache:
    """Schema lookups once per op type, and how many leading inputs each op requires."""

    def __init__(self, model: ir.Model) -> None:
        self.model = model
        self._found: dict[tuple[str, str], tuple[OpSchemaInfo | None, tuple[int, ...]]] = {}

    def lookup(self, domain: str, op_type: str) -> tuple[OpSchemaInfo | None, tuple[int, ...]]:
        """The schema in force, and the indexes of the inputs it requires."""
        key = (domain, op_type)
        if key not in self._found:
            version = self.model.opset_imports.get(domain)
            schema = registry.get(op_type, domain, version) if version is not None else None
            required = tuple(i for i, p in enumerate(schema.inputs) if not p.optional) if schema else ()
            self._found[key] = (schema, required)
        return self._found[key]

    def check(self, node: ir.Node, index: int, collector: Collector, label: str = "") -> None:
        """Unknown op or unconnected mandatory inputs; `label` names a subgraph node (bound to `index`)."""
        domain = "" if node.domain == "ai.onnx" else node.domain
        schema, required = self.lookup(domain, node.op_type)
        inputs = node.inputs
        count = len(inputs)
        missing = [i for i in required if i >= count or inputs[i] is None]
        if schema is not None and not missing:
            return  # the common case: everything it needs is connected
        label = label or collector.skeleton.label(index)
        collector.flagged.add(index)
        if schema is None:
            severity, message, hint = _unknown_op(self.model, domain, node.op_type, label)
            collector.add(severity, message, index, hint, "structure")
            return
        listed = ", ".join(f"{i} ({schema.inputs[i].name})" for i in missing)
        message = f"{label}: These mandatory inputs are not connected: {listed}"
        collector.add("error", message, index, "Connect each listed input terminal.", "structure")


def _unknown_op(model: ir.Model, domain: str, op_type: str, label: str) -> tuple[Severity, str, str]:
    """(severity, message, hint) for an op without a schema at the model's opset."""
    version = model.opset_imports.get(domain)
    if version is None:
        return (
            "error",
            f"{label}: the model imports no opset for domain '{domain}'.",
            f"Add an opset import for '{domain}'.",
        )
    versions = registry.versions(op_type, domain)
    if versions:
        message = f"{label}: {op_type} does not exist at opset {version} of '{domain or 'ai.onnx'}'."
        return "error", message, f"Raise the opset to {versions[0]} or more, or use another op."
    if domain in STANDARD_DOMAINS or domain in registry.domains():
        return "error", f"{label}: unknown op {op_type}.", hint("No Op registered")
    # A custom domain: legitimate (TensorRT plugins, runtime extensions) but unchecked.
    message = f"{label}: custom op {domain}::{op_type} has no schema; it is not checked."
    return "warning", message, "Make sure the target runtime provides this op."
