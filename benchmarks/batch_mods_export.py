"""Export the three models issue 20's done-when names (ResNet-50, BERT-base, a GPT-2-sized decoder) for
`batch_mods_bench.py`, with random weights and fixed seeds (no model hub here).

Runs in the torch venv (torch is large and stays out of the package's environment):

    /work/torchenv/bin/python benchmarks/batch_mods_export.py CACHE_DIR [--only resnet50,bert_base,gpt2]

ResNet-50 goes through the TorchScript exporter (opset 17, the classic files most users have); BERT and GPT-2
through the torch.export-based exporter, which is the one transformers 5 attention masks convert with. Each model
is written as one self-contained file (no external data), and only when it is not in the cache yet.
"""

from __future__ import annotations

import argparse
import sys
import types
from pathlib import Path
from typing import Any

# torchvision's PyPI wheel is linked against CUDA torch; with CPU torch its C ops fail to register their fake
# kernels at import. ResNet needs none of those ops, so the registrations are skipped.
sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))

import torch  # noqa: E402


class _Keywords(torch.nn.Module):
    """Calls a transformers model with keyword arguments and returns the named outputs as a tuple."""

    def __init__(self, model: Any, names: list[str], outputs: list[str]) -> None:
        super().__init__()
        self.model, self.names, self.outputs = model, names, outputs

    def forward(self, *args: Any) -> tuple[Any, ...]:
        result = self.model(**dict(zip(self.names, args, strict=True)))
        return tuple(result[name] for name in self.outputs)


def _export(
    model: Any,
    args: tuple[Any, ...],
    path: Path,
    inputs: list[str],
    outputs: list[str],
    dynamic: dict[str, dict[int, str]] | None,
    dynamo: bool,
) -> None:
    model.eval()
    with torch.no_grad():
        torch.onnx.export(
            model,
            args,
            str(path),
            dynamo=dynamo,
            opset_version=18 if dynamo else 17,
            input_names=inputs,
            output_names=outputs,
            dynamic_axes=dynamic,
        )
    if dynamo:
        import onnx

        onnx.save(onnx.load(str(path)), str(path))
        side = path.with_suffix(".onnx.data")
        if side.exists():
            side.unlink()


def resnet50(path: Path) -> None:
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None)
    _export(model, (torch.randn(1, 3, 224, 224),), path, ["input"], ["logits"], {"input": {0: "batch"}}, False)


def bert_base(path: Path) -> None:
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        max_position_embeddings=128,
        attn_implementation="eager",
    )
    names, outputs = ["input_ids", "attention_mask"], ["last_hidden_state", "pooler_output"]
    args = (torch.randint(0, 30522, (1, 16)), torch.ones(1, 16, dtype=torch.int64))
    _export(_Keywords(BertModel(config), names, outputs), args, path, names, outputs, None, True)


def gpt2(path: Path) -> None:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=50257,
        n_embd=768,
        n_layer=12,
        n_head=12,
        n_positions=128,
        use_cache=False,
        attn_implementation="eager",
    )
    args = (torch.randint(0, 50257, (1, 16)),)
    _export(
        _Keywords(GPT2LMHeadModel(config), ["input_ids"], ["logits"]), args, path, ["input_ids"], ["logits"], None, True
    )


MODELS = {"resnet50": resnet50, "bert_base": bert_base, "gpt2": gpt2}


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
