"""Palette categories: every op of the default domain has a real one."""

from __future__ import annotations

import onnx.defs

from dld_jupyter.document.operators import categories
from dld_jupyter.document.operators.categories import CATEGORIES, OTHER, category_for
from dld_jupyter.document.operators.schema import registry


def test_every_default_domain_op_has_a_category() -> None:
    ops = {s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""}
    missing = sorted(name for name in ops if category_for(name) == OTHER)
    assert not missing


def test_every_category_is_listed() -> None:
    ops = {(s.domain, s.name) for s in onnx.defs.get_all_schemas_with_history()}
    assert {category_for(name, domain) for domain, name in ops} <= set(CATEGORIES)


def test_typical_ops() -> None:
    assert category_for("Conv") == categories.CONVOLUTION
    assert category_for("MaxPool") == categories.POOLING
    assert category_for("Relu") == categories.ACTIVATION
    assert category_for("Tanh") == categories.ACTIVATION
    assert category_for("LayerNormalization") == categories.NORMALIZATION
    assert category_for("Add") == categories.MATH
    assert category_for("ReduceMean") == categories.REDUCTION
    assert category_for("MatMul") == categories.MATMUL
    assert category_for("Reshape") == categories.SHAPE
    assert category_for("Loop") == categories.CONTROL_FLOW
    assert category_for("QuantizeLinear") == categories.QUANTIZATION
    assert category_for("LSTM") == categories.RECURRENT
    assert category_for("RandomNormal") == categories.GENERATOR
    assert category_for("Equal") == categories.LOGICAL
    assert category_for("SequenceAt") == categories.SEQUENCE
    assert category_for("Resize") == categories.IMAGE
    assert category_for("StringSplit") == categories.TEXT
    assert category_for("TreeEnsemble", "ai.onnx.ml") == categories.CLASSICAL_ML


def test_contrib_ops_by_name_pattern() -> None:
    assert category_for("QLinearAdd", "com.microsoft") == categories.QUANTIZATION
    assert category_for("MatMulNBits", "com.microsoft") == categories.QUANTIZATION
    assert category_for("GroupQueryAttention", "com.microsoft") == categories.ATTENTION
    assert category_for("SkipLayerNormalization", "com.microsoft") == categories.NORMALIZATION
    assert category_for("FusedConv", "com.microsoft") == categories.CONVOLUTION
    assert category_for("FastGelu", "com.microsoft") == categories.ACTIVATION
    assert category_for("MyPlugin", "trt.plugins") == OTHER


def test_registry_carries_the_category() -> None:
    relu = registry.get("Relu")
    assert relu is not None and relu.category == categories.ACTIVATION
