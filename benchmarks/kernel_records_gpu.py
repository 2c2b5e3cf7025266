"""Kernel records on a GPU (issue 32): CUPTI kernels tied to ONNX Runtime nodes, their time against the pass, and
Tensor Core kernels against GPM's tensor activity.

    python benchmarks/kernel_records_gpu.py slim-ort onnxruntime_gpu-1.31.1-…whl -o .gpu/ort-sm90.tar.xz   # here
    python benchmarks/kernel_records_gpu.py strip MODEL.onnx [...] -o DIR   # here: weights out, shapes kept
    python benchmarks/kernel_records_gpu.py run DIR -o OUT                   # on the GPU (onnxruntime-gpu, cupti)
    python benchmarks/kernel_records_gpu.py overhead DIR [--code CHECKOUT]   # on the GPU: CUPTI's cost (issue 35)

`slim-ort` makes the 256 MB onnxruntime-gpu wheel travel in two device calls instead of six: the CUDA provider's
cubins for other architectures than sm_90 (Hopper) are zeroed in place (offsets unchanged, so the library loads as
built), libonnxruntime.so (the C API; Python does not load it) and the TensorRT provider are left out, and the rest
is xz-compressed: 61 MB, split into parts under what one call carries and unpacked with `xz -d | tar x` there.
`strip` writes each model with its float weights emptied (shape, type and every integer tensor kept) so the
ResNet-50 and BERT-base exports travel in kilobytes; `run` refills them with seeded random values (the exports'
weights are random too) and profiles, through the product's profile kind in this process, ResNet-18 at batch 32, the
BERT-base encoder and the FP16 conversion of ResNet-50 (made here with `dld convert-fp16`). Per model, over the
measured passes kept, it prints summed kernel time against the GPU time less copies, both as busy time (the union of
all GPU activity: does the kernel table account for the GPU's work?) and as span (first GPU record to last: idle
gaps, where the GPU waits for the host, included); the share of kernels tied to exactly one ONNX node; Tensor Core
kernels and GPM tensor activity; the top kernels; and the profiled median without kernel records (CUPTI's cost).
Raw records of each run (to redo the linking offline) and a small ResNet-50 FP16 report (the test fixture) go to OUT.

`overhead` (issue 35), on the lent H200 (driver 580.159.04, onnxruntime-gpu 1.31.1, cupti-python 13.0.1), BERT-base
export at batch 1, 100 passes, one process per round: at 197ef26 (CUPTI on during the profiled passes) the profiled
median was 14.88 / 11.64 / 14.36 ms with records against 8.49 / 8.12 / 8.29 without (+73 %); with kernel passes of
their own, 7.86 ms with against 7.89 ms without (medians of 17 runs each, 11 with records first in the process and 6
without first; −0.5 %; with/without per process 0.95 when records ran first, 1.06 when second), the kernel passes
themselves 8.0–10.2 ms (CUPTI included; 14–16 ms in the two runs whose process ran at the H200's slow speed).

Two device calls, as run on the H100 (the second within 30 s of the first, while /tmp survives):
    here:   slim-ort …whl -o /tmp/ort.tar.xz && split -b 48000000 -d -a 1 /tmp/ort.tar.xz .gpu/krpart
            pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_17_x86_64 \
                -d .whl cupti-python==13.0.1 pyelftools   # cuda-bindings, nvidia-cuda-cupti are on the machine
            dld convert-fp16 resnet50.onnx -o resnet50_fp16.onnx --no-compare; strip resnet18.onnx bert_base.onnx
                resnet50_fp16.onnx -o .kr/models   (the exports of scripts/export_real_models.py --set bench)
    call 1 (carry .gpu/krpart0): mkdir -p /tmp/ort && cp .gpu/krpart0 /tmp/ort/
    call 2 (carry .gpu/krpart1 .whl .kr): cp .gpu/krpart1 /tmp/ort/ && mkdir -p /tmp/ortgpu &&
            cat /tmp/ort/krpart* | xz -d | tar xf - -C /tmp/ortgpu &&
            python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl &&
            PYTHONPATH=/tmp/ortgpu:/tmp/site:$PWD \
            LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib:$LD_LIBRARY_PATH \
            python3 benchmarks/kernel_records_gpu.py run .kr/models -o $OUT
"""

from __future__ import annotations

import argparse
import dataclasses
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


