"""Model checks for the type check list: onnx.checker, strict shape inference, structure, Polygraphy lint.

Everything found becomes a `Diagnostic` bound to a node id; a broken model never raises. The ONNX checks
run on a weightless skeleton (large initializers become typed graph inputs), so their cost follows the node
count, not the weights: serializing 440 MB of BERT weights is what made a plain `check_model` take seconds.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Literal

import onnx
import onnx.checker
import onnx.shape_inference
import onnx_ir as ir

from dld_jupyter.document.lint import LintRun, start_polygraphy_lint
from dld_jupyter.document.schema import registry

__all__ = [
    "AUTO_CHECK_MAX_NODES",
    "CheckResult",
    "Diagnostic",
    "LintRun",
    "check_model",
    "should_check_automatically",
    "start_polygraphy_lint",
]

Severity = Literal["error", "warning", "info"]
Source = Literal["checker", "shape_inference", "structure", "polygraphy"]
NodeIds = Callable[[ir.Node], "str | None"] | Mapping[ir.Node, str] | None
Inferred = dict[str, tuple[str, "list[int | str] | None"]]

# Above this many nodes the editor checks only on request (seed 000: "automatic type checking is disabled").
AUTO_CHECK_MAX_NODES = int(os.environ.get("DLD_AUTO_CHECK_MAX_NODES", "20000"))
# Initializers up to this many elements keep their data in the skeleton: shape tensors, axes, scales feed
# data propagation (Reshape, Slice...), weights never do.
SKELETON_MAX_ELEMENTS = 1024

_TOKEN = "dld_node_"
_TOKEN_RE = re.compile(r"dld_node_(\d+)(?:_(\d+))?")
_STANDARD_DOMAINS = frozenset({"", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"})
_TAGS_RE = re.compile(r"\[(?:ShapeInferenceError|TypeInferenceError|ValidationError)\]\s*")
_OP_PREFIX_RE = re.compile(r"\(op_type:[^,]*, node name: [^)]*\):?|Node ?\([^)]*\)('s)?( with schema\([^)]*\))?")
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


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One line of the type check list; `node_id` is what a double-click focuses."""

    severity: Severity
    message: str
    node_id: str | None = None
    fix_hint: str = ""
    source: Source = "checker"


@dataclasses.dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    inferred: Inferred  # value name -> (dtype such as "FLOAT", shape with ints/symbols/"?" or None)

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


class _Skeleton:
    """The model as a ModelProto without weights; nodes renamed to tokens that trace errors back to them."""

    def __init__(self, model: ir.Model) -> None:
        self.nodes: list[ir.Node] = list(model.graph)
        self.labels: dict[str, str] = {}  # token -> what the user knows the node by
        self.proto = onnx.ModelProto(ir_version=model.ir_version)
        for domain, version in model.opset_imports.items():
            self.proto.opset_import.add(domain=domain, version=version)
        for function in model.functions.values():
            ir.serde.serialize_function_into(self.proto.functions.add(), function)
        self._graph(model.graph)

    def label(self, index: int) -> str:
        node = self.nodes[index]
        return node.name or f"{node.op_type} #{index}"

    def _graph(self, graph: ir.Graph) -> None:
        proto = self.proto.graph
        proto.name = graph.name or "main"
        declared = {value.name for value in graph.inputs}
        for value in graph.inputs:
            ir.serde.serialize_value_into(proto.input.add(), value)
        for value in graph.initializers.values():
            if self._keep_data(value) and self._tensor_into(proto, value):
                continue
            if value.name not in declared:  # weightless: a typed input carries what inference needs
                _typed_input(proto.input.add(), value)
        for index, node in enumerate(self.nodes):
            node_proto = proto.node.add()
            ir.serde.serialize_node_into(node_proto, node, model_ir_version=self.proto.ir_version)
            self._rename(node_proto, index)
            if node.domain not in _STANDARD_DOMAINS:  # no onnx inference for these: keep what the file says
                for value in node.outputs:
                    if value.type is not None and not value.is_graph_output():
                        ir.serde.serialize_value_into(proto.value_info.add(), value)
        for value in graph.outputs:
            ir.serde.serialize_value_into(proto.output.add(), value)

    @staticmethod
    def _keep_data(value: ir.Value) -> bool:
        tensor = value.const_value
        return tensor is not None and tensor.size <= SKELETON_MAX_ELEMENTS

    @staticmethod
    def _tensor_into(proto: onnx.GraphProto, value: ir.Value) -> bool:
        assert value.const_value is not None
        try:  # a small external tensor whose file is gone stays weightless; the loader reports the file
            tensor_proto = ir.serde.serialize_tensor(value.const_value)
        except Exception:
            return False
        tensor_proto.name = value.name or ""
        proto.initializer.append(tensor_proto)
        return True

    def _rename(self, node_proto: onnx.NodeProto, index: int) -> None:
        token = f"{_TOKEN}{index}"
        self.labels[token] = self.label(index)
        node_proto.name = token
        inner = 0
        stack = [g for a in node_proto.attribute for g in [*([a.g] if a.HasField("g") else []), *a.graphs]]
        while stack:
            graph = stack.pop()
            for sub in graph.node:
                inner += 1
                sub_token = f"{token}_{inner}"
                self.labels[sub_token] = f"{self.labels[token]}/{sub.name or sub.op_type}"
                sub.name = sub_token
                stack.extend(g for a in sub.attribute for g in [*([a.g] if a.HasField("g") else []), *a.graphs])


