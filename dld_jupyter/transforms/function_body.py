"""What the function transforms share (besides document/functions/function_body.py): fresh unique names, and the opsets
a body needs in the model that receives it."""

from __future__ import annotations

import onnx_ir as ir

from dld_jupyter.document import DocumentError
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.functions.function_commands import SetOpsetImport
from dld_jupyter.document.model.names import NameIndex, to_identifier


class FreshNames:
    """Unique node and value names in a graph for nodes about to be added (the graph's names and earlier picks)."""

    def __init__(self, names: NameIndex) -> None:
        self._names = names
        self._nodes: set[str] = set()
        self._values: set[str] = set()

    def node(self, stem: str) -> str:
        base = to_identifier(stem)
        name, i = base, 0
        while self._names.node_count(name) or name in self._nodes:
            name, i = f"{base}_{i}", i + 1
        self._nodes.add(name)
        return name

    def value(self, stem: str) -> str:
        name = self._names.unique_value_name(stem, self._values)
        self._values.add(name)
        return name


def body_imports(ctx: Context, function: ir.Function, what: str) -> list[SetOpsetImport]:
    """Imports the model needs to hold the body's nodes: refused when a domain's version differs."""
    needed: list[SetOpsetImport] = []
    domains = {node.domain for node in function}
    for domain in sorted(domains):
        have = ctx.model.opset_imports.get(domain)
        want = function.opset_imports.get(domain, 1)
        if have is None:
            needed.append(SetOpsetImport(domain, want))
        elif have != want:
            raise DocumentError(
                what,
                f"the body uses {domain or 'ai.onnx'} opset {want}, the model imports {have}.",
                "Convert the model or the function to the same opset first.",
            )
    return needed
