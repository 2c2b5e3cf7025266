"""Do a sweep's CUDA points measure the same beside its CPU points as alone? (issue 35: on a lent H200 the ResNet-18
batch-32 CUDA point measured 8.86 ms (p90 9.59) in a `--provider cpu,cuda` sweep against 3.49 ms in a CUDA-only one,
because the CPU point ran beside it; the scheduler now keeps CPU runs apart from GPU runs of a host).

In one process, `--rounds` interleaved rounds of two `dld sweep` commands over the same model and batch sizes: the
mixed one (`--provider cpu,cuda`) and the one of the measured providers only (`--provider cuda`), alternating which
goes first, and a second sweep of the measured providers only (`again`, last in every round): the control. Two sweeps
that run exactly the same points differ by the host's own noise, so the mixed sweep's CUDA points are isolated when
they differ from the CUDA-only sweep no more than the control does. Per measured point it prints the median over
rounds of each sweep's median and p90, the ratio mixed / only beside the control's again / only, and the mixed
point's p90 over its median, against the targets: every median within 3 % of the measured-only one, every p90 within
10 % of its median. Exit 1 when a target is missed (the control's own ratio is printed beside it: on a host whose
noise floor is above 3 % the target cannot be shown there). Figures go to OUT as JSON.

On the GPU machine, from a plain copy of the repo (no install; onnxruntime-gpu made to travel as in
benchmarks/kernel_records_gpu.py, the model's weights stripped here and refilled there with seeded values):

    here:   python benchmarks/kernel_records_gpu.py slim-ort onnxruntime_gpu-1.31.1-…whl -o /tmp/ort.tar.xz &&
            split -b 48000000 -d -a 1 /tmp/ort.tar.xz .gpu/krpart
            python benchmarks/kernel_records_gpu.py strip resnet18.onnx -o .kr/models  # scripts/export_real_models.py
    call 1 (carry .gpu/krpart0): mkdir -p /tmp/ort && cp .gpu/krpart0 /tmp/ort/
    call 2 (carry .gpu/krpart1 .kr): cp .gpu/krpart1 /tmp/ort/ && mkdir -p /tmp/ortgpu &&
            cat /tmp/ort/krpart* | xz -d | tar xf - -C /tmp/ortgpu &&
            PYTHONPATH=/tmp/ortgpu:$PWD \\
            LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib:$LD_LIBRARY_PATH \\
            python3 benchmarks/sweep_isolation_gpu.py .kr/models/resnet18.onnx --rounds 3 -o $OUT

Here (no GPU), the same comparison of CPU points, which only checks that the script runs:

    python benchmarks/sweep_isolation_gpu.py dld_jupyter/models/resnet8_cifar.onnx --provider cpu --rounds 1 -o /tmp/iso
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import onnx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dld_jupyter.activities.sweep import load_manifest  # noqa: E402
from dld_jupyter.cli.main import main as dld  # noqa: E402

MEDIAN_WITHIN, P90_WITHIN = 0.03, 0.10


def weights_filled(model: Path, folder: Path) -> Path:
    """The model itself, or its copy with the weights `kernel_records_gpu.py strip` emptied refilled (seeded)."""
    records = Path(__file__).with_name("kernel_records_gpu.py")
    found = importlib.util.spec_from_file_location("kernel_records_gpu", records)
    assert found is not None and found.loader is not None
    tools = importlib.util.module_from_spec(found)
    found.loader.exec_module(tools)
    stripped = any(t.doc_string == tools.STRIPPED for t in onnx.load(str(model), load_external_data=False)
                   .graph.initializer)
    return Path(tools.refill(model, folder)) if stripped else model


def sweep(model: Path, batch: str, providers: str, iterations: int, out: Path) -> tuple[dict[str, Any], float]:
    """One `dld sweep` command; its finished points by (batch, provider) and its wall time."""
    started = time.monotonic()
    code = dld(["sweep", str(model), "--batch", batch, "--provider", providers, "--iterations", str(iterations),
                "--out", str(out), "--rerun"])
    took = time.monotonic() - started
    if code != 0:
        raise SystemExit(f"dld sweep --provider {providers} exited {code}")
    points = {f"b{p.point.batch}-{p.point.provider}": {"median_ms": p.median_ms, "p90_ms": p.p90_ms}
              for p in load_manifest(out).points if p.state == "done"}
    return points, took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path)
    parser.add_argument("--batch", default="1,8,32")
    parser.add_argument("--provider", default="cpu,cuda", help="the mixed sweep's providers")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-o", "--out", type=Path, default=Path(tempfile.mkdtemp(prefix="sweep-isolation-")))
    args = parser.parse_args()
    providers = [p.strip() for p in args.provider.split(",") if p.strip()]
    measured = [p for p in providers if p != "cpu"] or ["cpu"]  # a CPU-only run here compares CPU points
    args.out.mkdir(parents=True, exist_ok=True)
    model = weights_filled(args.model, args.out)
    rounds: list[dict[str, Any]] = []
    for index in range(args.rounds):
        order = [("mixed", ",".join(providers)), ("only", ",".join(measured))]
        figures: dict[str, Any] = {}
        for name, chosen in [*(order if index % 2 == 0 else order[::-1]), ("again", ",".join(measured))]:
            points, took = sweep(model, args.batch, chosen, args.iterations, args.out / f"round{index}-{name}")
            figures[name], figures[f"{name}_wall_s"] = points, round(took, 1)
        rounds.append(figures)
        print(f"round {index}: mixed sweep {figures['mixed_wall_s']} s, {'/'.join(measured)}-only "
              f"{figures['only_wall_s']} s, again {figures['again_wall_s']} s", flush=True)
    keys = sorted({k for r in rounds for k in r["only"] if k.split("-", 1)[1] in measured},
                  key=lambda k: (k.split("-", 1)[1], int(k.split("-")[0][1:])))
    missed: list[str] = [] if keys else [f"no {'/'.join(measured)} point finished (none was measured)"]
    table: list[dict[str, Any]] = []
    print(f"\n{'point':<12}{'mixed median':>14}{'p90':>9}{'only median':>13}{'p90':>9}{'again':>9}{'ratio':>8}"
          f"{'control':>9}{'p90/med':>9}")
    for key in keys:
        got = {name: [r[name][key] for r in rounds if key in r[name]] for name in ("mixed", "only", "again")}
        if not all(got.values()):
            missed.append(f"{key}: did not finish in every sweep")
            continue
        row = {name: {stat: statistics.median(p[stat] for p in got[name]) for stat in ("median_ms", "p90_ms")}
               for name in got}
        ratio = row["mixed"]["median_ms"] / row["only"]["median_ms"]
        control = row["again"]["median_ms"] / row["only"]["median_ms"]
        spread = row["mixed"]["p90_ms"] / row["mixed"]["median_ms"]
        table.append({"point": key, **row, "ratio": ratio, "control_ratio": control, "p90_over_median": spread,
                      "rounds": {name: got[name] for name in got}})
        print(f"{key:<12}{row['mixed']['median_ms']:>14.3f}{row['mixed']['p90_ms']:>9.3f}"
              f"{row['only']['median_ms']:>13.3f}{row['only']['p90_ms']:>9.3f}{row['again']['median_ms']:>9.3f}"
              f"{ratio:>8.3f}{control:>9.3f}{spread:>9.3f}")
        if abs(ratio - 1) > MEDIAN_WITHIN:
            missed.append(f"{key}: median {ratio:.3f}x the {'/'.join(measured)}-only sweep's (target within 3 %;"
                          f" the control sweep of the same points: {control:.3f}x)")
        if spread - 1 > P90_WITHIN:
            missed.append(f"{key}: p90 {spread:.3f}x its median (target within 10 %)")
    (args.out / "sweep_isolation.json").write_text(json.dumps({"model": str(args.model), "rounds": rounds,
                                                               "points": table, "missed": missed}, indent=2))
    print("\n" + ("\n".join(f"MISSED {m}" for m in missed) if missed else "every target met"))
    print(f"figures: {args.out / 'sweep_isolation.json'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
