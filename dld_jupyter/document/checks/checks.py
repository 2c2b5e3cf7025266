"""Model checks for the type check list: onnx.checker, strict shape inference, structure, data sizes, Polygraphy lint.

Everything found becomes a `Diagnostic` bound to a node id; a broken model never raises. The ONNX checks
run on a weightless skeleton (large initializers become typed graph inputs), so their cost follows the node
count, not the weights: serializing 440 MB of BERT weights is what made a plain `check_model` take seconds.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping

import onnx
import onnx.checker
import onnx.shape_inference
import onnx_ir as ir

from dld_jupyter.document.checks.data_size import data_size_problems
from dld_jupyter.document.checks.diagnostics import Diagnostic, Severity, Source
from dld_jupyter.document.checks.lint import LintRun, start_polygraphy_lint
from dld_jupyter.document.checks.skeleton import STANDARD_DOMAINS, TOKEN, TOKEN_RE, InferredTypes, Skeleton, TypeInfo
from dld_jupyter.document.files.io import GENERATED_NAMES_KEY
from dld_jupyter.document.operators.schema import OpSchemaInfo, registry

__all__ = [
    "AUTO_CHECK_MAX_NODES",
    "CheckResult",
    "Diagnostic",
    "LintRun",
    "check_model",
    "should_check_automatically",
    "start_polygraphy_lint",
]

NodeIds = Callable[[ir.Node], "str | None"] | Mapping[ir.Node, str] | None

# Above this many nodes the editor checks only on request (seed 000: "automatic type checking is disabled").
AUTO_CHECK_MAX_NODES = int(os.environ.get("DLD_AUTO_CHECK_MAX_NODES", "20000"))

_TAGS_RE = re.compile(r"\[(?:ShapeInferenceError|TypeInferenceError|ValidationError)\]\s*")
_OP_PREFIX_RE = re.compile(r"\(op_type:[^,]*, node name: [^)]*\):?|Node ?\([^)]*\)('s)?( with schema\([^)]*\))?")
_INFERENCE_ROUNDS = 8
_TENSOR_RE = re.compile(r"\(tensor name: ([^)]*)\)")  # how onnx.checker names a tensor whose data it refuses
_CASCADE = "expected to have type but instead is null"  # always the echo of an upstream failure
_HINTS: tuple[tuple[str, str], ...] = (
    ("not in range [min=", "Connect the missing inputs, or remove the extra ones."),
    ("marked single but has an empty string", "Connect this input: it is not optional."),
    ("No Op registered", "Check the op type and the model's opset version for its domain."),
    ("No opset import for domain", "Add an opset import for this domain to the model."),
    ("Unrecognized attribute", "Remove the attribute: this op does not have it at this opset."),
    ("Required attribute", "Set the required attribute in the parameter editor."),
    ("single static assignment", "Rename one of the values: each value must have a single producer."),
    ("topologically sorted", "Connect the input to a node output, a graph input or an initializer."),
    ("unsupported type", "Insert a Cast, or change the input's data type to one the op accepts."),
    ("shape", "Check the shapes of this node's inputs (shown on its incoming edges)."),
    ("dimension", "Check the shapes of this node's inputs (shown on its incoming edges)."),
    ("type", "Check the data types of this node's inputs (shown on its incoming edges)."),
)


@dataclasses.dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    inferred: Mapping[str, TypeInfo]  # value name -> (dtype such as "FLOAT", dims: ints, symbols, "?"; or None)

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)


def should_check_automatically(model: ir.Model, max_nodes: int | None = None) -> bool:
    """Whether an edit should trigger a check, or the model is too large and checks only on request."""
    return len(model.graph) <= (AUTO_CHECK_MAX_NODES if max_nodes is None else max_nodes)


def _id_lookup(ids: NodeIds) -> Callable[[ir.Node], str | None]:
    if ids is None:
        return lambda node: node.name or None
    if isinstance(ids, Mapping):
        return ids.get
    return ids


def _hint(message: str) -> str:
    return next((hint for key, hint in _HINTS if key in message), "")


def _unshaped_io(
    model: ir.Model,
    proto: onnx.ModelProto,
    inferred: Mapping[str, TypeInfo],
    collector: _Collector,
    value_ids: Callable[[ir.Value], str | None] | None,
) -> None:
    """The checker wants a shape on every graph input and output: use the inferred one, or report it."""
    graph = proto.graph
    for kind, values, io in (("input", graph.input, model.graph.inputs), ("output", graph.output, model.graph.outputs)):
        for info in values:
            tensor_type = info.type.tensor_type
            if not info.type.HasField("tensor_type") or tensor_type.HasField("shape"):
                continue
            tensor_type.shape.SetInParent()
            typed = inferred.get(info.name)
            shape = typed[1] if typed is not None else None
            if shape is None:
                value = next((v for v in io if v.name == info.name), None)
                value_id = value_ids(value) if value_ids is not None and value is not None else None
                node_id = f"{kind[0]}{value_id}" if value_id else None
                message = f"Graph {kind} '{info.name}' has no shape, not even an inferred one."
                hint = "Set its shape (use symbols such as 'batch' for dimensions that vary)."
                collector.diagnostics.append(Diagnostic("warning", message, node_id, hint, "checker"))
                continue
            for dim in shape:
                if isinstance(dim, int):
                    tensor_type.shape.dim.add().dim_value = dim
                else:
                    tensor_type.shape.dim.add().dim_param = dim


class _Collector:
    """Turns raw messages into diagnostics: finds the node by its token, restores its name, adds a hint."""

    def __init__(self, skeleton: Skeleton, ids: Callable[[ir.Node], str | None]) -> None:
        self.skeleton = skeleton
        self.ids = ids
        self.diagnostics: list[Diagnostic] = []
        self.flagged: set[int] = set()  # nodes with a structural error: checker echoes of it are noise
        self.sized: set[str] = set()  # tensors with a data-size error: the checker's echo of it is unbound noise
        self._seen: set[tuple[int | None, str]] = set()

    def add(
        self, severity: Severity, message: str, index: int | None, hint: str = "", source: Source = "checker"
    ) -> None:
        key = (index, message)
        if key in self._seen:
            return
        self._seen.add(key)
        node_id = self.ids(self.skeleton.nodes[index]) if index is not None else None
        self.diagnostics.append(Diagnostic(severity, message, node_id, hint, source))

    def raw(self, text: str, source: Source, token: str = "") -> None:
        """One message from onnx (a checker error or one line of an inference report)."""
        match = TOKEN_RE.search(token or text)  # the checker names the node in its trailing context
        text = _TAGS_RE.sub("", text.split("==> Context:")[0]).strip()
        if not text or _CASCADE in text:
            return
        echo = _TENSOR_RE.search(text) if self.sized else None
        if echo is not None and echo.group(1) in self.sized:
            return
        index = int(match.group(1)) if match else self._by_value_name(text)
        if index is not None and index in self.flagged:
            return
        outer = match.group(0) if match else ""
        # The outer node is named once, up front; nested ones (subgraph nodes) keep their place.
        text = _OP_PREFIX_RE.sub(lambda m: self._prefix(m.group(0), outer), text)
        message = TOKEN_RE.sub(lambda m: self.skeleton.label_of(m.group(0)), text)
        message = re.sub(r"\s+", " ", message).strip(" :")
        hint = _hint(message)
        if index is not None and match is not None:
            message = f"{self.skeleton.label_of(match.group(0))}: {message}"
        self.add("error", message, index, hint, source)

    def _prefix(self, prefix: str, outer: str) -> str:
        token = TOKEN_RE.search(prefix)
        if token is None or token.group(0) == outer:
            return ""
        return f"{self.skeleton.label_of(token.group(0))}:"

    def _by_value_name(self, text: str) -> int | None:
        """The producer of the first quoted value name in `text` (SSA and ordering errors name values)."""
        quoted = set(re.findall(r"'([^']+)'", text))
        for index, node in enumerate(self.skeleton.nodes):
            if any(v.name in quoted for v in node.outputs):
                return index
        return None


def _run_checker(proto: onnx.ModelProto, collector: _Collector) -> None:
    try:
        onnx.checker.check_model(proto, full_check=False)
        return
    except Exception as exc:  # ValidationError, or anything a corrupt model provokes
        first = str(exc)
    # check_model stops at the first error; check nodes one by one to list them all. Nodes with subgraphs
    # need the outer scope, which check_node cannot be given: the whole-model error covers them.
    context = onnx.checker.C.CheckerContext()
    context.ir_version = proto.ir_version
    context.opset_imports = {o.domain: o.version for o in proto.opset_import}
    for node in proto.graph.node:
        if any(a.HasField("g") or a.graphs for a in node.attribute):
            continue
        try:
            onnx.checker.check_node(node, context, onnx.checker.C.LexicalScopeContext())
        except Exception as exc:
            collector.raw(str(exc), "checker", token=node.name)
    collector.raw(first, "checker")


def _run_inference(proto: onnx.ModelProto, collector: _Collector) -> onnx.ModelProto | None:
    """Strict inference; a node that fails is reported, dropped from a copy, and inference goes on without it.

    Some errors (arity, unsupported types) stop inference at once, which would hide every later problem and
    leave no inferred shape to label the edges.
    """
    work = proto
    for _ in range(_INFERENCE_ROUNDS):
        try:
            return onnx.shape_inference.infer_shapes(work, check_type=True, strict_mode=True, data_prop=True)
        except Exception as exc:
            text = str(exc).replace("[ShapeInferenceError] Inference error(s): ", "")
            for line in text.splitlines():
                collector.raw(line.strip(), "shape_inference")
            failed = {f"{TOKEN}{m.group(1)}" for m in TOKEN_RE.finditer(text)}
        if not failed:
            break
        if work is proto:
            work = onnx.ModelProto()
            work.CopyFrom(proto)
        kept = [node for node in work.graph.node if node.name not in failed]
        del work.graph.node[:]
        work.graph.node.extend(kept)
    try:  # the partial result still labels the edges that could be inferred
        return onnx.shape_inference.infer_shapes(work, data_prop=True)
    except Exception:
        return None


def check_model(
    model: ir.Model,
    ids: NodeIds = None,
    *,
    value_ids: Callable[[ir.Value], str | None] | None = None,
    structure: bool = True,
) -> CheckResult:
    """Structural checks, strict shape inference and onnx.checker; diagnostics bound to `ids(node)`.

    With `value_ids`, problems of a graph input or output are bound to its I/O node (`"i<value id>"` /
    `"o<value id>"`, as the read-model names them).
    """
    try:
        return _check(model, _id_lookup(ids), value_ids, structure)
    except Exception as exc:  # whatever a half-edited model provokes, the type check list shows it
        message = f"The check could not run: {type(exc).__name__}: {exc}"
        return CheckResult([Diagnostic("error", message, None, "", "checker")], {})


def _check(
    model: ir.Model,
    ids: Callable[[ir.Node], str | None],
    value_ids: Callable[[ir.Value], str | None] | None,
    structure: bool,
) -> CheckResult:
    skeleton = Skeleton(model)
    collector = _Collector(skeleton, ids)
    if structure:
        _structural_checks(model, collector)
        _data_sizes(model, collector)
    inferred_proto = _run_inference(skeleton.proto, collector)
    inferred = InferredTypes(inferred_proto)
    # Checked after inference so graph outputs declared without a shape get the inferred one.
    _unshaped_io(model, skeleton.proto, inferred, collector, value_ids)
    _run_checker(skeleton.proto, collector)
    order = {"error": 0, "warning": 1, "info": 2}
    diagnostics = sorted(collector.diagnostics, key=lambda d: order[d.severity])
    return CheckResult(diagnostics, inferred)


def _structural_checks(model: ir.Model, collector: _Collector) -> None:
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
                collector.add("error", message, index, _hint("single static assignment"), "structure")
                collector.flagged.add(index)
        if not functions or (node.domain, node.op_type) not in functions:
            schemas.check(node, index, collector)
        for sub in _subgraph_nodes(node) if index in with_subgraphs else ():  # If/Loop/Scan bodies
            if (sub.domain, sub.op_type) not in functions:
                schemas.check(sub, index, collector, f"{label(index)}/{sub.name or sub.op_type}")
        if not any(v.is_graph_output() or v.uses() for v in outputs):
            message = f"{label(index)}: none of its outputs is used or is a graph output."
            collector.add("warning", message, index, "Connect an output, or delete the node.", "structure")


def _data_sizes(model: ir.Model, collector: _Collector) -> None:
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

    def check(self, node: ir.Node, index: int, collector: _Collector, label: str = "") -> None:
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
        return "error", f"{label}: unknown op {op_type}.", _hint("No Op registered")
    # A custom domain: legitimate (TensorRT plugins, runtime extensions) but unchecked.
    message = f"{label}: custom op {domain}::{op_type} has no schema; it is not checked."
    return "warning", message, "Make sure the target runtime provides this op."
