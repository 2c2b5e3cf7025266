"""The canvas's quick-add list (Ctrl+Space): every operator of the model's opsets, and its local functions, which
are operators too (seed 000 "Local Functions": instantiated like any other operator), and the Analysis category
(analysis layers, seed 001 §4: chosen over a node while analysing, one goes after that node; never a model node)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from dld_jupyter.activities.analysis.layers import CATEGORY, PALETTE_DOMAIN, SUMMARIES
from dld_jupyter.widgets.canvas.protocol import PaletteOp

FunctionKey = tuple[str, str, str]  # (domain, name, overload), as onnx_ir keys model.functions


def palette_ops(imports: Mapping[str, int], functions: Iterable[FunctionKey] = ()) -> list[PaletteOp]:
    from dld_jupyter.document.operators.schema import registry

    ops: list[PaletteOp] = [
        {
            "name": s.name,
            "domain": s.domain,
            "category": s.category,
            "summary": (s.doc.strip().split("\n", 1)[0] if s.doc else "")[:200],
        }
        for s in registry.ops_for(dict(imports))
    ]
    ops.extend(
        {"name": name, "domain": domain, "category": "local function", "summary": f"Local function {domain}::{name}"}
        for domain, name, _ in functions
    )
    ops.extend(
        {"name": kind, "domain": PALETTE_DOMAIN, "category": CATEGORY, "summary": f"Analysis layer: {summary}"}
        for kind, summary in SUMMARIES.items()
    )
    return ops
