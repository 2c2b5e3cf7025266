"""Export the three models issue 20's done-when names (ResNet-50, BERT-base, a GPT-2-sized decoder) for
`batch_mods_bench.py`, with random weights and fixed seeds (no model hub here).

Runs in the torch venv (torch is large and stays out of the package's environment):

    /work/torchenv/bin/python benchmarks/batch_mods_export.py CACHE_DIR [--only resnet50,bert_base,gpt2]

The architectures and the export path are those of `scripts/export_real_models.py` (one place that knows how to
export torchvision and transformers models here); each model is written once into the cache, as one file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from export_real_models import BENCH, torchvision_model

MODELS: dict[str, Callable[[Path], None]] = {
    "resnet50": torchvision_model("resnet50"),
    "bert_base": BENCH["bert_base"],
    "gpt2": BENCH["gpt2_small"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cache", type=Path)
    parser.add_argument("--only", default="", help="comma-separated names among " + ", ".join(MODELS))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    for name in [n for n in args.only.split(",") if n] or list(MODELS):
        path = args.cache / f"{name}.onnx"
        if not path.exists():
            MODELS[name](path)
        print(f"{path}  {path.stat().st_size / 1e6:.1f} MB", flush=True)


if __name__ == "__main__":
    main()
