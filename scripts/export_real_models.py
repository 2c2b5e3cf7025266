"""Export real architectures (torchvision, Hugging Face transformers) with random weights to ONNX.

Users open what PyTorch writes, not hand-built graphs: weight-alias Identity nodes, deep name scopes, fused
attention patterns, function ops (HardSwish). Tests and benchmarks judge features on these files.

    python scripts/export_real_models.py OUT_DIR [--set fixtures|bench] [--only NAME,...]

Needs torch, torchvision and transformers (CPU wheels; run it in a separate venv, they are large). `fixtures` are
the small exports committed under tests/data/real/ (regenerate them with this script); `bench` are the full-size
models the benchmarks use, written to a cache directory and never committed. Seeds are fixed: the same versions
give the same files. Decoders come static (input_ids only) and `_dynamic` (attention mask, symbolic batch and
sequence given as torch.export dims: the newer exporter does not turn `dynamic_axes` into them here); BERT static.
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


def bert(layers: int, hidden: int, heads: int, vocab: int, seq: int = 16) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        from transformers import BertConfig, BertModel

        torch.manual_seed(0)
        config = BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers,
                            num_attention_heads=heads, intermediate_size=4 * hidden, max_position_embeddings=128,
                            attn_implementation="eager")
        model = BertModel(config)
        ids = torch.randint(0, vocab, (1, seq))
        mask = torch.ones(1, seq, dtype=torch.int64)
        names, outputs = ["input_ids", "attention_mask"], ["last_hidden_state", "pooler_output"]
        _export(_Keywords(model, names, outputs), (ids, mask), path, names, outputs, dynamo=True)  # static: see above

    return build


def _decoder(model: Any, vocab: int, path: Path, dynamic: bool) -> None:
    """A causal LM exported with input_ids only and static shapes, or as users deploy one: `dynamic` adds the
    attention mask and symbolic batch and sequence (torch.export dims), so the file computes its masks from
    Shape/Range/Cast chains at run time."""
    ids = torch.randint(0, vocab, (2 if dynamic else 1, 16))
    if not dynamic:
        _export(_Keywords(model, ["input_ids"], ["logits"]), (ids,), path, ["input_ids"], ["logits"], dynamo=True)
        return
    names = ["input_ids", "attention_mask"]
    batch, seq = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("sequence", min=2, max=128)
    axes = {0: batch, 1: seq}
    _export(_Keywords(model, names, ["logits"]), (ids, torch.ones_like(ids)), path, names, ["logits"], dynamo=True,
            dynamic_shapes=((axes, axes),))


def gpt2(layers: int, hidden: int, heads: int, vocab: int, dynamic: bool = False) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        from transformers import GPT2Config, GPT2LMHeadModel

        torch.manual_seed(0)
        config = GPT2Config(vocab_size=vocab, n_embd=hidden, n_layer=layers, n_head=heads, n_positions=128,
                            use_cache=False, attn_implementation="eager")
        _decoder(GPT2LMHeadModel(config), vocab, path, dynamic)

    return build


def llama(layers: int, hidden: int, heads: int, vocab: int, dynamic: bool = False) -> Callable[[Path], None]:
    """A Llama-style decoder (RMSNorm, rotary attention with grouped KV heads, SwiGLU MLP) of `layers` layers."""

    def build(path: Path) -> None:
        from transformers import LlamaConfig, LlamaForCausalLM

        torch.manual_seed(0)
        config = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=hidden * 8 // 3,
                             num_hidden_layers=layers, num_attention_heads=heads,
                             num_key_value_heads=max(1, heads // 2), max_position_embeddings=128, use_cache=False,
                             attn_implementation="eager")
        _decoder(LlamaForCausalLM(config), vocab, path, dynamic)

    return build


def t5(layers: int, hidden: int, heads: int, vocab: int) -> Callable[[Path], None]:
    """An encoder-decoder (T5-small's shape at 6 layers, 512 wide): its encoder and decoder stacks side by side."""

    def build(path: Path) -> None:
        from transformers import T5Config, T5ForConditionalGeneration

        torch.manual_seed(0)
        config = T5Config(vocab_size=vocab, d_model=hidden, d_kv=hidden // heads, d_ff=4 * hidden,
                          num_layers=layers, num_heads=heads, use_cache=False)
        names = ["input_ids", "decoder_input_ids"]
        args = (torch.randint(0, vocab, (1, 16)), torch.randint(0, vocab, (1, 8)))
        model = _Keywords(T5ForConditionalGeneration(config), names, ["logits"])
        _export(model, args, path, names, ["logits"], dynamo=True)

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


def _fast_nms(boxes: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """Fast NMS (YOLACT): a box goes when a higher-scoring box overlaps it more than the threshold. Plain tensor ops
    (torchvision's nms is a C op that does not load with the CPU torch wheel here); typed because torchvision
    scripts its caller while tracing."""
    order = scores.argsort(descending=True)
    ordered = boxes[order]
    area = (ordered[:, 2] - ordered[:, 0]) * (ordered[:, 3] - ordered[:, 1])
    low = torch.max(ordered[:, None, :2], ordered[None, :, :2])
    high = torch.min(ordered[:, None, 2:], ordered[None, :, 2:])
    inter = (high - low).clamp(min=0).prod(dim=2)
    iou = (inter / (area[:, None] + area[None, :] - inter)).triu(diagonal=1)
    return order[iou.max(dim=0).values <= iou_threshold]


class _Detections(torch.nn.Module):
    """A detector wrapped as users wrap one for export: an image batch in, the first image's boxes, scores and
    labels out (torchvision's models take and return lists of dicts)."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        found = self.model(list(images))[0]
        return found["boxes"], found["scores"], found["labels"]


def ssdlite_detector(classes: int, width: float = 1.0) -> Callable[[Path], None]:
    """SSDlite (MobileNetV3-Large, 320 px) with its postprocessing: resize, box decoding, a score filter and top-k
    per class (the tracer unrolls the loop over classes: ~35 small ops each) and NMS (_fast_nms), through the
    TorchScript exporter."""

    def build(path: Path) -> None:
        from functools import partial

        from torchvision.models.detection import ssdlite
        from torchvision.ops import boxes as box_ops

        box_ops.nms = _fast_nms  # batched_nms looks nms up in its module
        backbone = ssdlite.mobilenet_v3_large
        ssdlite.mobilenet_v3_large = partial(backbone, width_mult=width)  # type: ignore[assignment]
        try:
            torch.manual_seed(0)
            model = ssdlite.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=classes)
        finally:
            ssdlite.mobilenet_v3_large = backbone
        _export(_Detections(model), (torch.rand(1, 3, 320, 320),), path, ["images"], ["boxes", "scores", "labels"])

    return build


def efficientnet(path: Path) -> None:
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.efficientnet_b0(weights=None)
    _export(model, (torch.randn(1, 3, 224, 224),), path, ["input"], ["logits"], {"input": {0: "batch"}})


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
        return self.steps(x, mask, h)

    def steps(self, x: torch.Tensor, mask: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """The Loop over steps with the If inside (TorchScript inlines it into forward)."""
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


def gru_scripted(path: Path, model_type: type[ScriptedGRU] = ScriptedGRU, hidden: int = 16) -> None:
    """The scripted GRU (8 inputs, `hidden`): a Loop over steps with an If inside, through the TorchScript
    exporter (`torch.jit.script` + `dynamo=False`), dynamic steps and batch."""
    torch.manual_seed(0)
    model = torch.jit.script(model_type(8, hidden))
    args = (torch.randn(5, 2, 8), torch.tensor([1.0, 1.0, 0.0, 1.0, 1.0]), torch.zeros(2, hidden))
    dynamic = {"x": {0: "steps", 1: "batch"}, "mask": {0: "steps"}, "h0": {0: "batch"}}
    _export(model, args, path, ["x", "mask", "h0"], ["h"], dynamic)


class ScriptedGRUHead(ScriptedGRU):
    """The scripted GRU with 64 hidden and a head after the loop: the Loop's final state is an inner value
    ('/Loop_output_0'), whose rank ONNX inference leaves unknown (the If inside rebinds the state)."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.steps(x, mask, h)) * 2.0


def gru_scripted_head(path: Path) -> None:
    """`ScriptedGRUHead` (8 inputs, 64 hidden), dynamic steps and batch, as `gru_scripted` is exported."""
    gru_scripted(path, ScriptedGRUHead, 64)


FIXTURES: dict[str, Callable[[Path], None]] = {
    "mobilenet_v3_small_w05": mobilenet_v3_small_half_width,
    "bert_tiny": bert(layers=2, hidden=64, heads=2, vocab=1000),
    "gpt2_tiny": gpt2(layers=2, hidden=64, heads=2, vocab=1000),
    "shufflenet_functions_small": shufflenet_small_functions,
    "gru_scripted": gru_scripted,
    "gru_scripted_head": gru_scripted_head,
    # Over the grouping size: a Llama-style decoder with its run-time mask chain, a detector with postprocessing
    "llama_tiny_dynamic": llama(layers=4, hidden=32, heads=2, vocab=256, dynamic=True),
    "ssdlite_tiny": ssdlite_detector(classes=8, width=0.25),
}
BENCH: dict[str, Callable[[Path], None]] = {
    "resnet18": torchvision_model("resnet18"),
    "resnet50": torchvision_model("resnet50"),  # analysis step latency (benchmarks/analysis_bench.py)
    "mobilenet_v3_small": torchvision_model("mobilenet_v3_small"),
    "shufflenet_v2_functions": shufflenet_functions,
    "bert_base": bert(layers=12, hidden=768, heads=12, vocab=30522),
    "bert_base_seq128": bert(layers=12, hidden=768, heads=12, vocab=30522, seq=128),  # analysis RSS benchmark
    "gpt2_small": gpt2(layers=12, hidden=768, heads=12, vocab=50257),
    "llama_30l": llama(layers=30, hidden=512, heads=8, vocab=32000),
    "vit_b_16": vit,
    "ssdlite_head": ssdlite,
    "ssdlite_full": ssdlite_detector(classes=91),
    "gpt2_dynamic": gpt2(layers=12, hidden=768, heads=12, vocab=50257, dynamic=True),
    "llama_dynamic": llama(layers=30, hidden=512, heads=8, vocab=32000, dynamic=True),
    "efficientnet_b0": efficientnet,
    "t5_small": t5(layers=6, hidden=512, heads=8, vocab=32128),
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
