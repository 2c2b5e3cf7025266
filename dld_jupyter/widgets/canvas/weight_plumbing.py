"""Weight plumbing: nodes that only reshape, cast or alias weights, drawn like constants (not as structure).

PyTorch exports shared or folded weights as `Identity(initializer)`, and quantized or converted weights as
`Cast`/`Reshape`/`Transpose`/`DequantizeLinear` of an initializer or Constant. Drawn as nodes, torchvision's
ResNet-18 opened with a row of 16 Identity nodes above the graph and edges crossing it; ShuffleNet with 51. A node is
plumbing when its op only rearranges data and every input it has comes from an initializer, a Constant, or other
plumbing: its output is a constant the consumer could have read directly. The canvas hides plumbing with "hide
constants" and shows a mini constant on the terminal it feeds; a double-click on that terminal draws the node.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

PLUMBING_OPS = frozenset({
    "Identity", "Cast", "CastLike", "Reshape", "Transpose", "DequantizeLinear", "Unsqueeze", "Squeeze", "Flatten",
    "Expand", "Concat", "Slice", "Gather", "Split", "Constant", "ConstantOfShape", "Tile",
})

# (node id, op type, domain, input value names, output value names) in topological order
NodeRow = tuple[str, str, str, Iterable[str], Iterable[str]]


def plumbing_nodes(
    rows: Iterable[NodeRow], is_constant_value: Callable[[str], bool], graph_outputs: Collection[str] = ()
) -> set[str]:
    """Ids of the plumbing nodes among `rows` (topological order: producers first). Constant nodes are included.

    `is_constant_value(name)` tells whether a value name is an initializer (weights): values made by plumbing are
    constant too. A plumbing op needs at least one input (ConstantOfShape of a graph input's shape is not one), and
    a node that makes a graph output stays drawn (its output node needs a source). Rows of other ops may leave
    their inputs empty (callers skip reading them: 50,000 nodes).
    """
    made: set[str] = set()
    found: set[str] = set()
    for node_id, op_type, domain, inputs, outputs in rows:
        if domain not in ("", "ai.onnx") or op_type not in PLUMBING_OPS:
            continue
        names = [n for n in inputs if n]
        if op_type != "Constant" and (not names or not all(n in made or is_constant_value(n) for n in names)):
            continue
        outs = [n for n in outputs if n]
        if any(n in graph_outputs for n in outs):
            continue
        found.add(node_id)
        made.update(outs)
    return found
