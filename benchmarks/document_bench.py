"""Document benchmarks: open (structure only), read-model, and one edit + its undo, kernel-side.

Run: ``python benchmarks/document_bench.py [--quick]``. Prints a table of medians (milliseconds).
Models: a generated 50,000-node graph and a ~7,000-node transformer (tests/models.py), written to a temp folder.
Targets (issue 3): 50k-node open <= 1.5 s; edit + undo <= 5 ms. Layout and check figures: checks_layout_bench.py.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import onnx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from dld_jupyter.document import Document
from dld_jupyter.document.files import opening_checks
from tests import models


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def edits(doc: Document) -> dict[str, Callable[[], object]]:
    """One edit and its undo, each on a node in the middle of the graph."""
    graph = doc.model.graph
    middle = graph.node(len(graph) // 2)
    mid = doc.node_id(middle)
    user = doc.node_id(next(iter(middle.outputs[0].uses())).node)
    src = doc.node_id(graph.node(len(graph) // 2 - 3))

    def add() -> None:
        doc.add_node("Relu", position=(0, 0))
        doc.undo()

    def rename() -> None:
        doc.rename_node(mid, "bench_name")
        doc.undo()

    def move() -> None:
        doc.move_nodes({mid: (1.0, 2.0)})
        doc.undo()

    def reconnect() -> None:
        with doc.transaction("Reconnect"):
            doc.disconnect(user, 0)
            doc.connect(src, 0, user, 0)
        doc.undo()

    def remove() -> None:
        doc.remove_nodes([mid])
        doc.undo()

    return {
        "add node + undo": add,
        "rename + undo": rename,
        "move + undo": move,
        "disconnect/connect + undo": reconnect,
        "remove node (with links) + undo": remove,
    }


def bench(label: str, proto: onnx.ModelProto, folder: pathlib.Path, repeat: int) -> list[tuple[str, str, float]]:
    path = folder / f"{label}.onnx"
    onnx.save(proto, path)
    rows = [(label, "nodes", float(len(proto.graph.node)))]
    rows.append((label, "open: parse protobuf (ms)", median_ms(lambda: opening_checks.read_proto(path), repeat)))
    rows.append((label, "open: Document.open (ms)", median_ms(lambda: Document.open(path), repeat)))
    doc = Document.open(path)
    rows.append((label, "read-model, first nodes()+edges() (ms)", median_ms(lambda: (doc.nodes(), doc.edges()), 1)))
    mid = doc.node_id(doc.model.graph.node(len(doc.model.graph) // 2))

    def edit_then_read() -> None:
        doc.rename_node(mid, "bench_read")
        doc.nodes()
        doc.edges()
        doc.undo()

    rows.append((label, "rename + read-model refresh + undo (ms)", median_ms(edit_then_read, repeat)))
    for name, fn in edits(doc).items():
        fn()  # warm-up: the first edit builds the name index
        rows.append((label, f"{name} (ms)", median_ms(fn, max(repeat * 7, 21))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller graphs, fewer repeats")
    args = parser.parse_args()
    big, layers, repeat = (5_000, 20, 3) if args.quick else (50_000, 212, 3)
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        rows = bench(f"generated {big}", models.generated_graph(big), folder, repeat)
        rows += bench("transformer", models.transformer_like(layers=layers), folder, repeat)
    width = max(len(r[1]) for r in rows)
    print(f"{'model':<18} {'measure':<{width}} {'median':>10}")
    for model, measure, value in rows:
        print(f"{model:<18} {measure:<{width}} {value:>10.2f}")


if __name__ == "__main__":
    main()
