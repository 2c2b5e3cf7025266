"""Batch modifications on the models issue 20's done-when names: ResNet-50 (torchvision), BERT-base and GPT-2 small
(transformers), random weights, fixed seeds.

Run: ``python benchmarks/batch_mods_bench.py [--cache DIR] [--torch-python PATH] [--only resnet50,bert_base,gpt2]``.
Models are exported once by ``batch_mods_export.py`` in the torch venv (``--torch-python``, default
/work/torchenv/bin/python) into the cache (``$DLD_BENCH_CACHE`` or ~/.cache/dld_jupyter/batch_mods), never into
the repository. Per model it prints:
- FP16: the float16 share of weight elements (target >= 90 %), onnx.checker (full check) on the written file,
  whether onnxruntime runs it, the largest absolute / relative output difference the transform reports and the
  same figures measured here independently (onnxruntime sessions of both files on the same inputs), seconds;
- sanitize: nodes before / after, whether the outputs are equal within 1e-5 (reported and measured), seconds;
- designer: each transform applied to an open Document is one undo step that undo reverts (node count back).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from dld_jupyter.document import Document
from dld_jupyter.transforms import get
from dld_jupyter.transforms.compare import random_inputs
from dld_jupyter.transforms.fp16 import convert_to_fp16, fp16_share
from dld_jupyter.transforms.sanitize import sanitize

HERE = pathlib.Path(__file__).resolve().parent
MODELS = ("resnet50", "bert_base", "gpt2")


def cache_dir(given: str | None) -> pathlib.Path:
    default = pathlib.Path.home() / ".cache" / "dld_jupyter" / "batch_mods"
    return pathlib.Path(given or os.environ.get("DLD_BENCH_CACHE") or default)


def export(cache: pathlib.Path, names: list[str], torch_python: str) -> None:
    missing = [n for n in names if not (cache / f"{n}.onnx").exists()]
    if missing:
        command = [torch_python, str(HERE / "batch_mods_export.py"), str(cache), "--only", ",".join(missing)]
        subprocess.run(command, check=True)


def run_outputs(path: pathlib.Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def independent(source: pathlib.Path, other: pathlib.Path) -> dict[str, tuple[float, float, bool]]:
    """(max abs, max rel, all finite) per output, measured here with onnxruntime on both files."""
    feeds = random_inputs(onnx.load(str(source), load_external_data=False), 0)
    a, b = run_outputs(source, feeds), run_outputs(other, feeds)
    out = {}
    for name, ref in a.items():
        x, y = ref.astype(np.float64), b[name].astype(np.float64)
        delta = np.abs(x - y)
        rel = delta / np.maximum(np.abs(x), np.finfo(np.float32).tiny)
        out[name] = (float(delta.max()), float(rel.max()), bool(np.isfinite(y).all()))
    return out


def fp16_row(path: pathlib.Path, work: pathlib.Path) -> dict[str, Any]:
    out = work / f"{path.stem}_fp16.onnx"
    start = time.perf_counter()
    result = convert_to_fp16(path, out)
    seconds = time.perf_counter() - start
    onnx.checker.check_model(str(out), full_check=True)
    measured = independent(path, out)
    assert result.comparison is not None
    reported = {o.name: (o.max_abs, o.max_rel, not o.went_nonfinite) for o in result.comparison.outputs}
    agree = all(
        np.isclose(reported[n][0], m[0], rtol=1e-9, atol=1e-12) and np.isclose(reported[n][1], m[1], rtol=1e-9)
        for n, m in measured.items()
    )
    return {
        "fp16 share": f"{result.fp16_weight_share:.1%} (file: {fp16_share(onnx.load(str(out))):.1%})",
        "checker": "OK",
        "ort runs": result.comparison.error is None,
        "casts": result.casts_inserted,
        "converted": result.tensors_converted,
        "beyond fp16": f"{result.beyond_fp16} (largest |v| {result.largest_abs:.3g})",
        "outputs": {n: f"abs {r[0]:.3g} rel {r[1]:.3g} finite {r[2]}" for n, r in reported.items()},
        "matches independent": agree,
        "seconds": round(seconds, 1),
    }


def sanitize_row(path: pathlib.Path, work: pathlib.Path) -> dict[str, Any]:
    out = work / f"{path.stem}_sanitized.onnx"
    start = time.perf_counter()
    result = sanitize(path, out)
    seconds = time.perf_counter() - start
    measured = independent(path, out)
    return {
        "nodes": f"{result.nodes_before} -> {result.nodes_after}",
        "passes": len(result.pass_counts),
        "folded/removed": f"{len(result.folded)}/{len(result.removed)}",
        "equal 1e-5 (reported)": result.outputs_equal,
        "equal 1e-5 (measured)": all(m[0] <= 1e-5 and m[2] for m in measured.values()),
        "max abs (measured)": max(m[0] for m in measured.values()),
        "seconds": round(seconds, 1),
    }


def designer_row(path: pathlib.Path) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for name in ("convert_fp16", "sanitize"):
        doc = Document.open(path)
        count = len(doc.nodes())
        start = time.perf_counter()
        get(name).apply(doc, compare=False)
        applied = time.perf_counter() - start
        steps, after = len(doc.history), len(doc.nodes())
        doc.undo()
        row[name] = f"{steps} step, nodes {count} -> {after}, undo -> {len(doc.nodes())}, {applied:.1f} s"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", default=None)
    parser.add_argument("--torch-python", default="/work/torchenv/bin/python")
    parser.add_argument("--only", default="", help="comma-separated among " + ", ".join(MODELS))
    parser.add_argument("--no-designer", action="store_true", help="skip the undo-step check on open documents")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    cache = cache_dir(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    export(cache, names, args.torch_python)
    with tempfile.TemporaryDirectory() as folder:
        work = pathlib.Path(folder)
        for name in names:
            path = cache / f"{name}.onnx"
            print(f"== {name} ({path.stat().st_size / 1e6:.0f} MB)", flush=True)
            print("  fp16:     ", fp16_row(path, work), flush=True)
            print("  sanitize: ", sanitize_row(path, work), flush=True)
            if not args.no_designer:
                print("  designer: ", designer_row(path), flush=True)
            for file in work.iterdir():
                file.unlink()


if __name__ == "__main__":
    main()
