"""Regenerate the bundled sample model: a CIFAR-style ResNet-8 (3 stages of basic blocks) with seeded weights.

    python scripts/make_sample_model.py   # writes dld_jupyter/models/resnet8_cifar.onnx

Real architecture, random weights: Conv, BatchNormalization, Relu, Add, GlobalAveragePool and Gemm with
name scopes like the exporters write (`/layer1/block0/conv1/Conv`), so the designer groups it like a real model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = Path(__file__).resolve().parents[1] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
IR_VERSION = 10  # onnxruntime 1.20+ loads it; onnx 1.23 would write IR 14 by default
OPSET = 17


class Builder:
    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def weight(self, name: str, shape: tuple[int, ...], scale: float) -> str:
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.inits.append(numpy_helper.from_array(data, name))
        return name

    def array(self, name: str, values: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(values.astype(np.float32), name))
        return name

    def conv_bn(self, scope: str, x: str, cin: int, cout: int, stride: int, relu: bool) -> str:
        w = self.weight(f"{scope}.conv.weight", (cout, cin, 3, 3), (2.0 / (cin * 9)) ** 0.5)
        conv_out = f"{scope}/conv/Conv_output_0"
        self.nodes.append(
            helper.make_node(
                "Conv",
                [x, w],
                [conv_out],
                name=f"{scope}/conv/Conv",
                kernel_shape=[3, 3],
                pads=[1, 1, 1, 1],
                strides=[stride, stride],
            )
        )
        bn = []
        for param, center, spread in (("scale", 1.0, 0.1), ("bias", 0.0, 0.1), ("mean", 0.0, 0.1)):
            bn.append(self.array(f"{scope}.bn.{param}", center + self.rng.standard_normal(cout) * spread))
        bn.append(self.array(f"{scope}.bn.var", 1.0 + np.abs(self.rng.standard_normal(cout)) * 0.1))
        bn_out = f"{scope}/bn/BatchNormalization_output_0"
        self.nodes.append(
            helper.make_node(
                "BatchNormalization", [conv_out, *bn], [bn_out], name=f"{scope}/bn/BatchNormalization"
            )
        )
        if not relu:
            return bn_out
        relu_out = f"{scope}/relu/Relu_output_0"
        self.nodes.append(helper.make_node("Relu", [bn_out], [relu_out], name=f"{scope}/relu/Relu"))
        return relu_out

    def block(self, scope: str, x: str, cin: int, cout: int, stride: int) -> str:
        y = self.conv_bn(f"{scope}/conv1", x, cin, cout, stride, relu=True)
        y = self.conv_bn(f"{scope}/conv2", y, cout, cout, 1, relu=False)
        shortcut = x
        if stride != 1 or cin != cout:
            w = self.weight(f"{scope}.downsample.weight", (cout, cin, 1, 1), (2.0 / cin) ** 0.5)
            shortcut = f"{scope}/downsample/Conv_output_0"
            self.nodes.append(
                helper.make_node(
                    "Conv",
                    [x, w],
                    [shortcut],
                    name=f"{scope}/downsample/Conv",
                    kernel_shape=[1, 1],
                    strides=[stride, stride],
                )
            )
        added = f"{scope}/Add_output_0"
        self.nodes.append(helper.make_node("Add", [y, shortcut], [added], name=f"{scope}/Add"))
        out = f"{scope}/Relu_output_0"
        self.nodes.append(helper.make_node("Relu", [added], [out], name=f"{scope}/Relu"))
        return out


def build() -> onnx.ModelProto:
    b = Builder()
    x = b.conv_bn("/stem", "input", 3, 16, 1, relu=True)
    channels = 16
    for stage, (cout, stride) in enumerate([(16, 1), (32, 2), (64, 2)], start=1):
        x = b.block(f"/layer{stage}/block0", x, channels, cout, stride)
        channels = cout
    b.nodes.append(
        helper.make_node(
            "GlobalAveragePool", [x], ["/pool/GlobalAveragePool_output_0"], name="/pool/GlobalAveragePool"
        )
    )
    b.nodes.append(
        helper.make_node(
            "Flatten",
            ["/pool/GlobalAveragePool_output_0"],
            ["/flatten/Flatten_output_0"],
            name="/flatten/Flatten",
            axis=1,
        )
    )
    w = b.weight("fc.weight", (10, 64), 0.1)
    bias = b.weight("fc.bias", (10,), 0.01)
    b.nodes.append(
        helper.make_node(
            "Gemm", ["/flatten/Flatten_output_0", w, bias], ["logits"], name="/fc/Gemm", transB=1
        )
    )
    graph = helper.make_graph(
        b.nodes,
        "resnet8_cifar",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        b.inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="dld_jupyter",
        producer_version="sample",
    )
    model.ir_version = IR_VERSION
    model.doc_string = "CIFAR-style ResNet-8 with seeded random weights (dld_jupyter sample model)."
    onnx.checker.check_model(model, full_check=True)
    return model


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build(), OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KiB)")