def _typed_input(info: onnx.ValueInfoProto, value: ir.Value) -> None:
    tensor = value.const_value
    info.name = value.name or ""
    tensor_type = info.type.tensor_type
    dtype = tensor.dtype if tensor is not None else (value.dtype or ir.DataType.UNDEFINED)
    tensor_type.elem_type = int(dtype)
    shape = tensor.shape if tensor is not None else value.shape
    tensor_type.shape.SetInParent()
    for dim in shape or ():
        if isinstance(dim, int):
            tensor_type.shape.dim.add().dim_value = dim
        else:
            tensor_type.shape.dim.add().dim_param = str(dim.value or "")


def _type_of(type_proto: onnx.TypeProto) -> tuple[str, list[int | str] | None] | None:
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        tensor = type_proto.tensor_type
        if not tensor.elem_type:
            return None
        dtype = onnx.TensorProto.DataType.Name(tensor.elem_type)
        if not tensor.HasField("shape"):
            return dtype, None
        dims: list[int | str] = [
            d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tensor.shape.dim
        ]
        return dtype, dims
    if kind == "sequence_type":
        element = _type_of(type_proto.sequence_type.elem_type)
        return (f"seq({element[0]})" if element else "seq"), None
    return None


def _inferred(proto: onnx.ModelProto) -> Inferred:
    found: Inferred = {}
    graph = proto.graph
    for info in [*graph.input, *graph.value_info, *graph.output]:
        typed = _type_of(info.type)
        if typed is not None and info.name:
            found[info.name] = typed
    return found


class _Collector:
    """Turns raw messages into diagnostics: finds the node by its token, restores its name, adds a hint."""

    def __init__(self, skeleton: _Skeleton, ids: Callable[[ir.Node], str | None], model: ir.Model) -> None:
        self.skeleton = skeleton
        self.ids = ids
        self.diagnostics: list[Diagnostic] = []
        self.flagged: set[int] = set()  # nodes with a structural error: checker echoes of it are noise
        self._seen: set[tuple[int | None, str]] = set()
        self._producers = {v.name: n for n in model.graph for v in n.outputs if v.name}

    def add(self, severity: Severity, message: str, index: int | None, hint: str, source: Source) -> None:
        key = (index, message)
        if key in self._seen:
            return
        self._seen.add(key)
        node_id = self.ids(self.skeleton.nodes[index]) if index is not None else None
        self.diagnostics.append(Diagnostic(severity, message, node_id, hint, source))

    def raw(self, text: str, source: Source, token: str = "") -> None:
        """One message from onnx (a checker error or one line of an inference report)."""
        match = _TOKEN_RE.search(token or text)  # the checker names the node in its trailing context
        text = _TAGS_RE.sub("", text.split("==> Context:")[0]).strip()
        if not text or _CASCADE in text:
            return
        index = int(match.group(1)) if match else self._by_value_name(text)
        if index is not None and index in self.flagged:
            return
        text = _OP_PREFIX_RE.sub("", text)  # the label below names the node once, the way users know it
        message = _TOKEN_RE.sub(lambda m: self.skeleton.labels.get(m.group(0), m.group(0)), text)
        message = re.sub(r"\s+", " ", message).strip(" :")
        hint = _hint(message)
        if index is not None and match is not None:
            message = f"{self.skeleton.labels.get(match.group(0), '?')}: {message}"
        self.add("error", message, index, hint, source)

    def _by_value_name(self, text: str) -> int | None:
        for name in re.findall(r"'([^']+)'", text):
            node = self._producers.get(name)
            if node is not None:
                return self.skeleton.nodes.index(node)
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
    try:
        return onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True, data_prop=True)
    except Exception as exc:
        text = str(exc).replace("[ShapeInferenceError] Inference error(s): ", "")
        for line in text.splitlines():
            collector.raw(line.strip(), "shape_inference")
    try:  # the partial result still labels the edges that could be inferred
        return onnx.shape_inference.infer_shapes(proto, data_prop=True)
    except Exception:
        return None


