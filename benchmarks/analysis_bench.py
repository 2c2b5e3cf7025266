"""Analysis mode figures (issue 29): step latency on a ResNet-50 export (CPU, target: median <= 300 ms) and the peak
RSS of stepping through every node of a BERT-base-sized encoder against weights + 2 x its largest activation set +
300 MB, next to the "mark every tensor as an output" approach the issue rejects.

    python benchmarks/analysis_bench.py [--resnet PATH] [--bert PATH] [--seq 128] [--window 8]

Models come from (run with /work/torchvenv)
    scripts/export_real_models.py ~/.cache/dld_jupyter/real_models --set bench --only resnet50,bert_base_seq128
Each measurement runs in its own process so its peak RSS (VmHWM) is its own. The engine
is measured in process (the worker runs exactly this code; a request adds one pipe round trip).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

CACHE = Path.home() / ".cache" / "dld_jupyter" / "real_models"
MB = 1 << 20


def _peak_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def _feeds(model: str, seq: int) -> dict[str, Any]:
    from dld_jupyter.activities.analysis.inputs import load_inputs, model_input_specs

    specs = model_input_specs(model)
    names = {s.name for s in specs}
    declared = next((s.shape[1] for s in specs if s.name == "input_ids" and len(s.shape) == 2), None)
    seq = declared if isinstance(declared, int) and declared > 0 else seq  # a static export keeps its length
    if "input_ids" in names:
        ids = (np.arange(seq, dtype=np.int64).reshape(1, seq) * 7919) % 30000 + 100
        given = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        given.update({n: np.zeros_like(ids) for n in names - set(given)})  # token_type_ids, if any
        return load_inputs(specs, {k: v for k, v in given.items() if k in names})
    return load_inputs(specs)


def steps(model: str, seq: int, window: int) -> dict[str, Any]:
    """Step through every node; per-step latency and the process's peak RSS."""
    from dld_jupyter.activities.analysis.engine import AnalysisEngine

    start = time.perf_counter()
    engine = AnalysisEngine(model, _feeds(model, seq), window=window)
    opened = time.perf_counter() - start
    engine.add_breakpoint(engine.graph.order[-1])
    start = time.perf_counter()
    engine.run()  # a jump to the last node: the prefix of the whole model
    jump = time.perf_counter() - start
    engine.remove_breakpoint(engine.graph.order[-1])
    engine.run()  # back to the start
    times = []
    for _ in engine.graph.order:
        began = time.perf_counter()
        engine.step()
        engine.tensor(engine.position)  # what a view shows at each stop
        times.append((time.perf_counter() - began) * 1000)
    ms = np.asarray(times)
    engine.close()
    return {
        "nodes": len(times),
        "open_s": round(opened, 2),
        "jump_to_last_ms": round(jump * 1000, 1),
        "sessions": engine.sessions_built,
        "segments": engine.segments_run,
        "median_ms": round(float(np.median(ms)), 2),
        "mean_ms": round(float(ms.mean()), 2),
        "p90_ms": round(float(np.percentile(ms, 90)), 2),
        "max_ms": round(float(ms.max()), 2),
        "peak_rss_mb": round(_peak_rss() / MB, 1),
    }


def worker(model: str, seq: int, window: int) -> dict[str, Any]:
    """Steps as a front door sees them: `analyse(...).step()`, a request to the worker process and its reply."""
    from dld_jupyter.frontdoor.analysis import analyse

    times = []
    with analyse(model, inputs=_feeds(model, seq), window=window) as analysis:
        for _ in range(min(100, len(analysis.order))):
            began = time.perf_counter()
            analysis.step()
            times.append((time.perf_counter() - began) * 1000)
    ms = np.asarray(times)
    return {"steps": len(times), "median_ms": round(float(np.median(ms)), 2), "max_ms": round(float(ms.max()), 2)}


def mark_all(model: str, seq: int) -> dict[str, Any]:
    """The rejected approach: every value an output of one plain run. Also sizes the largest live activation set
    (values live from their producer to their last consumer, in execution order) and the weights."""
    import onnx
    import onnxruntime as ort

    from dld_jupyter.activities.analysis.graph import MainGraph

    proto = onnx.load(model)
    weights = sum(onnx.numpy_helper.to_array(t).nbytes for t in proto.graph.initializer)
    graph = MainGraph(proto.graph)
    names = [n for i in graph.order for n in graph.nodes[i].output if n]
    declared = {o.name for o in proto.graph.output}
    proto.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names if n not in declared)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    del proto
    sizes = {n: np.asarray(v).nbytes for n, v in zip(names, session.run(names, _feeds(model, seq)), strict=True)}
    last_use = {n: graph.step_of[graph.producer[n]] for n in names}
    for index, reads in enumerate(graph.reads):
        for n in reads:
            if n in last_use:
                last_use[n] = max(last_use[n], graph.step_of[index])
    for n in declared & set(last_use):
        last_use[n] = len(graph.order)
    live = [
        sum(sizes[n] for n in names if graph.step_of[graph.producer[n]] <= step <= last_use[n])
        for step in range(len(graph.order))
    ]
    return {
        "weights_mb": round(weights / MB, 1),
        "largest_activation_set_mb": round(max(live) / MB, 1),
        "all_values_mb": round(sum(sizes.values()) / MB, 1),
        "peak_rss_mb": round(_peak_rss() / MB, 1),
    }


def _child(mode: str, model: str, seq: int, window: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--model", model, "--seq", str(seq), "--window", str(window)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resnet", default=str(CACHE / "resnet50.onnx"))
    parser.add_argument("--bert", default=str(CACHE / "bert_base_seq128.onnx"))
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--child", choices=["steps", "worker", "mark_all"])
    parser.add_argument("--model")
    args = parser.parse_args()
    if args.child:
        if args.child == "mark_all":
            result = mark_all(args.model, args.seq)
        else:
            result = (steps if args.child == "steps" else worker)(args.model, args.seq, args.window)
        print(json.dumps(result))
        return
    for window in (args.window, 1):
        print(f"ResNet-50 steps, window {window}:", _child("steps", args.resnet, args.seq, window), flush=True)
    print(f"ResNet-50 steps through the worker, window {args.window}:", _child("worker", args.resnet, 0, args.window))
    sized = _child("mark_all", args.bert, args.seq, args.window)
    print(f"BERT-base seq {args.seq}, every value an output of one run:", sized, flush=True)
    stepped = _child("steps", args.bert, args.seq, args.window)
    print(f"BERT-base seq {args.seq}, analysis stepping every node:", stepped, flush=True)
    budget = sized["weights_mb"] + 2 * sized["largest_activation_set_mb"] + 300
    verdict = "within" if stepped["peak_rss_mb"] <= budget else "OVER"
    print(
        f"peak RSS {stepped['peak_rss_mb']} MB {verdict} the budget {budget:.0f} MB "
        f"(weights {sized['weights_mb']} + 2 x {sized['largest_activation_set_mb']} + 300)"
    )


if __name__ == "__main__":
    main()
