"""Profiling truth on a GPU (issue 16): copies as rows, figures that add up, no fabricated GPM sample, and the
profiler's plain-pass median against a bare onnxruntime loop.

    python benchmarks/gpu_truth_check.py [--models resnet8,resnet18,bert] [--batches 1,32] [--passes 500]

Needs onnxruntime-gpu (../shared/GPU.md). Per model and batch size it profiles with the CUDA provider through the
whole engine (worker process, report file) and prints:
- the two copy rows (H2D before the first kernel, D2H after the last) and the share of the profiled median pass
  that the layer rows (copies included) account for (target: within 5 %);
- every GPU metric series' sample count and last value (a trailing 0 after nonzero samples is the old bug);
- the profiler's median pass against a bare `session.run` loop on the same inputs, **in one process, in
  alternating blocks** (`--block` passes each, which one goes first alternating too): the profiler's own plain
  session (`OrtSession.run` in the profile kind's `timed_passes` with its progress callback, as the worker runs
  them)
  beside a bare `InferenceSession` with default options. Measured on an H100, batch-1 pass times drift by up to
  35 % over seconds within one session and between sessions of one process, SM clock steady at 1,980 MHz (CPU-side
  launch latency), so only passes taken side by side compare the two; the ratio is of the medians of all passes;
- the same comparison across fresh processes (`--rounds` profiler runs through the whole engine and bare-loop
  processes, interleaved): the spread a user sees between two runs, reported, not used for the ratio.
Models: the bundled ResNet-8; torchvision ResNet-18 and a BERT-base-sized encoder when torch/torchvision/
transformers can be imported (they are exported with random weights into a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dld_jupyter.activities import OrtProfileSpec, run_activity  # noqa: E402
from dld_jupyter.activities.kinds.profile import PhaseProgress, timed_passes  # noqa: E402
from dld_jupyter.activities.runtimes.base import PassTimes  # noqa: E402
from dld_jupyter.activities.runtimes.onnxruntime.report import COPY_ROWS  # noqa: E402
from dld_jupyter.activities.runtimes.onnxruntime.session import OrtSession  # noqa: E402
from dld_jupyter.report_format.io import load_report  # noqa: E402
from dld_jupyter.report_format.model import Report  # noqa: E402


def export_resnet18(folder: Path) -> Path | None:
    try:
        import torch
        import torchvision
    except Exception as error:  # no torchvision on this host
        print(f"resnet18: skipped ({error})")
        return None
    path = folder / "resnet18.onnx"
    if path.exists():  # one export serves both batch sizes (dynamic batch axis)
        return path
    model = torchvision.models.resnet18(weights=None).eval()
    torch.onnx.export(
        model,
        (torch.randn(1, 3, 224, 224),),
        str(path),
        dynamo=False,
        opset_version=17,
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes={"input": {0: "batch"}},
    )
    return path


def export_bert(folder: Path, batch: int) -> Path | None:
    try:
        import torch
        from transformers import BertConfig, BertModel
    except Exception as error:
        print(f"bert: skipped ({error})")
        return None

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = BertModel(BertConfig(attn_implementation="eager"))

        def forward(self, ids: Any, mask: Any) -> Any:
            return self.bert(input_ids=ids, attention_mask=mask)["last_hidden_state"]

    path = folder / f"bert_base_b{batch}.onnx"  # exported with a static batch: one file per size
    if path.exists():
        return path
    ids = torch.randint(0, 30522, (batch, 128))
    torch.onnx.export(
        Wrapped().eval(),
        (ids, torch.ones_like(ids)),
        str(path),
        dynamo=True,
        opset_version=18,
        input_names=["input_ids", "attention_mask"],
        output_names=["hidden"],
    )
    import onnx

    onnx.save(onnx.load(str(path)), str(path))  # one self-contained file
    return path


BARE_LOOP = """
import statistics, sys, time
import onnx, onnxruntime as ort
from dld_jupyter.activities.runtimes.onnxruntime.inputs import random_feeds
model, batch, passes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
feeds = random_feeds(onnx.load(model, load_external_data=False).graph, batch, 0)
session = ort.InferenceSession(model, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
for _ in range(50):
    session.run(None, feeds)
times = []
for _ in range(passes):
    start = time.perf_counter()
    session.run(None, feeds)
    times.append((time.perf_counter() - start) * 1000.0)
print(statistics.median(times))
"""


def bare_loop(model: Path, batch: int, passes: int) -> float:
    """Median pass (ms) of a plain InferenceSession.run loop in a fresh process (as the profiler's worker is)."""
    done = subprocess.run(
        [sys.executable, "-c", BARE_LOOP, str(model), str(batch), str(passes)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT}:{os.environ.get('PYTHONPATH', '')}"},
    )
    return float(done.stdout.strip().splitlines()[-1])


class _Quiet:
    """The worker's reporter, minus the pipe: progress and log calls still happen once per pass batch."""

    def progress(self, fraction: float, phase: str) -> None:
        del fraction, phase

    def log(self, message: str, level: str = "info") -> None:
        del message, level


def side_by_side(
    model: Path, batch: int, passes: int, block: int, provider: str = "cuda"
) -> tuple[float, float, list[float]]:
    """Median pass (ms) of the profiler's plain session and of a bare session, run in alternating blocks in this
    process, and the per-block ratios (ours / bare, block medians) to show how they drift together."""
    spec = OrtProfileSpec(model=str(model), provider=provider, iterations=passes, warmup=50, batch_size=batch)
    reporter = _Quiet()
    with tempfile.TemporaryDirectory(prefix="dld-truth-") as workdir:
        session = OrtSession(spec, reporter, Path(workdir))  # the worker's session: same options, same feeds
        feeds = session.feeds
        bare = session.ort.InferenceSession(str(model), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        on_pass = PhaseProgress(reporter).phase("measuring", 0.1, 0.5, passes)  # the worker's per-pass callback

        def ours_block(count: int) -> list[float]:  # the profile kind's loop over the session's plain passes
            def plain() -> PassTimes:
                return session.run(None, False)

            return [p.wall_ms for p in timed_passes(plain, count, on_pass)]

        def bare_block(count: int) -> list[float]:  # BARE_LOOP's timing, verbatim
            times = []
            for _ in range(count):
                start = time.perf_counter()
                bare.run(None, feeds)
                times.append((time.perf_counter() - start) * 1000.0)
            return times

        ours_block(50)
        bare_block(50)
        ours: list[float] = []
        theirs: list[float] = []
        ratios: list[float] = []
        for index in range(max(1, passes // block)):
            if index % 2 == 0:
                a = ours_block(block)
                b = bare_block(block)
            else:
                b = bare_block(block)
                a = ours_block(block)
            ours += a
            theirs += b
            ratios.append(statistics.median(a) / statistics.median(b))
    return statistics.median(ours), statistics.median(theirs), ratios


def profiled(model: Path, batch: int, passes: int, folder: Path) -> Report:
    spec = OrtProfileSpec(
        model=str(model),
        provider="cuda",
        iterations=passes,
        warmup=50,
        batch_size=batch,
        output=str(folder / f"{model.stem}-b{batch}.dld-report.json"),
    )
    result = run_activity(spec, on_log=lambda line: line.level == "warning" and print(f"  [warning] {line.message}"))
    if not result.ok or not result.report_path:
        raise SystemExit(f"{model.name}: profiling failed ({result.error_kind}): {result.error}")
    return load_report(result.report_path)


def check(model: Path, batch: int, passes: int, rounds: int, block: int, folder: Path) -> dict[str, Any]:
    report = profiled(model, batch, passes, folder)
    ours_ab, bare_ab, block_ratios = side_by_side(model, batch, 4 * passes, block)
    s = report.summary
    rows = {layer.name: layer.median_ms for layer in report.layers if layer.name in COPY_ROWS}
    layer_sum = sum(layer.median_ms for layer in report.layers)
    pass_ms = s.profiled_median_ms or s.median_ms
    trailing_zero = [m.name for m in report.gpu_metrics if len(m.values) > 1 and m.values[-1] == 0 and any(m.values)]
    gpm = [m.values for m in report.gpu_metrics if m.name.startswith("gpm_")]
    all_zero = sum(1 for row in zip(*gpm, strict=False) if not any(row))  # GPM's "interval too short" answer
    if all_zero:
        print(f"  {all_zero} GPM interval(s) where every metric read 0", flush=True)
    for m in report.gpu_metrics:  # where a series ends against the median pass and the last pass (ms)
        if m.name in trailing_zero:
            print(f"  {m.name}: last samples {list(zip(m.times[-3:], m.values[-3:], strict=True))}", flush=True)
    # Interleave: bare process, profiler run, bare process, ... (the first profiler run is the report above).
    bare: list[float] = []
    ours = [s.median_ms]
    for round_index in range(rounds):
        bare.append(bare_loop(model, batch, passes))
        if round_index < rounds - 1:
            ours.append(profiled(model, batch, passes, folder).summary.median_ms)
    ratio = ours_ab / bare_ab
    result = {
        "model": model.stem,
        "batch": batch,
        "copies_ms": rows,
        "profiled_pass_ms": pass_ms,
        "layers_sum_ms": layer_sum,
        "accounted": layer_sum / pass_ms if pass_ms else 0.0,
        "gpm_samples": {m.name: len(m.values) for m in report.gpu_metrics},
        "trailing_zero": trailing_zero,
        "side_by_side_ms": {"ours": ours_ab, "bare": bare_ab},
        "block_ratio_range": [min(block_ratios), max(block_ratios)],
        "ratio": ratio,
        "fresh_process_ours_ms": ours,
        "fresh_process_bare_ms": bare,
        "fresh_process_ratio": statistics.median(ours) / statistics.median(bare),
        "overhead_within_noise": s.overhead_within_noise,
    }
    print(
        f"{model.stem:<14} b{batch:<3} copies {', '.join(f'{k} {v:.3f}' for k, v in rows.items()) or 'NONE'} | "
        f"layers {layer_sum:.3f} of pass {pass_ms:.3f} ms ({100 * result['accounted']:.1f} %) | "
        f"GPM trailing zero: {trailing_zero or 'none'} | side by side: ours {ours_ab:.4f} vs bare {bare_ab:.4f} ms "
        f"-> ratio {ratio:.3f} (block ratios {min(block_ratios):.3f}-{max(block_ratios):.3f}) | fresh processes: "
        f"ours {[round(v, 4) for v in ours]}, bare {[round(v, 4) for v in bare]}",
        flush=True,
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet8,resnet18,bert")
    parser.add_argument("--batches", default="1,32")
    parser.add_argument("--passes", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3, help="fresh bare-loop processes and profiler runs")
    parser.add_argument("--block", type=int, default=25, help="passes per block in the side-by-side comparison")
    args = parser.parse_args()
    import onnxruntime

    print("onnxruntime", onnxruntime.__version__, onnxruntime.get_available_providers(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        builders = {
            "resnet8": lambda batch: ROOT / "dld_jupyter" / "models" / "resnet8_cifar.onnx",
            "resnet18": lambda batch: export_resnet18(folder),
            "bert": lambda batch: export_bert(folder, batch),
        }
        results = []
        for name in args.models.split(","):
            for batch in (int(b) for b in args.batches.split(",")):
                model = builders[name](batch)
                if model is None:
                    break
                results.append(check(model, batch, args.passes, args.rounds, args.block, folder))
    bad = [
        r
        for r in results
        if not r["copies_ms"] or abs(1 - r["accounted"]) > 0.05 or r["trailing_zero"] or abs(1 - r["ratio"]) > 0.02
    ]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
