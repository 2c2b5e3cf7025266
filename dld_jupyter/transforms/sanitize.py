"""Sanitize Graph (seed 000 "Batch Modifications"): Polygraphy's constant folding and cleanup, as `polygraphy
surgeon sanitize --fold-constants --cleanup --toposort` does it.

Cases handled, in order:
1. options, the seed's: `fold` (constant folding, on by default), `size_threshold` (bytes; a node producing a larger
   tensor is not folded; None: no limit), `passes` (None: until a pass folds nothing, Polygraphy's own rule);
2. folding runs Polygraphy's `FoldConstants` one pass at a time (the same loop it runs itself), so progress and
   cancel come between passes; a pass that fails ends the folding with the error in the log (Polygraphy's
   `error_ok`), keeping what the earlier passes did;
   (Constants first take their `value` form, `constant_forms`: GraphSurgeon made `value_float` float64);
3. then ONNX-GraphSurgeon removes what no output needs and sorts the nodes topologically (function bodies too, not
   the function list: see `_cleanup`); the model's metadata, doc string and version fields are carried over
   (GraphSurgeon's export drops them); the result passes the post-condition (`postcondition`: full checker and an
   onnxruntime load) or is refused, unless the original already failed the same check;
4. the status: nodes before and after, per pass counts, the nodes gone (none of their outputs is still computed),
   split into folded (a graph output depended on them: their values became constants) and removed (dead code),
   the log, and with `compare` the output comparison (equal within ATOL);
5. `path`: the sanitized model is written there (a `FilePlan`); none: the document's model is replaced as ONE
   undo step (an `EditPlan`).
"""

from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

import onnx

from dld_jupyter.document import Document
from dld_jupyter.transforms.batch_errors import BadOption, Unavailable
from dld_jupyter.transforms.compare import Comparison, compare_models
from dld_jupyter.transforms.constant_forms import canonical_constants
from dld_jupyter.transforms.model_source import model_proto
from dld_jupyter.transforms.model_swap import node_count, rewrite, rewritten_model_plan
from dld_jupyter.transforms.polygraphy_glue import captured, polygraphy_onnx, trimmed
from dld_jupyter.transforms.postcondition import Verdict, require_valid
from dld_jupyter.transforms.progress import CancelToken, Progress, step
from dld_jupyter.transforms.transform import Plan, Transform

ATOL = 1e-5


@dataclass(frozen=True)
class SanitizeOptions:
    fold: bool = True
    size_threshold: int | None = None
    passes: int | None = None

    def validate(self) -> None:
        what = Sanitize.label
        if self.size_threshold is not None and self.size_threshold < 0:
            raise BadOption(what, f"fold size threshold {self.size_threshold} is negative.", "Give bytes >= 0.")
        if self.passes is not None and self.passes < 1:
            raise BadOption(what, f"{self.passes} passes cannot fold anything.", "Give 1 or more, or leave empty.")


@dataclass(frozen=True)
class SanitizeResult:
    """The status of one sanitize (the dialog's summary; `log` is its expandable section)."""

    nodes_before: int
    nodes_after: int
    pass_counts: list[int]  # nodes after each folding pass
    folded: list[str]
    removed: list[str]
    comparison: Comparison | None
    log: list[str] = field(default_factory=list)
    verdict: Verdict | None = None  # the post-condition's (postcondition.require_valid)
    output: pathlib.Path | None = None

    @property
    def outputs_equal(self) -> bool | None:
        return None if self.comparison is None else self.comparison.within(ATOL)

    def to_dict(self) -> dict[str, Any]:
        return {
            "transform": Sanitize.name,
            "output": str(self.output) if self.output else None,
            "nodes_before": self.nodes_before,
            "nodes_after": self.nodes_after,
            "passes": len(self.pass_counts),
            "nodes_after_each_pass": self.pass_counts,
            "folded": self.folded,
            "removed": self.removed,
            "outputs_equal_within": ATOL,
            "outputs_equal": self.outputs_equal,
            "comparison": self.comparison.to_dict() if self.comparison else None,
            "verdict": self.verdict.to_dict() if self.verdict else None,
            "log": self.log,
        }


