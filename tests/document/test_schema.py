"""Operator schema registry: versions in force, formal parameters, attribute defaults, contrib ops."""

from __future__ import annotations

import time

import onnx.defs
import pytest

from dld_jupyter.document.operators.categories import CONVOLUTION
from dld_jupyter.document.operators.schema import SchemaRegistry, registry


def test_conv_version_in_force_depends_on_opset() -> None:
    conv11 = registry.get("Conv", opset=11)
    conv21 = registry.get("Conv", opset=21)
    conv22 = registry.get("Conv", opset=22)
    assert conv11 is not None and conv21 is not None and conv22 is not None
    assert conv11.since_version == 11
    assert conv21.since_version == 11  # Conv did not change between 11 and 21
    assert conv22.since_version == 22
    assert "tensor(bfloat16)" not in conv11.inputs[0].types
    assert registry.get("Conv", opset=1) is not None
    assert registry.get("Conv").since_version == registry.versions("Conv")[-1]  # type: ignore[union-attr]


def test_unknown_op_or_too_old_opset_gives_none() -> None:
    assert registry.get("NoSuchOp") is None
    assert registry.get("Gelu", opset=19) is None
    assert registry.get("Gelu", opset=20) is not None
    assert registry.get("Relu", domain="com.example") is None


def test_conv_formals_optional_bias_and_attribute_defaults() -> None:
    conv = registry.get("Conv", opset=21)
    assert conv is not None
    assert [p.name for p in conv.inputs] == ["X", "W", "B"]
    assert [p.optional for p in conv.inputs] == [False, False, True]
    assert (conv.min_input, conv.max_input) == (2, 3)
    assert conv.category == CONVOLUTION
    group = conv.attribute("group")
    auto_pad = conv.attribute("auto_pad")
    kernel = conv.attribute("kernel_shape")
    assert group is not None and group.type == "INT" and group.default == 1 and not group.required
    assert auto_pad is not None and auto_pad.type == "STRING" and auto_pad.default == "NOTSET"
    assert kernel is not None and kernel.type == "INTS" and kernel.default is None
    assert "groups" in group.doc


def test_concat_input_is_variadic_and_homogeneous() -> None:
    concat = registry.get("Concat", opset=13)
    assert concat is not None
    (inputs,) = concat.inputs
    assert inputs.variadic and inputs.homogeneous and not inputs.optional
    assert concat.max_input == 2147483647
    assert concat.input_param(5) is inputs  # any terminal past the last formal repeats the variadic one
    axis = concat.attribute("axis")
    assert axis is not None and axis.required


def test_optional_inputs_and_required_attributes() -> None:
    resize = registry.get("Resize", opset=19)
    assert resize is not None
    assert [p.optional for p in resize.inputs] == [False, True, True, True]
    assert resize.attribute("mode").default == "nearest"  # type: ignore[union-attr]
    assert resize.attribute("cubic_coeff_a").default == pytest.approx(-0.75)  # type: ignore[union-attr]
    loop = registry.get("Loop")
    assert loop is not None and loop.attribute("body").type == "GRAPH"  # type: ignore[union-attr]
    constant = registry.get("Constant")
    assert constant is not None and constant.attribute("value").type == "TENSOR"  # type: ignore[union-attr]


def test_deprecated_op_is_flagged_and_left_out_of_the_palette() -> None:
    upsample = registry.get("Upsample", opset=21)
    assert upsample is not None and upsample.deprecated
    names = {s.name for s in registry.ops_for({"": 21})}
    assert "Upsample" not in names
    assert "Upsample" in {s.name for s in registry.ops_for({"": 21}, include_deprecated=True)}


def test_ops_for_covers_the_imported_domains_only() -> None:
    ops = registry.ops_for({"": 17})
    assert {s.domain for s in ops} == {""}
    assert "LayerNormalization" in {s.name for s in ops}
    assert "Gelu" not in {s.name for s in ops}
    assert all(s.since_version <= 17 for s in ops)
    assert ops == sorted(ops, key=lambda s: (s.domain, s.name))
    assert registry.ops_for({"ai.onnx": 17}) == ops  # the explicit name of the default domain


def test_all_domains_and_versions_are_present() -> None:
    domains = registry.domains()
    assert {"", "ai.onnx.ml", "ai.onnx.preview.training"} <= set(domains)
    expected = len(onnx.defs.get_all_schemas_with_history())
    assert len(registry) >= expected
    assert registry.latest_opset() == onnx.defs.onnx_opset_version()


def test_contrib_schemas_come_from_onnxruntime() -> None:
    pytest.importorskip("onnxruntime")
    attention = registry.get("Attention", domain="com.microsoft", opset=1)
    assert attention is not None, registry.contrib_note
    assert attention.attribute("num_heads").required  # type: ignore[union-attr]
    assert attention.attribute("unidirectional").default == 0  # type: ignore[union-attr]
    assert [p.name for p in attention.inputs][:2] == ["input", "weights"]
    assert "com.microsoft" in {s.domain for s in registry.ops_for({"": 21, "com.microsoft": 1})}
    assert registry.get("Attention", opset=23) is not None  # the ONNX one stays apart


def test_registry_without_contrib_and_build_time() -> None:
    fresh = SchemaRegistry(contrib=False)
    start = time.perf_counter()
    assert fresh.get("Relu") is not None
    first = time.perf_counter() - start
    start = time.perf_counter()
    fresh.get("Relu")
    again = time.perf_counter() - start
    assert "com.microsoft" not in fresh.domains()
    assert first < 5.0 and again < 0.01


def test_one_operator_or_a_models_palette_before_the_build_is_what_the_built_registry_answers() -> None:
    """`get` and `ops_for` of onnx's own domains ask onnx for the operators needed instead of building every schema
    (the first view of a model, issue 42); their answers must be the built registry's, for every operator, domain
    and opset, including an op too new or too old for the opset and an unknown one."""
    built = SchemaRegistry()
    built.known_ops()
    latest = onnx.defs.onnx_opset_version()
    lazy = SchemaRegistry()
    for domain, name in built.known_ops():
        if domain.startswith("com.microsoft"):
            continue
        for opset in (None, 1, 5, 7, 9, 11, 13, 17, 19, 21, latest, latest + 10):
            one, whole = lazy.get(name, domain, opset), built.get(name, domain, opset)
            assert one == whole, (domain, name, opset)
            if one is not None and whole is not None:  # fields compare=False skips
                assert (one.doc, one.type_constraints) == (whole.doc, whole.type_constraints)
                assert [a.default for a in one.attributes if not hasattr(a.default, "shape")] == [
                    a.default for a in whole.attributes if not hasattr(a.default, "shape")]
    assert lazy.get("NoSuchOp", "", 21) is None and lazy.get("Relu", "my.domain", 1) is None
    for imports in ({"": 21}, {"": 11, "ai.onnx.ml": 3}, {"ai.onnx": 17}, {"": latest, "custom": 1}):
        for deprecated in (False, True):
            assert lazy.ops_for(imports, deprecated) == built.ops_for(imports, deprecated), imports
    assert lazy._by_key is None  # nothing above built it


def test_a_model_with_contrib_operators_gets_them_from_the_built_registry() -> None:
    pytest.importorskip("onnxruntime")
    lazy = SchemaRegistry()
    assert lazy.get("FusedConv", "com.microsoft", 1) is not None
    assert "FusedConv" in {s.name for s in SchemaRegistry().ops_for({"": 17, "com.microsoft": 1})}
