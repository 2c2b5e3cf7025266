"""Kernel records on a GPU (issue 32): CUPTI kernels tied to ONNX Runtime nodes, their time against the pass, and
Tensor Core kernels against GPM's tensor activity.

    python benchmarks/kernel_records_gpu.py strip MODEL.onnx [...] -o DIR   # here: weights out, shapes kept
    python benchmarks/kernel_records_gpu.py run DIR -o OUT                   # on the GPU (onnxruntime-gpu, cupti)

`strip` writes each model with its float weights emptied (shape, type and every integer tensor kept) so the
ResNet-50 and BERT-base exports travel to the GPU machine in kilobytes; `run` refills them with seeded random values
(the exports' weights are random too) and profiles, through the product's profile kind in this process, ResNet-18 at
batch 32, the BERT-base encoder and the FP16 conversion of ResNet-50 (made here with `dld convert-fp16`). It prints
per model, over the measured passes: summed kernel time against the pass's GPU time minus copies (first GPU record to
last, less memcpy time; target within 5 %), the share of kernels tied to exactly one ONNX node, Tensor Core kernels
and GPM tensor activity; and the top kernels. Reports, and the raw records of each run (to redo the linking
offline), go to OUT; a small report of ResNet-50 FP16 (3 passes kept) is the test fixture candidate.
"""

from __future__ import annotations

import argparse
import gzip
import pickle
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STRIPPED = "dld-stripped-weights"


def strip(paths: list[Path], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for path in paths:
        model = onnx.load(str(path))
        for tensor in model.graph.initializer:
            if tensor.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16) and np.prod(tensor.dims) > 16:
                tensor.ClearField("raw_data")
                tensor.ClearField("float_data")
                tensor.ClearField("int32_data")
                tensor.doc_string = STRIPPED
        onnx.save(model, str(out / path.name))
        print(f"{path.name}: {(out / path.name).stat().st_size / 1e3:.0f} kB")


def refill(path: Path, out: Path, seed: int = 0) -> Path:
    model = onnx.load(str(path))
    rng = np.random.default_rng(seed)
    for tensor in model.graph.initializer:
        if tensor.doc_string == STRIPPED:
            dtype = np.float16 if tensor.data_type == onnx.TensorProto.FLOAT16 else np.float32
            values = rng.uniform(0.01, 0.1, size=tuple(tensor.dims)).astype(dtype)
            tensor.CopyFrom(numpy_helper.from_array(values, tensor.name))
    target = out / path.name
    onnx.save(model, str(target))
    return target


class PrintReporter:
    def progress(self, fraction: float, phase: str) -> None:
        pass

    def log(self, message: str, level: str = "info") -> None:
        print(f"  [{level}] {message}")


def figures(report: Any) -> dict[str, Any]:
    """Per measured pass: kernel time against GPU span minus copies; links; Tensor Cores."""
    per_pass: dict[int, list[Any]] = {}
    for record in report.kernels:
        per_pass.setdefault(record.pass_index, []).append(record)
    ratios, span_less_copies, kernel_sums, wall_ratios = [], [], [], []
    for index, records in per_pass.items():
        kernels = sum(r.duration_ms for r in records if r.kind == "kernel")
        copies = sum(r.duration_ms for r in records if r.kind == "memcpy")
        span = max(r.start_ms + r.duration_ms for r in records) - min(r.start_ms for r in records)
        ratios.append(kernels / (span - copies) if span > copies else float("nan"))
        span_less_copies.append(span - copies)
        kernel_sums.append(kernels)
        del index
    profiled = report.summary.profiled_median_ms or 0.0
    node_layers = {i for i, layer in enumerate(report.layers) if layer.onnx_nodes}
    kernels = [r for r in report.kernels if r.kind == "kernel"]
    tied = sum(1 for r in kernels if r.layer in node_layers)
    median_copies = statistics.median(
        sum(r.duration_ms for r in rs if r.kind == "memcpy") for rs in per_pass.values()
    ) if per_pass else 0.0
    wall_ratios.append(statistics.median(kernel_sums) / (profiled - median_copies) if per_pass and profiled else 0.0)
    tc = [r for r in kernels if r.tensor_core]
    return {
        "passes": len(per_pass),
        "kernels_per_pass": len(kernels) / max(1, len(per_pass)),
        "kernel_ms_median": statistics.median(kernel_sums) if kernel_sums else 0.0,
        "gpu_span_less_copies_ms_median": statistics.median(span_less_copies) if span_less_copies else 0.0,
        "ratio_median": statistics.median(ratios) if ratios else float("nan"),
        "ratio_min": min(ratios) if ratios else float("nan"),
        "ratio_max": max(ratios) if ratios else float("nan"),
        "kernel_vs_profiled_wall_less_copies": wall_ratios[0],
        "tied_to_one_onnx_node": tied / len(kernels) if kernels else 0.0,
        "tensor_core_kernels_per_pass": len(tc) / max(1, len(per_pass)),
        "tensor_core_share_of_kernel_time": sum(r.duration_ms for r in tc)
        / max(1e-12, sum(k.duration_ms for k in kernels)),
        "capture": {k: v for k, v in report.kernel_capture.items() if k != "errors"},
    }


