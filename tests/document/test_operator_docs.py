"""The layer documentation's data (document/operators/operator_docs.py) checked against onnx.defs itself: the index
lists every operator of every domain at its newest version (ONNX Runtime's contrib ones too), and an operator's
reference has each of its versions with the inputs, outputs, attributes (required flags, defaults) and type constraints
that onnx defines; an unknown operator is refused naming where that name exists."""

from __future__ import annotations

import onnx
import onnx.defs
import pytest

from dld_jupyter.document.operators.operator_docs import UnknownOperator, operator_index, operator_reference


def test_the_index_lists_every_onnx_operator_and_the_contrib_ones() -> None:
    index = operator_index()
    listed = {(e["domain"], e["name"]): e for e in index}
    for schema in onnx.defs.get_all_schemas():
        entry = listed[(schema.domain or "ai.onnx", schema.name)]
        assert entry["since_version"] == schema.since_version, schema.name
        assert entry["deprecated"] == schema.deprecated
    assert ("com.microsoft", "FusedConv") in listed, "ONNX Runtime's contrib operators are documented too"
    assert listed[("ai.onnx", "Conv")]["category"] == "Convolution"
    assert listed[("ai.onnx", "Conv")]["summary"].startswith("The convolution operator consumes an input tensor")
    names = [e["name"].lower() for e in index]
    assert names == sorted(names), "sorted by name, whatever the case"


@pytest.mark.parametrize(("name", "domain"), [("Conv", ""), ("Resize", ""), ("LabelEncoder", "ai.onnx.ml")])
def test_a_reference_has_every_version_as_onnx_defines_it(name: str, domain: str) -> None:
    reference = operator_reference(name, domain or "ai.onnx")
    history = sorted((s for s in onnx.defs.get_all_schemas_with_history() if s.name == name and s.domain == domain),
                     key=lambda s: -s.since_version)
    assert [v["since_version"] for v in reference["versions"]] == [s.since_version for s in history]
    for version, schema in zip(reference["versions"], history, strict=True):
        assert version["doc"] == (schema.doc or "").strip()
        assert [(a["name"], a["type"], a["required"]) for a in version["attributes"]] == sorted(
            (a.name, a.type.name, bool(a.required)) for a in schema.attributes.values())
        assert [p["name"] for p in version["inputs"]] == [p.name for p in schema.inputs]
        assert [p["name"] for p in version["outputs"]] == [p.name for p in schema.outputs]
        assert [(c["name"], c["types"]) for c in version["type_constraints"]] == [
            (c.type_param_str, list(c.allowed_type_strs)) for c in schema.type_constraints]
    newest = reference["versions"][0]
    if name == "Conv":
        defaults = {a["name"]: a["default"] for a in newest["attributes"]}
        assert defaults["group"] == "1" and defaults["auto_pad"] == "'NOTSET'" and defaults["kernel_shape"] is None
        assert [p["optional"] for p in newest["inputs"]] == [False, False, True], "B is optional"


def test_an_unknown_operator_says_where_the_name_exists() -> None:
    with pytest.raises(UnknownOperator, match=r"no operator 'conv' in domain 'ai.onnx' \(in ai.onnx as Conv"):
        operator_reference("conv")
    with pytest.raises(UnknownOperator, match="no operator 'Conv' in domain 'nowhere'"):
        operator_reference("Conv", "nowhere")
    assert operator_reference("FusedConv", "com.microsoft")["versions"][0]["since_version"] == 1


def test_the_notebook_door_gives_the_same_data() -> None:
    import dld_jupyter as dld

    assert dld.operator_docs() == operator_index()
    conv = dld.operator_docs("Conv")
    assert isinstance(conv, dict) and conv == operator_reference("Conv")
    assert conv["versions"][0]["since_version"] == onnx.defs.get_schema("Conv").since_version
