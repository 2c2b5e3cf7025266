"""Export real architectures (torchvision, Hugging Face transformers) with random weights to ONNX.

Users open what PyTorch writes, not hand-built graphs: weight-alias Identity nodes, deep name scopes, fused
attention patterns, function ops (HardSwish). Tests and benchmarks judge features on these files.

    python scripts/export_real_models.py OUT_DIR [--set fixtures|bench] [--only NAME,...]

Needs torch, torchvision and transformers (CPU wheels; run it in a separate venv, they are large). `fixtures` are
the small exports committed under tests/data/real/ (regenerate them with this script); `bench` are the full-size
models the benchmarks use, written to a cache directory and never committed. Seeds are fixed: the same versions
give the same files. GPT-2 is exported with static shapes: the newer exporter cannot turn its dynamic axes into
torch.export dynamic shapes here, nor BERT's.
"""

from __future__ import annotations

import argparse
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

# torchvision's wheel on PyPI is linked against CUDA builds of torch; with the CPU torch wheel its C ops fail to
# load and `import torchvision` dies registering their fake kernels. The architectures used here need none of
# those ops (no NMS), so the registrations are skipped where the ops are missing.
sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))

import torch  # noqa: E402

OPSET = 17


class _Keywords(torch.nn.Module):
    """Calls a transformers model with keyword arguments (their positional order changes between releases)."""

    def __init__(self, model: Any, names: list[str], outputs: list[str]) -> None:
        super().__init__()
        self.model, self.names, self.outputs = model, names, outputs

    def forward(self, *args: Any) -> tuple[Any, ...]:
        result = self.model(**dict(zip(self.names, args, strict=True)))
        return tuple(result[name] for name in self.outputs)


def _export(model: Any, args: tuple[Any, ...], path: Path, inputs: list[str], outputs: list[str],
            dynamic: dict[str, dict[int, str]] | None = None, dynamo: bool = False, **extra: Any) -> None:
    """TorchScript exporter (the classic files most users have) unless `dynamo`: transformers 5 builds its
    attention masks with ops only the newer torch.export-based exporter (onnxscript, opset 18) converts."""
    model.eval()
    with torch.no_grad():
        torch.onnx.export(model, args, str(path), dynamo=dynamo, opset_version=18 if dynamo else OPSET,
                          input_names=inputs, output_names=outputs, dynamic_axes=dynamic, **extra)
    if dynamo:  # the newer exporter may leave weights in a side file: keep one self-contained model
        import onnx

        onnx.save(onnx.load(str(path)), str(path))
        data = path.with_suffix(".onnx.data")
        if data.exists():
            data.unlink()


def torchvision_model(name: str, **kwargs: Any) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        import torchvision

        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None, **kwargs)
        _export(model, (torch.randn(1, 3, 224, 224),), path, ["input"], ["logits"], {"input": {0: "batch"}})

    return build


def mobilenet_v3_small_half_width(path: Path) -> None:
    from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf

    torch.manual_seed(0)
    settings, last = _mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.5)
    model = MobileNetV3(settings, last, num_classes=10)
    _export(model, (torch.randn(1, 3, 96, 96),), path, ["input"], ["logits"], {"input": {0: "batch"}})


def shufflenet_functions(path: Path) -> None:
    import torchvision
    from torchvision.models.shufflenetv2 import InvertedResidual

    torch.manual_seed(0)
    model = torchvision.models.shufflenet_v2_x0_5(weights=None, num_classes=10)
    _export(model, (torch.randn(1, 3, 64, 64),), path, ["input"], ["logits"],
            export_modules_as_functions={InvertedResidual})


def bert(layers: int, hidden: int, heads: int, vocab: int) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        from transformers import BertConfig, BertModel

        torch.manual_seed(0)
        config = BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers,
                            num_attention_heads=heads, intermediate_size=4 * hidden, max_position_embeddings=128,
                            attn_implementation="eager")
        model = BertModel(config)
        ids = torch.randint(0, vocab, (1, 16))
        mask = torch.ones(1, 16, dtype=torch.int64)
        names, outputs = ["input_ids", "attention_mask"], ["last_hidden_state", "pooler_output"]
        _export(_Keywords(model, names, outputs), (ids, mask), path, names, outputs, dynamo=True)  # static: see above

    return build


def gpt2(layers: int, hidden: int, heads: int, vocab: int) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        from transformers import GPT2Config, GPT2LMHeadModel

        torch.manual_seed(0)
        config = GPT2Config(vocab_size=vocab, n_embd=hidden, n_layer=layers, n_head=heads, n_positions=128,
                            use_cache=False, attn_implementation="eager")
        model = GPT2LMHeadModel(config)
        ids = torch.randint(0, vocab, (1, 16))
        wrapped = _Keywords(model, ["input_ids"], ["logits"])
        _export(wrapped, (ids,), path, ["input_ids"], ["logits"], dynamo=True)  # static: see the module note

    return build


