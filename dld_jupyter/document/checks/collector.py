"""What turns onnx's raw messages and our own findings into Diagnostics bound to node ids: the node is found by the
token the weightless skeleton gave it (skeleton.py), its name restored, echoes of an error already reported dropped,
and a hint added."""

from __future__ import annotations

import re
from collections.abc import Callable

import onnx_ir as ir

from dld_jupyter.document.checks.diagnostics import Diagnostic, Severity, Source
from dld_jupyter.document.checks.skeleton import TOKEN_RE, Skeleton

_TAGS_RE = re.compile(r"\[(?:ShapeInferenceError|TypeInferenceError|ValidationError)\]\s*")
_OP_PREFIX_RE = re.compile(r"\(op_type:[^,]*, node name: [^)]*\):?|Node ?\([^)]*\)('s)?( with schema\([^)]*\))?")
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


def hint(message: str) -> str:
    return next((hint for key, hint in _HINTS if key in message), "")


class Collector:
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
        hint_text = hint(message)
        if index is not None and match is not None:
            message = f"{self.skeleton.label_of(match.group(0))}: {message}"
        self.add("error", message, index, hint_text, source)

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