def slim_ort(wheel: Path, out: Path, arch: int = 90) -> None:
    """The wheel's onnxruntime package, cubins of other architectures zeroed, as one .tar.xz (see the docstring)."""
    import io
    import lzma
    import struct
    import tarfile
    import zipfile

    def zero_other_archs(data: bytearray) -> int:
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        entsize, count, names = struct.unpack_from("<HHH", data, 0x3A)
        sections = [struct.unpack_from("<IIQQQQ", data, shoff + i * entsize) for i in range(count)]
        strtab = sections[names][4]
        zeroed = 0
        for name, _, _, _, offset, size in sections:
            if data[strtab + name : strtab + name + 11] != b".nv_fatbin\0":
                continue
            at, end = offset, offset + size
            while at < end:
                magic, _, header, length = struct.unpack_from("<IHHQ", data, at)
                if magic != 0xBA55ED50:  # padding between containers
                    at += 8
                    continue
                entry, last = at + header, at + header + length
                while entry < last:
                    _, _, entry_header, payload = struct.unpack_from("<HHIQ", data, entry)
                    if struct.unpack_from("<I", data, entry + 28)[0] != arch:
                        data[entry + entry_header : entry + entry_header + payload] = bytes(payload)
                        zeroed += payload
                    entry += entry_header + payload
                at = last
        return zeroed

    with (
        zipfile.ZipFile(wheel) as archive,
        lzma.open(out, "wb", preset=9) as packed,
        tarfile.open(fileobj=packed, mode="w") as tar,
    ):
        for item in archive.infolist():
            name = item.filename
            if item.is_dir() or "libonnxruntime.so" in name or "providers_tensorrt" in name:
                continue
            data = bytearray(archive.read(item))
            if name.endswith("libonnxruntime_providers_cuda.so"):
                print(f"{name}: {zero_other_archs(data) / 1e6:.0f} MB of other architectures' cubins zeroed")
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755 if name.endswith(".so") else 0o644
            tar.addfile(info, io.BytesIO(bytes(data)))
    print(f"{out}: {out.stat().st_size / 1e6:.1f} MB")


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


def busy_ms(records: list[Any]) -> float:
    """Time at least one GPU activity ran (the union of their intervals), ms."""
    total, current = 0.0, None
    for start, end in sorted((r.start_ms, r.start_ms + r.duration_ms) for r in records):
        if current is None or start > current[1]:
            total += 0.0 if current is None else current[1] - current[0]
            current = [start, end]
        else:
            current[1] = max(current[1], end)
    return total + (current[1] - current[0] if current is not None else 0.0)


