"""TensorRT layer names -> the ONNX names they come from.

TensorRT names an engine layer after the network layers it fused, and the ONNX parser names network layers
after ONNX nodes. Cases handled, in the order they are tried:

1. `Reformatting CopyNode for Input Tensor 0 to X` / `... Output Tensor 0 to X` / `Reformatted Input Tensor 0
   to X` / `X input reformatter 0`: an inserted reformat (overhead) that serves layer X; its sources are X's
   sources, so clicking it selects the ONNX node(s) whose input or output it converts.
2. `[ShapeHostToDeviceCopy 0]`, `[HostToDeviceCopy 0]`, any name wholly in brackets: a copy (overhead), no
   source.
3. Fusions split at the top level (brackets respected): `A + B + C` (vertical) and `A || B` (horizontal).
4. Each part: `PWN(A, B)` and other capitalised wrappers, nested (`PWN(PWN(A), B + C)`);
   `{ForeignNode[A...B]}` (Myelin): the range of ONNX nodes from A to B (expanded with the model, see
   `OnnxIndex.resolve_range`); `(Unnamed Layer* 7) [Shuffle]` and `__myl_*` kernels: no ONNX source; a
   trailing `:0` tensor suffix is removed; `node_of_T` (the parser's name of an unnamed ONNX node) is the node that
   writes tensor T, named as the designer names it.

With a model (`OnnxIndex`) candidates are kept only when they name an ONNX node, or an output tensor (mapped
to its producer), trying the name as given, then without a trailing `_N` that TensorRT or exporters append.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dld_jupyter.formats.node_names import names_for_unnamed, proto_tree

if TYPE_CHECKING:
    import onnx

_REFORMAT_PATTERNS = (
    re.compile(r"^Reformatting CopyNode for (?:Input|Output) Tensor \d+ to (?P<target>.+)$"),
    re.compile(r"^Reformatted (?:Input|Output) Tensor \d+ to (?P<target>.+)$"),
    re.compile(r"^(?P<target>.+) (?:input|output) reformatter \d+$"),
)
_BRACKETED = re.compile(r"^\[(?P<inner>[^\[\]]*)\]$")
_FOREIGN = re.compile(r"^\{ForeignNode\[(?P<inner>.*)\]\}$")
_WRAPPER = re.compile(r"^(?P<fn>[A-Z][A-Za-z0-9_]*)\((?P<inner>.*)\)$")
_TENSOR_SUFFIX = re.compile(r":\d+$")
_INDEX_SUFFIX = re.compile(r"_+\d+$")
PARSER_UNNAMED = "node_of_"  # onnx-tensorrt's getNodeName: an unnamed node is "node_of_<its first output>"
_OPEN, _CLOSE = "([{", ")]}"


@dataclass
class ParsedName:
    """What a TensorRT layer name says about its origin."""

    kind: str = "compute"  # "compute" | "reformat" | "copy"
    sources: list[str] = field(default_factory=list)  # candidate ONNX node or tensor names, first-seen order
    ranges: list[tuple[str, str]] = field(default_factory=list)  # {ForeignNode[A...B]} first and last names
    target: str = ""  # for a reformat: the name of the layer it serves

    @property
    def overhead(self) -> bool:
        return self.kind != "compute"


def split_top_level(text: str, separators: tuple[str, ...]) -> list[str]:
    """Split at any of `separators` found outside (), [] and {} (which TensorRT nests)."""
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
        elif depth == 0:
            sep = next((s for s in separators if text.startswith(s, i)), None)
            if sep is not None:
                parts.append(text[start:i])
                i += len(sep)
                start = i
                continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _encloses(text: str, open_at: int) -> bool:
    """True when the bracket at `open_at` closes at the very end of `text`."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] in _OPEN:
            depth += 1
        elif text[i] in _CLOSE:
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False


def _parse_part(part: str, out: ParsedName) -> None:
    part = part.strip()
    if not part or part.startswith("(Unnamed Layer") or part.startswith("__myl"):
        return  # layers TensorRT made itself, no ONNX node behind them
    foreign = _FOREIGN.match(part)
    if foreign:
        ends = [e.strip() for e in foreign["inner"].split("...")]
        if len(ends) == 2 and all(ends):
            out.ranges.append((_strip_tensor(ends[0]), _strip_tensor(ends[1])))
        for end in ends:
            _parse_fusion(end, out)
        return
    wrapper = _WRAPPER.match(part)
    if wrapper and _encloses(part, len(wrapper["fn"])):
        _parse_fusion(wrapper["inner"], out, (" + ", " || ", ", "))
        return
    if _BRACKETED.match(part):
        return
    _add(out, _strip_tensor(part))