def llama(layers: int, hidden: int, heads: int, vocab: int) -> Callable[[Path], None]:
    """A Llama-style decoder (RMSNorm, rotary attention with grouped KV heads, SwiGLU MLP) of `layers` layers."""

    def build(path: Path) -> None:
        from transformers import LlamaConfig, LlamaForCausalLM

        torch.manual_seed(0)
        config = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=hidden * 8 // 3,
                             num_hidden_layers=layers, num_attention_heads=heads,
                             num_key_value_heads=max(1, heads // 2), max_position_embeddings=128, use_cache=False,
                             attn_implementation="eager")
        model = LlamaForCausalLM(config)
        ids = torch.randint(0, vocab, (1, 16))
        _export(_Keywords(model, ["input_ids"], ["logits"]), (ids,), path, ["input_ids"], ["logits"], dynamo=True)

    return build


def vit(path: Path) -> None:
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.vit_b_16(weights=None)
    _export(model, (torch.randn(1, 3, 224, 224),), path, ["input"], ["logits"], dynamo=True)  # fused MHA


class _DetectionHead(torch.nn.Module):
    """SSDlite's backbone and box/class heads without its postprocessing: torchvision's NMS is a C op that does
    not load with the CPU torch wheel here, so the exported graph ends at the raw box regressions and logits."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.backbone, self.head = model.backbone, model.head

    def forward(self, images: Any) -> tuple[Any, Any]:
        features = list(self.backbone(images).values())
        out = self.head(features)
        return out["bbox_regression"], out["cls_logits"]


def ssdlite(path: Path) -> None:
    from torchvision.models.detection import ssdlite320_mobilenet_v3_large

    torch.manual_seed(0)
    model = ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=91)
    _export(_DetectionHead(model), (torch.randn(1, 3, 320, 320),), path, ["images"], ["boxes", "logits"])


def shufflenet_small_functions(path: Path) -> None:
    """ShuffleNet v2 x0.5 for 10 classes with its blocks as local functions: weight-alias Identity nodes and
    functions in one small file (a test fixture)."""
    import torchvision
    from torchvision.models.shufflenetv2 import InvertedResidual

    torch.manual_seed(0)
    model = torchvision.models.shufflenet_v2_x0_5(weights=None, num_classes=10)
    _export(model, (torch.randn(1, 3, 64, 64),), path, ["input"], ["logits"],
            export_modules_as_functions={InvertedResidual})


class ScriptedGRU(torch.nn.Module):
    """A GRU written out step by step and scripted (TorchScript keeps the Python loop and branch): the exporter
    turns the loop over time steps into a Loop and the per-step mask test into an If inside its body."""

    def __init__(self, inputs: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.x2h = torch.nn.Linear(inputs, 3 * hidden)
        self.h2h = torch.nn.Linear(hidden, 3 * hidden)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        for t in range(x.size(0)):
            gx = self.x2h(x[t]).chunk(3, 1)
            gh = self.h2h(h).chunk(3, 1)
            r = torch.sigmoid(gx[0] + gh[0])
            z = torch.sigmoid(gx[1] + gh[1])
            n = torch.tanh(gx[2] + r * gh[2])
            if bool(mask[t] > 0):  # noqa: SIM108 (the If the fixture is for); masked (padding) steps keep the state
                h = (1 - z) * n + z * h
            else:
                h = h * 1.0
        return h


def gru_scripted(path: Path) -> None:
    """The scripted GRU (8 inputs, 16 hidden): a Loop over steps with an If inside, through the TorchScript
    exporter (`torch.jit.script` + `dynamo=False`), dynamic steps and batch."""
    torch.manual_seed(0)
    model = torch.jit.script(ScriptedGRU())
    args = (torch.randn(5, 2, 8), torch.tensor([1.0, 1.0, 0.0, 1.0, 1.0]), torch.zeros(2, 16))
    dynamic = {"x": {0: "steps", 1: "batch"}, "mask": {0: "steps"}, "h0": {0: "batch"}}
    _export(model, args, path, ["x", "mask", "h0"], ["h"], dynamic)


FIXTURES: dict[str, Callable[[Path], None]] = {
    "mobilenet_v3_small_w05": mobilenet_v3_small_half_width,
    "bert_tiny": bert(layers=2, hidden=64, heads=2, vocab=1000),
    "gpt2_tiny": gpt2(layers=2, hidden=64, heads=2, vocab=1000),
    "shufflenet_functions_small": shufflenet_small_functions,
    "gru_scripted": gru_scripted,
}
BENCH: dict[str, Callable[[Path], None]] = {
    "resnet18": torchvision_model("resnet18"),
    "mobilenet_v3_small": torchvision_model("mobilenet_v3_small"),
    "shufflenet_v2_functions": shufflenet_functions,
    "bert_base": bert(layers=12, hidden=768, heads=12, vocab=30522),
    "gpt2_small": gpt2(layers=12, hidden=768, heads=12, vocab=50257),
    "llama_30l": llama(layers=30, hidden=512, heads=8, vocab=32000),
    "vit_b_16": vit,
    "ssdlite_head": ssdlite,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--set", choices=("fixtures", "bench"), default="fixtures")
    parser.add_argument("--only", default="", help="comma-separated names")
    args = parser.parse_args()
    models = FIXTURES if args.set == "fixtures" else BENCH
    wanted = [n for n in args.only.split(",") if n] or list(models)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in wanted:
        path = args.out / f"{name}.onnx"
        models[name](path)
        print(f"{path}  {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
