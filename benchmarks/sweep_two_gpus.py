"""A sweep over two GPUs against the same sweep on one (issue 28, on the lent nvidia-h100-x2): wall times and their
ratio, NVML's process list of each GPU sampled during both sweeps (no two processes on one GPU at any moment), and
a foreign process on GPU 1 detected before a point (foreign=warn records it, foreign=fail refuses) and during one.
Issue 39: per point, the median and p90 on two GPUs beside the same point alone (the one-GPU sweep runs one point
at a time), against its targets: median within 3 % of alone, p90 within 10 % of its median, wall <= 0.55x one GPU;
and the control: the one-GPU sweep once more, each point beside its first alone run, which is the host's own noise
between two runs of the same point (on a host whose control moves more than 3 %, that target cannot be shown there).

The two models are made here with onnx.helper (random weights, dynamic batch) so the GPU is busy enough that a
point's worker start does not dominate: a ResNet-18-shaped conv net (224x224) and a BERT-base-shaped encoder
(6 layers, hidden 768, 128 tokens). Writes summary.json, nvml_samples.jsonl and the sweeps' manifests to --out.

    PYTHONPATH=. python benchmarks/sweep_two_gpus.py --out /tmp/sweep2 [--iterations 400] [--provider cuda]
        [--no-foreign]   # the issue-39 comparison only, without the foreign-process checks
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.activities.sweep.sweep import start_sweep

OPSET, IR = 17, 9
HOLD = ("import torch,time; torch.cuda.set_device({i}); x=torch.ones(256*2**20, device='cuda:{i}'); "
        "torch.cuda.synchronize({i}); time.sleep({s})")  # set_device first: no context on GPU 0 as well


class Graph:
    """A tiny graph builder: nodes, random initializers, unique names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0
        self.rng = np.random.default_rng(0)

    def name(self, stem: str) -> str:
        self.count += 1
        return f"{stem}_{self.count}"

    def const(self, value: np.ndarray, stem: str = "w") -> str:
        name = self.name(stem)
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def weight(self, *shape: int, scale: float = 0.02) -> str:
        return self.const((self.rng.standard_normal(shape) * scale).astype(np.float32))

    def op(self, kind: str, inputs: list[str], **attrs: Any) -> str:
        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def save(self, path: Path, inp: onnx.ValueInfoProto, out_name: str, out_shape: list[Any]) -> str:
        output = helper.make_tensor_value_info(out_name, TensorProto.FLOAT, out_shape)
        graph = helper.make_graph(self.nodes, path.stem, [inp], [output], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR)
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
        return str(path)


def resnet18_like(path: Path) -> str:
    g = Graph()

    def conv(x: str, cin: int, cout: int, k: int, stride: int, relu: bool = True) -> str:
        w = g.weight(cout, cin, k, k, scale=(2.0 / (cin * k * k)) ** 0.5)
        y = g.op("Conv", [x, w, g.const(np.zeros(cout, np.float32), "b")], kernel_shape=[k, k],
                 strides=[stride, stride], pads=[k // 2] * 4)
        return g.op("Relu", [y]) if relu else y

    x = conv("input", 3, 64, 7, 2)
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, cout in enumerate((64, 128, 256, 512)):
        for block in range(2):
            stride = 2 if stage and not block else 1
            y = conv(conv(x, cin, cout, 3, stride), cout, cout, 3, 1, relu=False)
            short = conv(x, cin, cout, 1, stride, relu=False) if (stride != 1 or cin != cout) else x
            x, cin = g.op("Relu", [g.op("Add", [y, short])]), cout
    x = g.op("Flatten", [g.op("GlobalAveragePool", [x])])
    x = g.op("Gemm", [x, g.weight(1000, 512), g.const(np.zeros(1000, np.float32), "b")], transB=1)
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 224, 224])
    return g.save(path, inp, x, ["batch", 1000])