def top_kernels(report: Any, count: int = 12) -> list[tuple[str, float, bool]]:
    time_of: Counter[str] = Counter()
    tensor: dict[str, bool] = {}
    for record in report.kernels:
        if record.kind == "kernel":
            time_of[record.name] += record.duration_ms
            tensor[record.name] = record.tensor_core
    return [(name[:110], ms, tensor[name]) for name, ms in time_of.most_common(count)]


def run(folder: Path, out: Path, only: set[str] | None) -> None:
    from dld_jupyter.activities.kinds.profile import run_profile
    from dld_jupyter.activities.runtimes.onnxruntime import kernels as kernel_glue
    from dld_jupyter.activities.runtimes.onnxruntime import session as session_module
    from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
    from dld_jupyter.report_format.io import save_report

    out.mkdir(parents=True, exist_ok=True)
    work = Path("/tmp/kr_models")
    work.mkdir(exist_ok=True)
    state: dict[str, Any] = {"name": "", "limit": kernel_glue.KERNEL_RECORD_LIMIT}
    real_link = kernel_glue.link_recorded

    def recording_link(recorder: Any, windows: Any, median: int, limit: int = 0) -> Any:
        recorder.stop()
        raw = {"activities": recorder.activities, "calls": recorder.calls, "windows": windows, "median": median,
               "offset_ns": recorder.offset_ns, "version": recorder.version, "errors": recorder.errors[:20]}
        with gzip.open(out / f"raw_{state['name']}.pkl.gz", "wb") as file:
            pickle.dump(raw, file)
        return real_link(recorder, windows, median, state["limit"])

    session_module.link_recorded = recording_link  # type: ignore[assignment]
    from dld_jupyter.activities.gpu import kernel_records

    real_from, seen = kernel_records.activity_from, set()

    def noting_from(cupti: Any, record: Any) -> Any:
        if int(record.kind) not in seen:  # the fields CUPTI offers, once per kind, for the record mapping
            seen.add(int(record.kind))
            names = [n for n in dir(record) if not n.startswith("_")]
            print(f"  cupti kind {int(record.kind)} fields: {names}")
        return real_from(cupti, record)

    kernel_records.activity_from = noting_from  # type: ignore[assignment]
    plan = [
        ("resnet18_b32", "resnet18.onnx", 32, 200, 50_000),
        ("bert_base", "bert_base.onnx", None, 300, 50_000),
        ("resnet50_fp16_b32", "resnet50_fp16.onnx", 32, 200, 50_000),
        ("fixture_resnet50_fp16_b8", "resnet50_fp16.onnx", 8, 60, 600),
    ]
    for name, file, batch, iterations, limit in plan:
        if only and name not in only:
            continue
        state["name"], state["limit"] = name, limit
        print(f"== {name}")
        started = time.perf_counter()
        try:
            model = refill(folder / file, work) if not (work / file).exists() else work / file
            spec = OrtProfileSpec(model=str(model), provider="cuda", batch_size=batch, iterations=iterations,
                                  warmup=20, output=f"/tmp/{name}.dld-report.json")
            report = run_profile(spec, PrintReporter())
            report.summary.model_path = file
            report.summary.settings["model"] = file
            keep = out if limit < 10_000 else Path("/tmp/kr_reports")
            keep.mkdir(exist_ok=True)
            save_report(report, keep / f"{name}.dld-report.json")
            print(f"  profiled median {report.summary.profiled_median_ms:.3f} ms, plain median "
                  f"{report.summary.median_ms:.3f} ms, {time.perf_counter() - started:.1f} s")
            for key, value in figures(report).items():
                print(f"  {key}: {value}")
            gpm = [m for m in report.gpu_metrics if m.name == "gpm_tensor_activity"]
            print(f"  gpm_tensor_activity samples: {gpm[0].values if gpm else 'none'}")
            for kernel, ms, tc in top_kernels(report):
                print(f"    {ms:9.3f} ms {'TC' if tc else '  '} {kernel}")
        except Exception as error:
            import traceback

            traceback.print_exc()
            print(f"  FAILED: {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", required=True)
    s = sub.add_parser("strip")
    s.add_argument("models", nargs="+", type=Path)
    s.add_argument("-o", "--out", type=Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("folder", type=Path)
    r.add_argument("-o", "--out", type=Path, required=True)
    r.add_argument("--only", default="")
    args = parser.parse_args()
    if args.verb == "strip":
        strip(args.models, args.out)
    else:
        run(args.folder, args.out, set(filter(None, args.only.split(","))) or None)


if __name__ == "__main__":
    main()
