"""Real exported models in the kernel: open time (embedded weights read lazily vs parsed whole, the previous way),
time to the first view's data, and our layout's quality against dagre (the layered layout Netron draws with).

Run: python benchmarks/real_models_bench.py [--models resnet18,bert_base,...] [--no-dagre]

Models come from the cache `~/.cache/dld_jupyter/real_models` (DLD_REAL_MODELS), written by
`scripts/export_real_models.py CACHE --set bench` (run with a Python that has torch; TORCH_PYTHON, default
/work/torchenv/bin/python, is used to make missing ones), plus the committed fixtures in tests/data/real/.
- open: `Document.open` median of --runs, lazy (now) and eager (LAZY_MIN_FILE raised: every weight parsed, as before);
- first view: building the canvas's first snapshot (grouping, layout) after the document is open;
- layout: the expanded graph (constants hidden, as the canvas draws it) laid out by us and by dagre (@dagrejs/dagre,
  installed with npm into ~/.cache/dld_jupyter/dagre), with the same node sizes and gaps: edge crossings (straight
  centre-to-centre segments) and total edge length. Results: printed table + test-artifacts/bench/real_models.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dld_jupyter.document import Document  # noqa: E402
from dld_jupyter.document.files import lazy_weights  # noqa: E402
from dld_jupyter.document.layout import layered_layout as layout  # noqa: E402
from dld_jupyter.widgets.canvas.canvas_view import CanvasView  # noqa: E402

CACHE = Path(os.environ.get("DLD_REAL_MODELS", Path.home() / ".cache" / "dld_jupyter" / "real_models"))
DAGRE_DIR = Path.home() / ".cache" / "dld_jupyter" / "dagre"
BENCH = ["resnet18", "mobilenet_v3_small", "shufflenet_v2_functions", "efficientnet_b0", "vit_b_16", "ssdlite_head",
         "ssdlite_full", "bert_base", "gpt2_small", "gpt2_dynamic", "llama_30l", "llama_dynamic", "t5_small"]
FIXTURES = ROOT / "tests" / "data" / "real"


def model_path(name: str) -> Path | None:
    for path in (CACHE / f"{name}.onnx", FIXTURES / f"{name}.onnx"):
        if path.exists():
            return path
    torch_python = os.environ.get("TORCH_PYTHON", "/work/torchenv/bin/python")
    if Path(torch_python).exists() and name in BENCH:
        subprocess.run([torch_python, str(ROOT / "scripts" / "export_real_models.py"), str(CACHE), "--set", "bench",
                        "--only", name], check=False)
    return CACHE / f"{name}.onnx" if (CACHE / f"{name}.onnx").exists() else None


def open_seconds(path: Path, runs: int, eager: bool) -> float:
    saved = lazy_weights.LAZY_MIN_FILE
    lazy_weights.LAZY_MIN_FILE = 1 << 62 if eager else saved
    try:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            Document.open(path)
            times.append(time.perf_counter() - start)
        return statistics.median(times)
    finally:
        lazy_weights.LAZY_MIN_FILE = saved


def _orient(o: np.ndarray, s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Sign of the turn o -> s -> t (broadcast over rows)."""
    cross = (s[..., 0] - o[..., 0]) * (t[..., 1] - o[..., 1]) - (s[..., 1] - o[..., 1]) * (t[..., 0] - o[..., 0])
    return np.sign(cross)


def quality(pos: dict[str, tuple[float, float]], edges: list[tuple[str, str]]) -> tuple[int, float]:
    """(crossings, total length) of straight centre-to-centre links; links sharing an end do not cross."""
    pairs = [(a, b) for a, b in edges if a in pos and b in pos and a != b]
    if not pairs:
        return 0, 0.0
    p = np.array([pos[a] for a, _ in pairs], float)
    q = np.array([pos[b] for _, b in pairs], float)
    length = float(np.linalg.norm(q - p, axis=1).sum())
    ends = [(a, b) for a, b in pairs]
    crossings = 0
    for i in range(len(pairs) - 1):
        a, b = p[i], q[i]
        c, d = p[i + 1:], q[i + 1:]
        hit = (_orient(a, b, c) * _orient(a, b, d) < 0) & (_orient(c, d, a) * _orient(c, d, b) < 0)
        shared = np.array([len({ends[i][0], ends[i][1]} & {x, y}) > 0 for x, y in ends[i + 1:]], bool)
        crossings += int((hit & ~shared).sum())
    return crossings, length


def dagre_positions(nodes: list[dict[str, Any]], edges: list[tuple[str, str]]) -> tuple[dict[str, Any], float]:
    spec = {"nodes": [{"id": n["id"], "w": n["width"], "h": n["height"]} for n in nodes],
            "edges": edges, "nodesep": layout.NODE_GAP, "ranksep": layout.LAYER_GAP}  # our gaps: same spacing
    env = dict(os.environ, DAGRE_MODULE=str(DAGRE_DIR / "node_modules" / "@dagrejs" / "dagre"))
    done = subprocess.run(["node", str(ROOT / "benchmarks" / "js" / "dagre_layout.js")], input=json.dumps(spec),
                          capture_output=True, text=True, env=env, timeout=900, check=True)
    out = json.loads(done.stdout)
    return {k: tuple(v) for k, v in out["pos"].items()}, float(out["seconds"])


def bench(name: str, path: Path, runs: int, dagre: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"model": name, "MB": round(path.stat().st_size / 1e6, 1)}
    row["open_s"] = round(open_seconds(path, runs, eager=False), 3)
    row["open_eager_s"] = round(open_seconds(path, runs, eager=True), 3)
    doc = Document.open(path)
    row["nodes"] = len(doc.model.graph)
    start = time.perf_counter()
    view = CanvasView(doc)
    nodes, _, _ = view.snapshot()
    row["first_view_s"] = round(time.perf_counter() - start, 3)
    row["first_view_elements"] = len([n for n in nodes if not (n["kind"] == "group" and not n["collapsed"])])
    flat = CanvasView(doc, grouping="none")
    start = time.perf_counter()
    fnodes, fedges, points = flat.snapshot()
    row["expanded_layout_s"] = round(time.perf_counter() - start, 3)
    pos = {n["id"]: (float(x), float(y)) for n, (x, y) in zip(fnodes, points, strict=True)}
    links = sorted({(e["source"], e["target"]) for e in fedges})
    row["ours_crossings"], length = quality(pos, links)
    row["ours_length"] = round(length)
    if dagre:
        dpos, seconds = dagre_positions(fnodes, links)
        row["dagre_crossings"], dlength = quality(dpos, links)
        row["dagre_length"] = round(dlength)
        row["dagre_s"] = round(seconds, 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    small = ["mobilenet_v3_small_w05", "bert_tiny", "gpt2_tiny", "shufflenet_functions_small"]
    parser.add_argument("--models", default=",".join([*BENCH, *small]))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-dagre", action="store_true")
    args = parser.parse_args()
    rows = []
    for name in args.models.split(","):
        path = model_path(name)
        if path is None:
            print(f"{name}: not available (export it with scripts/export_real_models.py)")
            continue
        row = bench(name, path, args.runs, not args.no_dagre)
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = ROOT / "test-artifacts" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    (out / "real_models.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