def bert_like(path: Path, layers: int = 6, hidden: int = 768, heads: int = 12, seq: int = 128) -> str:
    g = Graph()
    head = hidden // heads
    ones, zeros = g.const(np.ones(hidden, np.float32), "g"), g.const(np.zeros(hidden, np.float32), "b")
    split_heads = g.const(np.array([0, 0, heads, head], np.int64), "shape")
    merge = g.const(np.array([0, 0, hidden], np.int64), "shape")
    scale = g.const(np.array(1.0 / head**0.5, np.float32), "scale")
    x = "hidden_states"
    for _ in range(layers):
        def dense(v: str, cin: int, cout: int) -> str:
            return g.op("Add", [g.op("MatMul", [v, g.weight(cin, cout)]), g.const(np.zeros(cout, np.float32), "b")])

        def heads_of(v: str) -> str:
            return g.op("Transpose", [g.op("Reshape", [v, split_heads])], perm=[0, 2, 1, 3])

        q, k, v = (heads_of(dense(x, hidden, hidden)) for _ in range(3))
        scores = g.op("Mul", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]), scale])
        context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), merge])
        x = g.op("LayerNormalization", [g.op("Add", [dense(context, hidden, hidden), x]), ones, zeros], axis=-1)
        inner = dense(x, hidden, 4 * hidden)
        inner = g.op("Mul", [inner, g.op("Sigmoid", [g.op("Mul", [inner, g.const(np.array(1.702, np.float32))])])])
        x = g.op("LayerNormalization", [g.op("Add", [dense(inner, 4 * hidden, hidden), x]), ones, zeros], axis=-1)
    inp = helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, ["batch", seq, hidden])
    return g.save(path, inp, x, ["batch", seq, hidden])


class NvmlSampler:
    """Every `period` s: a timestamp and the PIDs on each GPU (NVML compute + graphics lists), kept in memory."""

    def __init__(self, period: float = 0.05) -> None:
        import pynvml

        self.nv, self.period, self.samples = pynvml, period, []  # type: list[dict[str, Any]]
        pynvml.nvmlInit()
        self.handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
        self.label, self._stop = "", threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def pids(self, index: int) -> list[int]:
        found: set[int] = set()
        for reader in (self.nv.nvmlDeviceGetComputeRunningProcesses, self.nv.nvmlDeviceGetGraphicsRunningProcesses):
            found |= {int(p.pid) for p in reader(self.handles[index])}
        return sorted(found)

    def _loop(self) -> None:
        while not self._stop.wait(self.period):
            self.samples.append({"t": time.time(), "phase": self.label,
                                 "gpus": {str(i): self.pids(i) for i in range(len(self.handles))}})

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def overlap_check(samples: list[dict[str, Any]], phase: str) -> dict[str, Any]:
    """Samples of `phase` where one GPU listed two or more processes, and the distinct PIDs each GPU saw."""
    mine = [s for s in samples if s["phase"] == phase]
    bad = [s for s in mine if any(len(p) > 1 for p in s["gpus"].values())]
    seen: dict[str, set[int]] = {}
    for sample in mine:
        for gpu, pids in sample["gpus"].items():
            seen.setdefault(gpu, set()).update(pids)
    return {"samples": len(mine), "samples_with_two_processes_on_one_gpu": len(bad), "first_bad": bad[:3],
            "distinct_pids_per_gpu": {g: sorted(p) for g, p in seen.items()}}


