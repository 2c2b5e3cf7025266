"""Profiling truth on a GPU (issue 16): copies as rows, figures that add up, no fabricated GPM sample, and the
profiler's plain-pass median against a bare onnxruntime loop.

    python benchmarks/gpu_truth_check.py [--models resnet8,resnet18,bert] [--batches 1,32] [--passes 500]

Needs onnxruntime-gpu (../shared/GPU.md). Per model and batch size it profiles with the CUDA provider through the
whole engine (worker process, report file) and prints:
- the two copy rows (H2D before the first kernel, D2H after the last) and the share of the profiled median pass
  that the layer rows (copies included) account for (target: within 5 %);
- every GPU metric series' sample count and last value (a trailing 0 after nonzero samples is the old bug);
- the profiler's median pass (plain session) against a bare `session.run` loop on the same inputs, in
  interleaved rounds. Each bare loop runs in a fresh process, as each profiling run does (its worker): measured on
  an H100, the median of a 300-pass bare loop differs by up to 35 % from one fresh process to the next (batch 1;
  4-10 % at batch 32), pinned to one CPU or not, cuDNN algorithm search exhaustive or heuristic, so a bare loop in
  this long-lived process would compare one draw against another. The ratio is of the medians over the rounds.
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dld_jupyter.activities import OrtProfileSpec, run_activity  # noqa: E402
from dld_jupyter.activities.backends.ort_report import COPY_ROWS  # noqa: E402
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


def export_bert(folder: Path) -> Path | None:
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

    path = folder / "bert_base.onnx"
    ids = torch.randint(0, 30522, (1, 128))
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
from dld_jupyter.activities.backends.ort_inputs import random_feeds
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


def check(model: Path, batch: int, passes: int, rounds: int, folder: Path) -> dict[str, Any]:
    report = profiled(model, batch, passes, folder)
    s = report.summary
    rows = {layer.name: layer.median_ms for layer in report.layers if layer.name in COPY_ROWS}
    layer_sum = sum(layer.median_ms for layer in report.layers)
    pass_ms = s.profiled_median_ms or s.median_ms
    trailing_zero = [m.name for m in report.gpu_metrics if len(m.values) > 1 and m.values[-1] == 0 and any(m.values)]
    # Interleave: bare process, profiler run, bare process, ... (the first profiler run is the report above).
    bare: list[float] = []
    ours = [s.median_ms]
    for round_index in range(rounds):
        bare.append(bare_loop(model, batch, passes))
        if round_index < rounds - 1:
            ours.append(profiled(model, batch, passes, folder).summary.median_ms)
    ratio = statistics.median(ours) / statistics.median(bare)
    result = {
        "model": model.stem,
        "batch": batch,
        "copies_ms": rows,
        "profiled_pass_ms": pass_ms,
        "layers_sum_ms": layer_sum,
        "accounted": layer_sum / pass_ms if pass_ms else 0.0,
        "gpm_samples": {m.name: len(m.values) for m in report.gpu_metrics},
        "trailing_zero": trailing_zero,
        "ours_ms": ours,
        "bare_ms": bare,
        "ratio": ratio,
        "overhead_within_noise": s.overhead_within_noise,
    }
    print(
        f"{model.stem:<14} b{batch:<3} copies {', '.join(f'{k} {v:.3f}' for k, v in rows.items()) or 'NONE'} | "
        f"layers {layer_sum:.3f} of pass {pass_ms:.3f} ms ({100 * result['accounted']:.1f} %) | "
        f"GPM trailing zero: {trailing_zero or 'none'} | ours {statistics.median(ours):.4f} vs bare "
        f"{statistics.median(bare):.4f} ms -> ratio {ratio:.3f} (ours {[round(v, 4) for v in ours]}, "
        f"bare {[round(v, 4) for v in bare]})",
        flush=True,
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet8,resnet18,bert")
    parser.add_argument("--batches", default="1,32")
    parser.add_argument("--passes", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9, help="interleaved bare-loop processes and profiler runs")
    args = parser.parse_args()
    import onnxruntime

    print("onnxruntime", onnxruntime.__version__, onnxruntime.get_available_providers(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        builders = {
            "resnet8": lambda: ROOT / "dld_jupyter" / "models" / "resnet8_cifar.onnx",
            "resnet18": lambda: export_resnet18(folder),
            "bert": lambda: export_bert(folder),
        }
        results = []
        for name in args.models.split(","):
            model = builders[name]()
            if model is None:
                continue
            for batch in (int(b) for b in args.batches.split(",")):
                results.append(check(model, batch, args.passes, args.rounds, folder))
    bad = [r for r in results if not r["copies_ms"] or abs(1 - r["accounted"]) > 0.05 or r["trailing_zero"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