def _label(node: onnx.NodeProto, index: int) -> str:
    return node.name or f"{node.op_type} #{index}"


def _needed(model: onnx.ModelProto) -> set[int]:
    """Indices of the nodes some graph output depends on (the others are dead: removed, not folded)."""
    producer = {o: i for i, n in enumerate(model.graph.node) for o in n.output if o}
    stack = [producer[o.name] for o in model.graph.output if o.name in producer]
    needed: set[int] = set()
    while stack:
        index = stack.pop()
        if index not in needed:
            needed.add(index)
            stack.extend(producer[i] for i in model.graph.node[index].input if i in producer)
    return needed


def _fold(
    model: onnx.ModelProto,
    options: SanitizeOptions,
    log: list[str],
    progress: Progress | None,
    cancel: CancelToken | None,
) -> tuple[onnx.ModelProto, list[int]]:
    what = Sanitize.label
    backend = polygraphy_onnx(what)
    counts: list[int] = []
    while options.passes is None or len(counts) < options.passes:
        total = f" of {options.passes}" if options.passes else ""
        fraction = 0.1 + 0.5 * len(counts) / options.passes if options.passes else None
        step(progress, cancel, what, fraction, f"constant folding pass {len(counts) + 1}{total}")
        before = node_count(model)
        try:
            with captured(log):
                model = backend.FoldConstants(
                    model, num_passes=1, size_threshold=options.size_threshold, error_ok=False
                )()
        except Exception as error:  # onnxruntime / GraphSurgeon failures inside one pass
            log.append(f"constant folding pass {len(counts) + 1} failed, later passes skipped: {error}")
            break
        counts.append(node_count(model))
        if counts[-1] == before:
            break
    return model, counts


def _cleanup(model: onnx.ModelProto, original: onnx.ModelProto) -> onnx.ModelProto:
    try:
        import onnx_graphsurgeon as gs
    except ImportError as error:
        raise Unavailable(
            Sanitize.label, f"onnx-graphsurgeon cannot be imported ({error}).", "pip install onnx-graphsurgeon"
        ) from None
    graph = gs.import_onnx(model)
    # mode="nodes": GraphSurgeon 0.6's function sort (mode "full") walks the main graph's subgraphs again for every
    # function it visits (`get_used_funcs` iterates `self.subgraphs()`, not the function's), so a model with a local
    # function and any Loop/If recursed until RecursionError. Nodes (and function bodies) are still sorted; the
    # functions keep the file's order, which was valid.
    graph.cleanup().toposort(mode="nodes")
    cleaned: onnx.ModelProto = gs.export_onnx(graph, do_type_check=False)
    cleaned.ir_version = original.ir_version
    cleaned.producer_name, cleaned.producer_version = original.producer_name, original.producer_version
    cleaned.domain, cleaned.model_version, cleaned.doc_string = (
        original.domain,
        original.model_version,
        original.doc_string,
    )
    del cleaned.metadata_props[:]
    cleaned.metadata_props.extend(original.metadata_props)
    del cleaned.opset_import[:]
    cleaned.opset_import.extend(original.opset_import)
    if not cleaned.functions:
        cleaned.functions.extend(original.functions)
    # GraphSurgeon carries no node metadata: the exporter's scopes (pkg.torch.onnx.name_scopes), which group a
    # torch.export model on the canvas, go back on the nodes it kept, by name (a sanitized BERT opened flat).
    kept = {n.name: n.metadata_props for n in original.graph.node if n.name and n.metadata_props}
    for node in cleaned.graph.node:
        props = kept.get(node.name)
        if props is not None and not node.metadata_props:
            node.metadata_props.extend(props)
    return cleaned