def sweep(label: str, models: list[str], out: Path, sampler: NvmlSampler | None, **options: Any) -> dict[str, Any]:
    """Run one sweep to the end; its wall time, each point's state, device, median and running interval."""
    if sampler is not None:
        sampler.label = label
    folder = out / label
    shutil.rmtree(folder, ignore_errors=True)
    spans: dict[str, list[float]] = {}

    def changed(s: Any) -> None:
        for entry in s.points():
            span = spans.setdefault(entry.point.id, [])
            starts = entry.state == "running" and not span
            ends = entry.state in ("done", "failed", "cancelled", "not applicable") and len(span) == 1
            if starts or ends:
                span.append(time.monotonic() - started)

    started = time.monotonic()
    running = start_sweep(models, out=str(folder), **options)
    running.on_change(changed)
    running.wait()
    wall = time.monotonic() - started
    if sampler is not None:
        sampler.label = ""
    points = [{"id": e.point.id, "state": e.state, "device": e.device, "median_ms": e.median_ms, "p90_ms": e.p90_ms,
               "span_s": [round(t, 2) for t in spans.get(e.point.id, [])], "gpu_check": e.gpu_check,
               "reason": e.reason} for e in running.points()]
    print(f"{label}: {wall:.2f} s")
    for p in points:
        print(f"  {p['id']:<40} {p['state']:<8} {p['device']!s:<7} median {p['median_ms']} ms  span {p['span_s']}"
              + (f"  reason: {p['reason']}" if p["reason"] else ""))
    return {"wall_s": round(wall, 3), "error": running.error, "points": points}


