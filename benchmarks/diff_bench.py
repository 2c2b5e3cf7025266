"""Structural diff benchmark: two ~7,000-node Llama-shaped decoders (tests/models.py, 212 layers), B renamed
throughout with one weight changed and one node inserted.

Run: ``python benchmarks/diff_bench.py [--hidden 64] [--repeat 3]``. Prints the median of opening both files and
diffing them (`dld.diff(path_a, path_b)`, what `dld diff` runs) as wall and CPU time (the work is single-threaded,
so CPU time is what an idle core takes on a shared, loaded machine), the diff alone, and what it found.
Target (issue 30): <= 2 s for the whole `diff(path_a, path_b)`.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile
import time

import onnx
from onnx import helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from dld_jupyter.model_compare import diff
from dld_jupyter.model_compare.structural_diff import as_model
from tests import models
from tests.model_compare.test_structural_diff import renamed, with_weight

LAYERS = 212  # 33 nodes a layer + 3: 6,999 nodes


def edited(model: onnx.ModelProto) -> onnx.ModelProto:
    """B: one weight changed, one Relu inserted after the middle layer's residual Add, every name changed."""
    copy = with_weight(model, f"/layers.{LAYERS // 2}/mlp/up.weight", 1.0)
    nodes = copy.graph.node
    k = next(i for i, n in enumerate(nodes) if n.name.startswith(f"/layers.{LAYERS // 2}/Add"))
    out = nodes[k].output[0]
    for node in nodes[k + 1 :]:
        node.input[:] = ["relu_inserted" if x == out else x for x in node.input]
    nodes.insert(k + 1, helper.make_node("Relu", [out], ["relu_inserted"], name="/inserted/Relu"))
    return renamed(copy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hidden", type=int, default=64, help="hidden size (64: ~45 MB of weights a model)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    model = models.transformer_like(layers=LAYERS, hidden=args.hidden, heads=4)
    with tempfile.TemporaryDirectory() as folder:
        a, b = pathlib.Path(folder) / "a.onnx", pathlib.Path(folder) / "b.onnx"
        onnx.save(model, str(a))
        onnx.save(edited(model), str(b))
        whole, alone, cpu = [], [], []
        for _ in range(args.repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            result = diff(a, b)
            whole.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            ma, mb = as_model(a), as_model(b)
            start = time.perf_counter()
            diff(ma, mb)
            alone.append(time.perf_counter() - start)
        size = (a.stat().st_size + b.stat().st_size) / 1e6
    print(f"nodes: {len(model.graph.node)} vs {len(model.graph.node) + 1}; files {size:.0f} MB together")
    print(f"open both + diff: {statistics.median(whole):.2f} s wall, {statistics.median(cpu):.2f} s CPU of this "
          f"single-threaded process (the wall time on an idle core; target <= 2 s); diff of opened models: "
          f"{statistics.median(alone):.2f} s wall")
    print(f"found: {result.headline()}; renamed pairs: {result.graph.renamed}")
    for node in result.graph.changed:
        print(f"  ~ {node.a.label} → {node.b.label}: " + "; ".join(c.what for c in node.changes))
    for ref in result.graph.added:
        print(f"  + {ref.label} ({ref.op_type})")


if __name__ == "__main__":
    main()