def figures(report: Any) -> dict[str, Any]:
    """Over the measured passes kept: kernel time against the GPU time less copies (busy: the union of all GPU
    activity; span: first GPU record to last, GPU idle gaps included), links, Tensor Cores."""
    per_pass: dict[int, list[Any]] = {}
    for record in report.kernels:
        per_pass.setdefault(record.pass_index, []).append(record)
    busy, span, sums = [], [], []
    for records in per_pass.values():
        kernels = sum(r.duration_ms for r in records if r.kind == "kernel")
        copies = sum(r.duration_ms for r in records if r.kind == "memcpy")
        first_to_last = max(r.start_ms + r.duration_ms for r in records) - min(r.start_ms for r in records)
        busy.append(kernels / (busy_ms(records) - copies))
        span.append(kernels / (first_to_last - copies))
        sums.append(kernels)
    node_layers = {i for i, layer in enumerate(report.layers) if layer.onnx_nodes}
    kernels = [r for r in report.kernels if r.kind == "kernel"]
    tc = [r for r in kernels if r.tensor_core]

    def spread(values: list[float]) -> str:
        if not values:
            return "-"
        return f"median {statistics.median(values):.4f} (min {min(values):.4f}, max {max(values):.4f})"

    return {
        "passes": len(per_pass),
        "kernels_per_pass": len(kernels) / max(1, len(per_pass)),
        "kernel_ms_per_pass": spread(sums),
        "kernel_vs_gpu_busy_less_copies": spread(busy),
        "kernel_vs_gpu_span_less_copies": spread(span),
        "tied_to_one_onnx_node": sum(1 for r in kernels if r.layer in node_layers) / max(1, len(kernels)),
        "tensor_core_kernels_per_pass": len(tc) / max(1, len(per_pass)),
        "tensor_core_share_of_kernel_time": sum(r.duration_ms for r in tc)
        / max(1e-12, sum(k.duration_ms for k in kernels)),
        "capture": {k: v for k, v in report.kernel_capture.items() if k not in ("errors", "kept_passes")},
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

    def recording_link(recorder: Any, windows: Any, median: int, limit: int = 0, passes_ms: Any = ()) -> Any:
        recorder.stop()
        raw = {"activities": recorder.activities, "calls": recorder.calls, "windows": windows, "median": median,
               "offset_ns": recorder.offset_ns, "version": recorder.version, "errors": recorder.errors[:20]}
        with gzip.open(out / f"raw_{state['name']}.pkl.gz", "wb") as file:
            pickle.dump(raw, file)
        return real_link(recorder, windows, median, state["limit"], passes_ms)

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
            if limit >= 10_000:  # what CUPTI costs the profiled passes: the same run without kernel records
                bare = run_profile(dataclasses.replace(spec, kernel_records=False), PrintReporter())
                print(f"  without kernel records: profiled median {bare.summary.profiled_median_ms:.3f} ms, plain "
                      f"median {bare.summary.median_ms:.3f} ms")
        except Exception as error:
            import traceback

            traceback.print_exc()
            print(f"  FAILED: {error}")


def overhead(folder: Path, file: str, iterations: int, rounds: int, label: str) -> None:
    """CUPTI's cost in the layer table (issue 35): per round, the same profile with kernel records on and off in this
    process, on first in even rounds and off first in odd ones (on the H200 the second run of a process was the
    slower one either way); one JSON line each (`profiled_median_ms` is the run the layer table comes from)."""
    import json

    from dld_jupyter.activities.kinds.profile import run_profile
    from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec

    work = Path("/tmp/kr_models")
    work.mkdir(exist_ok=True)
    model = work / file if (work / file).exists() else refill(folder / file, work)
    for number in range(rounds):
        for records in (True, False) if number % 2 == 0 else (False, True):
            spec = OrtProfileSpec(model=str(model), provider="cuda", iterations=iterations, warmup=20,
                                  kernel_records=records, gpu_metrics=False, output=f"/tmp/overhead_{label}.json")
            report = run_profile(spec, PrintReporter())
            capture = report.kernel_capture
            own = capture.get("passes_ms") or []
            print(json.dumps({
                "code": label, "round": number, "order": "on first" if number % 2 == 0 else "off first",
                "kernel_records": records, "model": file,
                "profiled_median_ms": round(report.summary.profiled_median_ms or 0.0, 4),
                "plain_median_ms": round(report.summary.median_ms, 4),
                "kernel_series": capture.get("series", "profiled" if capture else "none"),
                "kernel_passes": capture.get("passes", 0),
                "kernel_pass_median_ms": round(statistics.median(own), 4) if own else None,
                "kernels_per_pass": capture.get("kernels", 0) / max(1, capture.get("passes", 1)),
            }), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", required=True)
    s = sub.add_parser("strip")
    s.add_argument("models", nargs="+", type=Path)
    s.add_argument("-o", "--out", type=Path, required=True)
    o = sub.add_parser("slim-ort")
    o.add_argument("wheel", type=Path)
    o.add_argument("-o", "--out", type=Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("folder", type=Path)
    r.add_argument("-o", "--out", type=Path, required=True)
    r.add_argument("--only", default="")
    c = sub.add_parser("overhead", help="profiled median with and without kernel records, interleaved")
    c.add_argument("folder", type=Path)
    c.add_argument("--model", default="bert_base.onnx")
    c.add_argument("--iterations", type=int, default=100)
    c.add_argument("--rounds", type=int, default=1)
    c.add_argument("--code", type=Path, help="import dld_jupyter from this checkout (e.g. an older commit's)")
    c.add_argument("--label", default="")
    args = parser.parse_args()
    if args.verb == "overhead":
        if args.code:
            sys.path.insert(0, str(args.code.resolve()))
        overhead(args.folder, args.model, args.iterations, args.rounds, args.label or str(args.code or "this"))
        return
    if args.verb == "slim-ort":
        slim_ort(args.wheel, args.out)
    elif args.verb == "strip":
        strip(args.models, args.out)
    else:
        run(args.folder, args.out, set(filter(None, args.only.split(","))) or None)


if __name__ == "__main__":
    main()