def spans_overlap(points: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of points whose running intervals (as the sweep saw them) overlap on one device."""
    pairs = []
    for i, a in enumerate(points):
        for b in points[i + 1:]:
            both = a["device"] == b["device"] and len(a["span_s"]) == 2 == len(b["span_s"])
            if both and a["span_s"][0] < b["span_s"][1] and b["span_s"][0] < a["span_s"][1]:
                pairs.append((a["id"], b["id"]))
    return pairs


def side_by_side(two: list[dict[str, Any]], one: list[dict[str, Any]]) -> dict[str, Any]:
    """Issue 39's table: each point on two GPUs beside the same point alone, and whether every target holds."""
    alone = {p["id"]: p for p in one}
    rows, worst_median, worst_p90 = [], 0.0, 0.0
    for point in two:
        mine = alone.get(point["id"], {})
        if not (point["median_ms"] and mine.get("median_ms")):
            rows.append({"id": point["id"], "missing": True})
            continue
        shift = point["median_ms"] / mine["median_ms"] - 1
        spreads = [p["p90_ms"] / p["median_ms"] - 1 for p in (point, mine) if p.get("p90_ms")]
        worst_median, worst_p90 = max(worst_median, abs(shift)), max([worst_p90, *spreads])
        rows.append({"id": point["id"], "device_two": point["device"], "median_two": point["median_ms"],
                     "p90_two": point["p90_ms"], "median_alone": mine["median_ms"], "p90_alone": mine["p90_ms"],
                     "median_shift_pct": round(100 * shift, 2)})
        print(f"  {point['id']:<40} {point['device']!s:<7} two {point['median_ms']:.4f}/{point['p90_ms']:.4f}  "
              f"alone {mine['median_ms']:.4f}/{mine['p90_ms']:.4f} ms (median/p90)  {100 * shift:+.2f} %")
    return {"rows": rows, "worst_median_shift_pct": round(100 * worst_median, 2),
            "worst_p90_over_median_pct": round(100 * worst_p90, 2),
            "medians_within_3pct": worst_median <= 0.03 and not any(r.get("missing") for r in rows),
            "p90_within_10pct": worst_p90 <= 0.10}


def occupy(sampler: NvmlSampler, index: int, seconds: float) -> subprocess.Popen[bytes]:
    """A process holding 1 GiB on GPU `index`, returned once NVML lists it there."""
    count = len(sampler.pids(index))
    process = subprocess.Popen([sys.executable, "-c", HOLD.format(i=index, s=seconds)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(sampler.pids(index)) <= count:
        time.sleep(0.1)
    return process


def foreign_checks(models: list[str], out: Path, sampler: NvmlSampler, options: dict[str, Any]) -> dict[str, Any]:
    one = {**options, "batch": [1], "gpus": [1], "iterations": 50}
    found: dict[str, Any] = {}
    holder = occupy(sampler, 1, 120)
    found["foreign_pids_on_gpu1"] = sampler.pids(1)
    print("foreign process", holder.pid, "on GPU 1; NVML lists", found["foreign_pids_on_gpu1"])
    for policy in ("warn", "fail"):
        found[f"before_{policy}"] = sweep(f"foreign-before-{policy}", models[:1], out, sampler,
                                          **{**one, "foreign": policy})
    holder.kill()
    holder.wait()
    while sampler.pids(1):
        time.sleep(0.1)
    long_run = {**one, "batch": [32], "iterations": 1500, "foreign": "warn"}
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(sweep("foreign-during-warn", models[:1], out, sampler,
                                                                 **long_run)))
    thread.start()
    deadline = time.monotonic() + 60
    while not sampler.pids(1) and time.monotonic() < deadline:  # the point's worker is on GPU 1
        time.sleep(0.1)
    time.sleep(1.0)
    intruder = occupy(sampler, 1, 8)
    found["intruder_pid"] = intruder.pid
    thread.join()
    intruder.kill()
    intruder.wait()
    found["during_warn"] = result
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--provider", default="cuda")
    parser.add_argument("--batch", default="1,8,32")
    parser.add_argument("--no-foreign", action="store_true", help="skip the foreign-process checks (issue 28)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    models = [resnet18_like(out / "resnet18_like.onnx"), bert_like(out / "bert_like.onnx")]
    gpu = args.provider != "cpu"
    sampler = NvmlSampler() if gpu else None
    options = {"batch": [int(b) for b in args.batch.split(",")], "provider": args.provider,
               "iterations": args.iterations, "warmup": args.warmup, "foreign": "warn"}
    summary: dict[str, Any] = {"command": sys.argv, "options": options}
    try:
        summary["two_gpus"] = sweep("two-gpus", models, out, sampler, **options)
        summary["one_gpu"] = sweep("one-gpu", models, out, sampler, **{**options, "gpus": [0]})
        summary["one_gpu_again"] = sweep("one-gpu-again", models, out, sampler, **{**options, "gpus": [0]})
        summary["ratio"] = round(summary["two_gpus"]["wall_s"] / summary["one_gpu"]["wall_s"], 3)
        for label in ("two_gpus", "one_gpu"):
            summary[label]["span_overlaps_on_one_device"] = spans_overlap(summary[label]["points"])
        print("per point, two GPUs against alone (issue 39):")
        summary["side_by_side"] = side_by_side(summary["two_gpus"]["points"], summary["one_gpu"]["points"])
        print("control, the one-GPU sweep again against its first run (the host's own noise):")
        summary["control"] = side_by_side(summary["one_gpu_again"]["points"], summary["one_gpu"]["points"])
        if sampler is not None:
            for label in ("two-gpus", "one-gpu"):
                summary[label.replace("-", "_")]["nvml"] = overlap_check(sampler.samples, label)
            if not args.no_foreign:
                summary["foreign"] = foreign_checks(models, out, sampler, options)
    finally:
        if sampler is not None:
            sampler.stop()
            with open(out / "nvml_samples.jsonl", "w", encoding="utf-8") as handle:
                for sample in sampler.samples:
                    handle.write(json.dumps(sample) + "\n")
        (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
    verdict = summary["side_by_side"]
    print("ratio two GPUs / one GPU:", summary["ratio"], "(target <= 0.55)")
    print(f"worst median shift {verdict['worst_median_shift_pct']} % (target 3), worst p90 over median "
          f"{verdict['worst_p90_over_median_pct']} % (target 10); control: worst median shift "
          f"{summary['control']['worst_median_shift_pct']} % between two one-GPU sweeps")
    for label in ("two_gpus", "one_gpu"):
        print(label, "NVML:", {k: v for k, v in summary[label].get("nvml", {}).items() if k != "first_bad"},
              "span overlaps:", summary[label]["span_overlaps_on_one_device"])
    if "foreign" in summary:
        f = summary["foreign"]
        for key in ("before_warn", "before_fail", "during_warn"):
            p = f[key]["points"][0] if f[key].get("points") else {}
            print(f"foreign {key}: state={p.get('state')} foreign={p.get('gpu_check', {}).get('foreign')} "
                  f"reason={p.get('reason')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