def _parse_fusion(text: str, out: ParsedName, separators: tuple[str, ...] = (" + ", " || ")) -> None:
    parts = split_top_level(text, separators)
    if len(parts) == 1 and parts[0] == text.strip():
        _parse_part(parts[0], out)
        return
    for part in parts:
        _parse_fusion(part, out)


def _strip_tensor(name: str) -> str:
    return _TENSOR_SUFFIX.sub("", name.strip())


def _add(out: ParsedName, name: str) -> None:
    if name and name not in out.sources:
        out.sources.append(name)


def parse_layer_name(name: str) -> ParsedName:
    """Parse one TensorRT layer name (see the module docstring for the cases)."""
    text = name.strip()
    for pattern in _REFORMAT_PATTERNS:
        match = pattern.match(text)
        if match:
            inner = parse_layer_name(match["target"])
            return ParsedName("reformat", inner.sources, inner.ranges, match["target"].strip())
    if _BRACKETED.match(text):
        return ParsedName("copy")
    out = ParsedName()
    _parse_fusion(text, out)
    return out


_METADATA_NODE = re.compile(r"\[ONNX Layer: (?P<name>[^\]]*)\]")


def metadata_sources(metadata: str) -> list[str]:
    """ONNX node names from a TensorRT 10 layer `Metadata` string ("[ONNX Layer: /conv1/Conv]\\x1f[...]")."""
    names: list[str] = []
    for match in _METADATA_NODE.finditer(metadata):
        if match["name"] and match["name"] not in names:
            names.append(match["name"])
    return names


class OnnxIndex:
    """ONNX node and tensor names of one model (main graph), to keep only real sources."""

    def __init__(self, node_names: list[str], outputs: dict[str, str]) -> None:
        self.order = [n for n in node_names if n]
        self.position = {n: i for i, n in enumerate(self.order)}
        self.producer = outputs  # output tensor name -> producing node name

    @classmethod
    def from_model(cls, model: onnx.ModelProto) -> OnnxIndex:
        """From an `onnx.ModelProto` (onnx is imported for the type only: this module runs without it). Unnamed
        nodes have the names opening the model gives them (formats/node_names.py), as the designer shows them."""
        graph = model.graph
        generated = {index: name for _at, (_node, index), name in names_for_unnamed(proto_tree(graph.node, True))}
        names: list[str] = [node.name or generated.get(i, "") for i, node in enumerate(graph.node)]
        outputs = {out: names[i] for i, node in enumerate(graph.node) for out in node.output if out and names[i]}
        return cls(names, outputs)

    def resolve(self, candidate: str) -> str | None:
        """The ONNX node `candidate` stands for, or None."""
        if candidate.startswith(PARSER_UNNAMED):  # the ONNX parser's name of an unnamed node: its first output's
            candidate = candidate.removeprefix(PARSER_UNNAMED)
        for name in (candidate, _strip_tensor(candidate), _INDEX_SUFFIX.sub("", candidate)):
            if name in self.position:
                return name
            for tensor in (name, name + ":0"):  # TensorFlow-exported tensors are named "<op>:0"
                if tensor in self.producer:
                    return self.producer[tensor]
        return None

    def resolve_range(self, first: str, last: str) -> list[str]:
        """Nodes from `first` to `last` in graph (topological) order, both included; [] if one is unknown."""
        a, b = self.resolve(first), self.resolve(last)
        if a is None or b is None:
            return []
        lo, hi = sorted((self.position[a], self.position[b]))
        return self.order[lo : hi + 1]

    def link(self, parsed: ParsedName) -> list[str]:
        """The ONNX nodes of a parsed name that exist in the model, ranges expanded, first-seen order."""
        found: list[str] = []
        for first, last in parsed.ranges:
            found.extend(self.resolve_range(first, last))
        for candidate in parsed.sources:
            node = self.resolve(candidate)
            if node is not None:
                found.append(node)
        return list(dict.fromkeys(found))
