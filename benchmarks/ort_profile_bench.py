"""Does the profiler report the latency a bare onnxruntime loop sees? And what does per-node profiling cost?

In one run, on the same model, inputs, provider and thread count:
  1. a bare onnxruntime timing loop (warm-up, then N passes timed with perf_counter, median), in a fresh process
     like the profiler's worker;
  2. `dld_jupyter.activities.run_activity` (worker process; its `summary.median_ms` comes from the session without
     the per-node profiler);
  3. alternated for --rounds: bare, profiler, bare, profiler, ..., bare; the ratio compares the medians of the
     profiler's and the bare loop's medians (a shared machine drifts between consecutive runs).
Target: |ratio - 1| <= 2 %. Also printed: the profiled session's median and the per-node profiling overhead.

    python benchmarks/ort_profile_bench.py                    # generated ResNet (batch 8) and transformer
    python benchmarks/ort_profile_bench.py --model m.onnx --provider cuda -n 300
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dld_jupyter.activities import OrtProfileSpec, run_activity  # noqa: E402
from dld_jupyter.activities.runtimes.onnxruntime.inputs import random_feeds  # noqa: E402
from dld_jupyter.report_format.io import load_report  # noqa: E402

PROVIDERS = {"cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider"}


def bare_loop(path: str, args: argparse.Namespace) -> float:
    """The bare loop itself: plain onnxruntime, default session options apart from the thread count."""
    graph = onnx.load(path, load_external_data=False).graph
    feeds = random_feeds(graph, args.batch_size or None, seed=0)  # the very inputs the profiler generates
    options = ort.SessionOptions()
    if args.threads:
        options.intra_op_num_threads = args.threads
    session = ort.InferenceSession(path, options, providers=[PROVIDERS[args.provider]])
    for _ in range(args.warmup):
        session.run(None, feeds)
    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


def bare_median(path: str, args: argparse.Namespace, batch: int | None) -> float:
    """Run the bare loop in a fresh process, as the profiler's worker is: same conditions for both."""
    command = [sys.executable, __file__, "--bare-loop", path, "--provider", args.provider]
    command += ["-n", str(args.iterations), "--warmup", str(args.warmup), "--threads", str(args.threads)]
    command += ["--batch-size", str(batch or 0)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def bench(name: str, path: str, args: argparse.Namespace, batch: int | None) -> float:
    spec = OrtProfileSpec(
        model=path,
        iterations=args.iterations,
        warmup=args.warmup,
        provider=args.provider,
        threads=args.threads,
        batch_size=batch,
        output=str(Path(tempfile.mkdtemp()) / "bench.dld-report.json"),
    )
    # Alternate bare and profiler runs: on a shared machine the load drifts between consecutive runs.
    bare_runs = [bare_median(path, args, batch)]
    reports = []
    for _ in range(args.rounds):
        result = run_activity(spec, remember=False)
        if not result.ok or not result.report_path:
            raise SystemExit(f"{name}: profiling failed: {result.error}")
        reports.append(load_report(result.report_path))
        bare_runs.append(bare_median(path, args, batch))
    ours = statistics.median(r.summary.median_ms for r in reports)
    bare = statistics.median(bare_runs)
    profiled = statistics.median(r.summary.profiled_median_ms or 0.0 for r in reports)
    overhead = profiled - ours
    ratio = ours / bare
    kernels = len(reports[0].timeline)
    print(f"== {name}: {kernels} kernels per pass, {args.iterations} passes x {args.rounds} rounds, {args.provider}")
    print(f"   bare onnxruntime loop medians: {', '.join(f'{b:.4f}' for b in bare_runs)} ms -> {bare:.4f} ms")
    print(
        f"   dld profiler median_ms       : {', '.join(f'{r.summary.median_ms:.4f}' for r in reports)} ms"
        f" -> {ours:.4f} ms"
    )
    print(f"   ratio profiler / bare        : {ratio:.4f}  ({100 * (ratio - 1):+.2f} %, target within 2 %)")
    print(f"   profiled session median      : {profiled:.4f} ms")
    print(
        f"   per-node profiling overhead  : {overhead:+.4f} ms per pass ({100 * overhead / ours:+.1f} %), "
        f"{1000 * overhead / max(kernels, 1):+.2f} us per node"
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="ONNX model (default: generated ResNet-like and transformer-like)")
    parser.add_argument("--provider", default="cpu", choices=sorted(PROVIDERS))
    parser.add_argument("-n", "--iterations", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads for both (0: ORT default)")
    parser.add_argument("--rounds", type=int, default=3, help="profiler runs, each followed by a bare loop")
    parser.add_argument("--batch-size", type=int, default=8,
                        help="inferred batch for a leading free dimension (0: none; the generated transformer, whose "
                        "sequence is free too, always runs without one: a run refuses a batch it cannot place)")
    parser.add_argument("--bare-loop", metavar="MODEL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_loop:
        print(bare_loop(args.bare_loop, args))
        return 0
    with tempfile.TemporaryDirectory() as folder:
        if args.model:
            targets = [(Path(args.model).stem, args.model, args.batch_size or None)]
        else:
            from tests import models

            targets = []
            for name, model, batch in [
                ("resnet_like(6)", models.resnet_like(6), args.batch_size or None),
                ("transformer_like(4, hidden=256)", models.transformer_like(layers=4, hidden=256), None),
            ]:
                path = str(Path(folder) / f"{len(targets)}.onnx")
                onnx.save(model, path)
                targets.append((name, path, batch))
        ratios = [bench(name, path, args, batch) for name, path, batch in targets]
    worst = max(abs(r - 1) for r in ratios)
    print(f"worst deviation: {100 * worst:.2f} % ({'within' if worst <= 0.02 else 'OUTSIDE'} the 2 % target)")
    return 0 if worst <= 0.02 else 1


if __name__ == "__main__":
    sys.exit(main())
