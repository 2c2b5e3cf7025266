"""GPU check of the profiler: CUDA execution provider profile with NVML/GPM metric rows, printed as a table.

    python benchmarks/gpu_profile_check.py                  # generated ResNet (batch 64), CUDA EP, metrics
    python benchmarks/gpu_profile_check.py --lock-clocks    # also lock clocks to base (restored afterwards)
    python benchmarks/gpu_profile_check.py --nvml-only      # NVML sampler around a torch matmul load (no ORT-GPU)

Needs onnxruntime-gpu (see ../shared/GPU.md) except with --nvml-only. Exit status 1 when no metric row has a
nonzero value inside the measured passes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dld_jupyter.activities import OrtProfileSpec, run_activity  # noqa: E402
from dld_jupyter.activities.gpu.nvml import MetricsSampler, device_info, now_us  # noqa: E402
from dld_jupyter.report_format.model import MetricSeries  # noqa: E402


def print_rows(series: list[MetricSeries], window_ms: tuple[float, float]) -> int:
    """One row per metric; returns how many rows have a nonzero value inside the window."""
    low, high = window_ms
    print(
        f"{'metric':<22} {'unit':<6} {'samples':>7} {'in window':>9} {'nonzero':>7} {'min':>9} {'mean':>9} {'max':>9}"
    )
    filled = 0
    for s in series:
        inside = [v for t, v in zip(s.times_ms, s.values, strict=True) if low <= t <= high]
        nonzero = sum(1 for v in inside if v > 0)
        filled += nonzero > 0
        values = inside or [0.0]
        print(
            f"{s.name:<22} {s.unit:<6} {len(s.values):>7} {len(inside):>9} {nonzero:>7} "
            f"{min(values):>9.2f} {sum(values) / len(values):>9.2f} {max(values):>9.2f}"
        )
    return filled


def nvml_only(args: argparse.Namespace) -> int:
    import torch

    print(device_info(args.device))
    a = torch.randn(8192, 8192, device=f"cuda:{args.device}", dtype=torch.float16)
    sampler = MetricsSampler(args.device, 100.0)
    sampler.start()
    origin = now_us()
    end = time.perf_counter() + args.seconds
    while time.perf_counter() < end:
        (a @ a).sum().item()
    sampler.stop()
    print("notes:", sampler.notes)
    filled = print_rows(sampler.series(origin), (0.0, args.seconds * 1000.0))
    return 0 if filled else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="ONNX model (default: generated ResNet-like, blocks=6)")
    parser.add_argument("-n", "--iterations", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--lock-clocks", action="store_true")
    parser.add_argument("--nvml-only", action="store_true", help="check NVML sampling under a torch load")
    parser.add_argument("--seconds", type=float, default=2.0, help="--nvml-only load duration")
    args = parser.parse_args()
    if args.nvml_only:
        return nvml_only(args)
    import onnx
    import onnxruntime

    print("onnxruntime", onnxruntime.__version__, onnxruntime.get_available_providers())
    with tempfile.TemporaryDirectory() as folder:
        model = args.model
        if not model:
            from tests import models

            model = str(Path(folder) / "resnet_like.onnx")
            onnx.save(models.resnet_like(6), model)
        spec = OrtProfileSpec(
            model=model,
            provider="cuda",
            iterations=args.iterations,
            batch_size=args.batch_size,
            device=args.device,
            lock_clocks=args.lock_clocks,
            output=str(Path(folder) / "gpu.dld-report.json"),
        )
        result = run_activity(spec, on_log=lambda line: print(f"[{line.level}] {line.message}"))
        if not result.ok or not result.report_path:
            print(f"FAILED ({result.error_kind}): {result.error}")
            return 1
        from dld_jupyter.cli.prof import triage
        from dld_jupyter.report_format.io import load_report

        report = load_report(result.report_path)
    print(triage(report, 8))
    print("\nsystem:", {k: v for k, v in report.system.items() if k != "libraries"})
    s = report.summary
    # The metrics cover every profiled pass; times are relative to the median pass, so the measured window
    # spans roughly [-median_index, passes - median_index] passes around it.
    width = (s.profiled_median_ms or s.median_ms) * s.passes
    print(f"\nGPU metrics ({len(report.gpu_metrics)} series, window ±{width:.0f} ms around the median pass):")
    filled = print_rows(report.gpu_metrics, (-width, width))
    return 0 if filled else 1


if __name__ == "__main__":
    sys.exit(main())
