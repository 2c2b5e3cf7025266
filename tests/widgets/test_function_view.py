"""The parameter editor's local-function data on the real ShuffleNetV2 export: references shown as "@param", the
parameters a reference can choose from (incompatible ones marked), the function's parameters, an instance's values."""

from __future__ import annotations

from dld_jupyter.document import Document
from dld_jupyter.widgets.editors import parameters
from tests.function_support import BLOCK, SHUFFLENET


def test_function_document_rows_show_references_and_choices() -> None:
    doc = Document.open(SHUFFLENET)
    fdoc = doc.functions.open(*BLOCK)
    fdoc.add_parameter("shuffle_perm", "ints", [0, 2, 1, 3, 4])
    fdoc.add_parameter("width", "int", 1)
    transpose = next(n.id for n in fdoc.nodes() if n.op_type == "Transpose")
    fdoc.set_reference_attribute(transpose, "perm", "shuffle_perm")
    shown = parameters.view(fdoc, [transpose])
    perm = next(r for r in shown["attributes"] if r["name"] == "perm")
    assert perm["text"] == "@shuffle_perm"
    function = shown["function"]
    assert function["references"] == {"perm": "shuffle_perm"} and "perm" not in function["referable"]
    offered = {c["parameter"]: c["compatible"] for c in function["choices"]["perm"]}
    assert offered["shuffle_perm"] and not offered["width"] and offered["inferred::Conv_group"]  # undefined fits
    settings = parameters.view(fdoc, [])["function"]
    assert [p["name"] for p in settings["parameters"]][-2:] == ["shuffle_perm", "width"]
    assert settings["parameters"][-1]["default_text"] == "1" and "undefined" in settings["parameter_types"]


def test_instance_rows_show_the_values_it_passes() -> None:
    doc = Document.open(SHUFFLENET)
    instance = next(f for f in doc.functions.list() if (f.name, f.domain) == BLOCK).instances[0]
    function = parameters.view(doc, [instance])["function"]
    assert function["instance_of"] == f"{BLOCK[1]}::{BLOCK[0]}"
    rows = {p["name"]: p for p in function["parameters"]}
    assert rows["inferred::Conv_group"]["set"] and rows["inferred::Conv_group"]["text"] == "24"
    assert rows["inferred::Constant_value"]["text"] == "[1, 48, 8, 8]"
    plain = next(n.id for n in doc.nodes() if n.op_type == "Gemm")
    assert parameters.view(doc, [plain])["function"] is None
    assert parameters.view(doc, [])["function"] is None