def check_model(model: ir.Model, ids: NodeIds = None, *, structure: bool = True) -> CheckResult:
    """Structural checks, strict shape inference and onnx.checker; diagnostics bound to `ids(node)`."""
    lookup = _id_lookup(ids)
    try:
        skeleton = _Skeleton(model)
    except Exception as exc:  # serde refuses something: say so instead of failing the caller
        return CheckResult([Diagnostic("error", f"Cannot serialize the model: {exc}", None, "", "checker")], {})
    collector = _Collector(skeleton, lookup, model)
    if structure:
        _structural_checks(model, collector)
    inferred_proto = _run_inference(skeleton.proto, collector)
    # Checked after inference so graph outputs declared without a shape get the inferred one.
    _run_checker(inferred_proto if inferred_proto is not None else skeleton.proto, collector)
    inferred = _inferred(inferred_proto) if inferred_proto is not None else {}
    order = {"error": 0, "warning": 1, "info": 2}
    diagnostics = sorted(collector.diagnostics, key=lambda d: order[d.severity])
    return CheckResult(diagnostics, inferred)


def _structural_checks(model: ir.Model, collector: _Collector) -> None:
    """Names, connections, dangling nodes and unknown ops of the main graph."""
    nodes = collector.skeleton.nodes
    node_names = Counter(node.name for node in nodes if node.name)
    value_names = Counter(v.name for node in nodes for v in node.outputs if v.name)
    value_names.update(v.name for v in model.graph.inputs if v.name)
    functions = {(f.domain, f.name) for f in model.functions.values()}
    for index, node in enumerate(nodes):
        label = collector.skeleton.label(index)
        if not node.name:
            collector.add("warning", f"{label} has no name.", index, _RENAME_HINT, "structure")
        elif node_names[node.name] > 1:
            message = f"Node name '{node.name}' is used by {node_names[node.name]} nodes."
            collector.add("error", message, index, _RENAME_HINT, "structure")
        for value in node.outputs:
            if value.name and value_names[value.name] > 1:
                message = f"{label}: value name '{value.name}' is produced more than once."
                collector.add("error", message, index, _hint("single static assignment"), "structure")
                collector.flagged.add(index)
        if (node.domain, node.op_type) not in functions:
            _check_schema(model, node, index, label, collector)
        if not any(v.uses() or v.is_graph_output() for v in node.outputs):
            message = f"{label}: none of its outputs is used or is a graph output."
            collector.add("warning", message, index, "Connect an output, or delete the node.", "structure")
    for value in model.graph.outputs:
        if value.shape is None and value.producer() is not None:
            message = f"Graph output '{value.name}' declares no shape; onnx.checker requires one on save."
            collector.add("info", message, None, "Run a check: the inferred shape is used.", "structure")


_RENAME_HINT = "Rename the node: names must be unique, valid C90 identifiers."


def _check_schema(model: ir.Model, node: ir.Node, index: int, label: str, collector: _Collector) -> None:
    domain = "" if node.domain == "ai.onnx" else node.domain
    version = model.opset_imports.get(domain, model.opset_imports.get(node.domain))
    if version is None:
        message = f"{label}: the model imports no opset for domain '{node.domain}'."
        collector.add("error", message, index, f"Add an opset import for '{node.domain}'.", "structure")
        collector.flagged.add(index)
        return
    schema = registry.get(node.op_type, domain, version)
    if schema is None:
        versions = registry.versions(node.op_type, domain)
        if versions:
            message = f"{label}: {node.op_type} does not exist at opset {version} of '{domain or 'ai.onnx'}'."
            hint = f"Raise the opset to {versions[0]} or more, or use another op."
            severity: Severity = "error"
        elif domain in _STANDARD_DOMAINS or domain in registry.domains():
            message, hint, severity = (
                f"{label}: unknown op {node.op_type}.",
                _hint("No Op registered"),
                "error",
            )
        else:  # a custom domain: legitimate (TensorRT plugins, runtime extensions) but unchecked
            message = f"{label}: custom op {domain}::{node.op_type} has no schema; it is not checked."
            hint, severity = "Make sure the target runtime provides this op.", "warning"
        collector.add(severity, message, index, hint, "structure")
        collector.flagged.add(index)
        return
    missing = [
        f"{i} ({param.name})"
        for i in range(max(len(node.inputs), len(schema.inputs)))
        if (param := schema.input_param(i)) is not None
        and not param.optional
        and (i >= len(node.inputs) or node.inputs[i] is None)
        and not (param.variadic and i > len(schema.inputs) - 1)
    ]
    if missing:
        message = f"{label}: These mandatory inputs are not connected: {', '.join(missing)}"
        collector.add("error", message, index, "Connect each listed input terminal.", "structure")
        collector.flagged.add(index)
