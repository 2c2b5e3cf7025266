"""Divergence benchmark: a BERT-base-sized encoder (12 layers, hidden 768, 12 heads, vocab 30522: ~528 MB of float
weights, tests/models.py) against its FP16 conversion (transforms.fp16), sequence 128, on ONNX Runtime CPU.

Run: ``python benchmarks/diverge_bench.py [--window 64] [--layers 12]``. The two models are written by a child
process; the divergence runs in another fresh child that starts from the two paths, as `dld diverge` does, and
reports its peak RSS (ru_maxrss, the whole process: Python, onnxruntime, the sessions, the windows).
Target (issue 30): peak RSS <= both models' weights + 2 x the largest window of activations + 300 MB.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def make(folder: pathlib.Path, layers: int) -> None:
    import numpy as np
    import onnx

    from dld_jupyter.transforms.fp16 import convert_proto
    from tests import models

    model = models.transformer_like(layers=layers, hidden=768, heads=12, vocab=30522)
    onnx.save(model, str(folder / "ref.onnx"))
    fp16, _ = convert_proto(model, compare=False)
    onnx.save(fp16, str(folder / "fp16.onnx"))
    np.save(folder / "ids.npy", np.random.default_rng(0).integers(0, 30522, (1, 128)))


def measure(folder: pathlib.Path, window: int) -> None:
    import resource
    import time

    import numpy as np

    from dld_jupyter.document.files import io as doc_io
    from dld_jupyter.model_compare.divergence import diverge

    def weights(path: pathlib.Path) -> int:  # from the file's structure: no weight is read
        model = doc_io.load(path)
        return sum(v.const_value.nbytes for v in model.graph.initializers.values() if v.const_value is not None)

    sizes = {"reference": weights(folder / "ref.onnx"), "candidate": weights(folder / "fp16.onnx")}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    start = time.perf_counter()
    result = diverge(folder / "ref.onnx", folder / "fp16.onnx", inputs={"input_ids": np.load(folder / "ids.npy")},
                     window=window)
    print(json.dumps({"seconds": time.perf_counter() - start, "weights": sizes, "before": before,
                      "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                      "largest_window": result.largest_window_bytes, "windows": result.windows,
                      "rows": len(result.rows), "headline": result.headline()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--window", type=int, default=64)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--child", choices=["make", "measure"], help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.child == "make":
        make(pathlib.Path(args.folder), args.layers)
        return
    if args.child == "measure":
        measure(pathlib.Path(args.folder), args.window)
        return
    with tempfile.TemporaryDirectory() as folder:
        me = [sys.executable, __file__, "--folder", folder, "--window", str(args.window), "--layers", str(args.layers)]
        subprocess.run([*me, "--child", "make"], check=True)
        out = subprocess.run([*me, "--child", "measure"], check=True, capture_output=True, text=True).stdout
    figures = json.loads(out.strip().splitlines()[-1])
    mb = 1e6
    budget = figures["weights"]["reference"] + figures["weights"]["candidate"] + 2 * figures["largest_window"] + 300e6
    print(f"weights: reference {figures['weights']['reference'] / mb:.0f} MB, candidate "
          f"{figures['weights']['candidate'] / mb:.0f} MB; largest window {figures['largest_window'] / mb:.1f} MB "
          f"({figures['windows']} windows, {figures['rows']} tensors); "
          f"RSS before the run {figures['before'] / mb:.0f} MB")
    print(f"peak RSS {figures['peak'] / mb:.0f} MB (budget {budget / mb:.0f} MB: "
          f"{'within' if figures['peak'] <= budget else 'OVER'}); {figures['seconds']:.1f} s")
    print(figures["headline"])


if __name__ == "__main__":
    main()
