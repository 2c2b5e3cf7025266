"""Benchmark of the document's schema registry, checks and layout; prints a table.

Run: python benchmarks/checks_layout_bench.py [--quick]

Targets (issue 3): layout of 20,000 nodes <= 1 s; checker + strict shape inference of a BERT-base-sized graph
<= 1 s (thanks to the weightless skeleton; the with-weights time is measured in the same run as the baseline).
Each figure is the median of a few repetitions, so one busy moment on a shared machine does not decide it.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import onnx
import onnx.checker
import onnx.shape_inference
import onnx_ir as ir

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dld_jupyter.document.checks.checks import check_model
from dld_jupyter.document.checks.skeleton import Skeleton
from dld_jupyter.document.layout.layered_layout import layout_groups, sugiyama_layout
from dld_jupyter.document.operators.schema import SchemaRegistry
from tests.models import generated_graph, transformer_like

Row = tuple[str, float, float, str]  # name, wall seconds, CPU seconds, notes


def _measure(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU time. On a shared, busy machine wall time also measures the neighbours; CPU time
    (this process, all threads) measures the code."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def _graph_of(model: ir.Model) -> tuple[list[str], list[tuple[str, str]], dict[str, tuple[str, ...]]]:
    """Node ids, producer->consumer edges and name-scope groups, as the document's read-model gives them."""
    ids = {node: f"n{i}" for i, node in enumerate(model.graph)}
    edges = [
        (ids[producer], ids[node])
        for node in model.graph
        for value in node.inputs
        if value is not None and (producer := value.producer()) is not None and producer in ids
    ]
    groups = {ids[node]: tuple(p for p in (node.name or "").split("/")[:-1] if p) for node in model.graph}
    return list(ids.values()), edges, groups


def bench_schema(rows: list[Row]) -> None:
    registries: list[SchemaRegistry] = []

    def build(contrib: bool) -> None:
        registries.append(SchemaRegistry(contrib=contrib))
        registries[-1].get("Conv")

    rows.append(("schema registry build (onnx + ORT contrib)", *_measure(lambda: build(True), 1), ""))
    fresh = registries[-1]
    wall, cpu = _measure(lambda: [fresh.get("Conv", opset=13) for _ in range(1000)], 3)
    rows.append(("schema lookup after build (per call)", wall / 1000, cpu / 1000, f"{len(fresh)} schemas"))
    rows.append(("schema registry build (onnx only)", *_measure(lambda: build(False), 1), ""))


def bench_layout(rows: list[Row], repeat: int) -> None:
    for n in (20_000, 50_000):
        nodes, edges, groups = _graph_of(ir.from_proto(generated_graph(n)))
        sizes = {node: (80.0 + 40 * (i % 4), 40.0) for i, node in enumerate(nodes)}
        measured = _measure(functools.partial(sugiyama_layout, nodes, edges, sizes), repeat)
        target = "; target <= 1 s" if n == 20_000 else ""
        rows.append((f"layout flat, {n:,} nodes", *measured, f"{len(edges):,} edges{target}"))
        measured = _measure(functools.partial(layout_groups, nodes, edges, sizes, groups), repeat)
        rows.append((f"layout by name scope, {n:,} nodes", *measured, f"{len(set(groups.values()))} groups"))
        collapsed = {path[:1] for path in groups.values() if path}
        measured = _measure(functools.partial(layout_groups, nodes, edges, sizes, groups, collapsed=collapsed), repeat)
        rows.append((f"layout, top scopes collapsed, {n:,} nodes", *measured, f"{len(collapsed)} collapsed"))


def bench_bert(rows: list[Row], repeat: int) -> None:
    proto = transformer_like(layers=12, hidden=768, heads=12, vocab=16_000)  # ~110M parameters
    params = sum(math.prod(t.dims) for t in proto.graph.initializer)
    note = f"{len(proto.graph.node)} nodes, {params / 1e6:.0f}M params, {proto.ByteSize() / 1e6:.0f} MB"

    def with_weights() -> None:
        onnx.checker.check_model(proto)
        onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True, data_prop=True)

    rows.append(("BERT-base: checker + strict inference, weights", *_measure(with_weights, repeat), note))
    model = ir.from_proto(proto)
    rows.append(("BERT-base: ir.to_proto (a plain check serializes)", *_measure(lambda: ir.to_proto(model), 1), ""))
    rows.append(("BERT-base: weightless skeleton build", *_measure(lambda: Skeleton(model), repeat), ""))
    skeleton = Skeleton(model).proto

    def skeleton_only() -> None:
        onnx.checker.check_model(skeleton)
        onnx.shape_inference.infer_shapes(skeleton, check_type=True, strict_mode=True, data_prop=True)

    rows.append(("BERT-base: checker + strict inference, skeleton", *_measure(skeleton_only, repeat), ""))
    result = check_model(model)
    note = f"{len(result.diagnostics)} diagnostics, {len(result.inferred)} values inferred; target <= 1 s"
    rows.append(
        ("BERT-base: check_model (skeleton+structure+both)", *_measure(lambda: check_model(model), repeat), note)
    )


def bench_large_checks(rows: list[Row], repeat: int) -> None:
    for label, proto in (
        ("7k-node transformer", transformer_like(layers=195)),
        ("50k-node generated graph", generated_graph(50_000)),
    ):
        model = ir.from_proto(proto)
        result = check_model(model)
        measured = _measure(functools.partial(check_model, model), repeat)
        rows.append(
            (f"check_model, {label}", *measured, f"{len(model.graph):,} nodes, {len(result.diagnostics)} diag.")
        )
        measured = _measure(lambda: dict(result.inferred), 1)  # noqa: B023 - used right here
        rows.append((f"  all inferred types as a dict, {label}", *measured, f"{len(result.inferred):,} values"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repetition each")
    args = parser.parse_args()
    repeat = 1 if args.quick else 3
    rows: list[Row] = []
    bench_schema(rows)
    bench_layout(rows, repeat)
    bench_bert(rows, repeat)
    bench_large_checks(rows, repeat)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine inflates the figures)")
    width = max(len(row[0]) for row in rows)
    print(f"{'measure'.ljust(width)}  {'wall s':>9}  {'CPU s':>9}  notes")
    for name, wall, cpu, note in rows:
        print(f"{name.ljust(width)}  {_seconds(wall):>9}  {_seconds(cpu):>9}  {note}")


def _seconds(value: float) -> str:
    return f"{value * 1e6:.1f} us" if value < 1e-3 else f"{value:.3f}"


if __name__ == "__main__":
    main()