def sanitize_proto(
    original: onnx.ModelProto,
    options: SanitizeOptions = SanitizeOptions(),
    compare: bool = True,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> tuple[onnx.ModelProto, SanitizeResult]:
    """The sanitized copy of `original` and its status (cases 1-4); `original` is not changed."""
    what = Sanitize.label
    options.validate()
    log: list[str] = []
    model = onnx.ModelProto()
    model.CopyFrom(original)
    canonical_constants(model)  # GraphSurgeon would lower value_float(s) Constants to float64
    counts: list[int] = []
    if options.fold:
        model, counts = _fold(model, options, log, progress, cancel)
    step(progress, cancel, what, 0.65, "removing unused nodes, sorting topologically")
    model = _cleanup(model, original)
    produced = {o for n in model.graph.node if n.op_type != "Constant" for o in n.output}
    needed = _needed(original)
    gone = [(_label(n, i), i) for i, n in enumerate(original.graph.node) if not produced.intersection(n.output)]
    folded = [label for label, i in gone if i in needed]
    removed = [label for label, i in gone if i not in needed]
    step(progress, cancel, what, 0.68, "verifying the sanitized model (full check, onnxruntime load)")
    verdict = require_valid(what, model, lambda: original)
    comparison = None
    if compare:
        step(progress, cancel, what, 0.7, "comparing outputs with onnxruntime")
        comparison = compare_models(original, model, seed, progress, cancel)
    before, after = node_count(original), node_count(model)
    summary = [
        f"nodes: {before:,} before, {after:,} after ({before - after:,} fewer)",
        f"constant folding: {len(counts)} pass(es), nodes after each: {counts}"
        if options.fold
        else "constant folding: off",
        f"folded: {len(folded):,} nodes; removed as unused: {len(removed):,} nodes",
        *verdict.lines(),
    ]
    if comparison is not None:
        equal = "equal" if comparison.within(ATOL) else "NOT equal"
        summary.append(f"outputs {equal} within {ATOL:g} (largest difference {comparison.max_abs:.3g})")
        summary.extend(comparison.lines())
    details = [f"folded: {n}" for n in folded] + [f"removed: {n}" for n in removed]
    step(progress, cancel, what, 1.0, "done")
    lines = trimmed(summary + log + details)
    return model, SanitizeResult(before, after, counts, folded, removed, comparison, lines, verdict)


def _options(args: dict[str, Any]) -> SanitizeOptions:
    threshold, passes = args.get("size_threshold"), args.get("passes")
    return SanitizeOptions(
        bool(args.get("fold", True)),
        None if threshold is None else int(threshold),
        None if passes is None else int(passes),
    )


class Sanitize(Transform):
    name: ClassVar[str] = "sanitize"
    label: ClassVar[str] = "Sanitize graph"

    def plan(self, doc: Document, **args: Any) -> Plan[SanitizeResult]:
        """`fold`, `size_threshold`, `passes` (SanitizeOptions); `path`; `compare`, `seed`, `progress`, `cancel`."""
        sanitized, result = sanitize_proto(
            model_proto(doc),
            _options(args),
            bool(args.get("compare", True)),
            int(args.get("seed", 0)),
            args.get("progress"),
            args.get("cancel"),
        )
        return rewritten_model_plan(self.label, sanitized, result, args.get("path"))


def sanitize(
    model: Document | str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    fold: bool = True,
    size_threshold: int | None = None,
    passes: int | None = None,
    compare: bool = True,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> SanitizeResult:
    """Sanitize `model` (a Document or a file); `output`: the new file, else the document is edited (one undo step)."""
    result: SanitizeResult = rewrite(
        Sanitize(), model, output, "model_sanitized.onnx", fold=fold, size_threshold=size_threshold, passes=passes,
        compare=compare, seed=seed, progress=progress, cancel=cancel,
    )
    return result
