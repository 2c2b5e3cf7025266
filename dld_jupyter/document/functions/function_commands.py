"""Commands on the model's local functions: replace the function table (add, remove, redefine) and make sure the
model imports a domain. Every instance of a function whose definition changed is reported changed, so each glyph
on the canvas redraws (terminals, f(x) badge)."""

from __future__ import annotations

from dataclasses import dataclass

import onnx_ir as ir

from dld_jupyter.document.edits.commands import Command, Context
from dld_jupyter.document.functions.function_model import FunctionKey, instances_of


@dataclass(frozen=True)
class SetFunctions:
    """Replace ``model.functions`` with ``functions``, in order; the inverse puts the very same objects back."""

    functions: tuple[tuple[FunctionKey, ir.Function], ...]

    def apply(self, ctx: Context) -> Command:
        table = ctx.model.functions
        old = tuple(table.items())
        before, after = dict(old), dict(self.functions)
        table.clear()
        table.update(self.functions)
        for key in before.keys() | after.keys():
            if before.get(key) is not after.get(key):
                for node in instances_of(ctx.graph, key):
                    ctx.node_changed(node)
        ctx.changes.model_info = True
        return SetFunctions(old)


def with_function(ctx: Context, key: FunctionKey, function: ir.Function | None) -> SetFunctions:
    """The command that puts ``function`` at ``key`` (in place when it exists, else last), or removes it (None)."""
    items = [(k, f) for k, f in ctx.model.functions.items()]
    if function is None:
        return SetFunctions(tuple((k, f) for k, f in items if k != key))
    if any(k == key for k, _ in items):
        return SetFunctions(tuple((k, function if k == key else f) for k, f in items))
    return SetFunctions((*items, (key, function)))


@dataclass(frozen=True)
class SetOpsetImport:
    """Import ``domain`` at ``version`` (None: drop the import)."""

    domain: str
    version: int | None

    def apply(self, ctx: Context) -> Command:
        imports = ctx.model.opset_imports
        old = imports.get(self.domain)
        if self.version is None:
            imports.pop(self.domain, None)
        else:
            imports[self.domain] = self.version
        ctx.changes.model_info = True
        return SetOpsetImport(self.domain, old)


def import_domain(ctx: Context, domain: str) -> SetOpsetImport | None:
    """The command importing a custom ``domain`` at version 1 when the model does not import it yet."""
    return None if domain in ctx.model.opset_imports else SetOpsetImport(domain, 1)
