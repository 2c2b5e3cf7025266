"""A generated corpus of invalid edits: each is refused with what / why / fix and changes nothing, saved bytes too.

The valid side is checked as well: every attribute of ONNX's own backend test models passes the rules, so the
rules refuse nothing a real model holds.
"""

from __future__ import annotations

import functools
import pathlib
import re
import warnings
from collections.abc import Callable

import numpy as np
import onnx
import onnx_ir as ir
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits import initializer_commands as ic
from dld_jupyter.document.edits.attribute_rules import check_attribute
from tests.document.support import snapshot

Edit = Callable[[Document], object]


def _model() -> onnx.ModelProto:
    """x[1,3,16,16] through Conv, ConvTranspose and the three poolings, plus a few ops with enum attributes."""
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("ConvTranspose", ["c", "wt"], ["t"], name="convt", kernel_shape=[3, 3]),
        helper.make_node("MaxPool", ["t"], ["m"], name="maxpool", kernel_shape=[2, 2], strides=[1, 1]),
        helper.make_node("AveragePool", ["m"], ["a"], name="avgpool", kernel_shape=[2, 2]),
        helper.make_node("LpPool", ["a"], ["l"], name="lppool", kernel_shape=[2, 2], strides=[1, 1]),
        helper.make_node("LeakyRelu", ["l"], ["r"], name="leaky", alpha=0.1),
        helper.make_node("DepthToSpace", ["r"], ["d"], name="d2s", blocksize=1),
        helper.make_node("Concat", ["d", "d"], ["y"], name="concat", axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "hostile",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [
            numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w"),
            numpy_helper.from_array(np.ones((4, 4, 3, 3), np.float32), "wt"),
            numpy_helper.from_array(np.array(["a", "b"]), "labels"),
        ],
        value_info=[helper.make_tensor_value_info(v, TensorProto.FLOAT, [1, 4, 16, 16]) for v in ("c", "m")],
    )  # t and a stay without a shape: their rank comes from the node's other attributes
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


SPATIAL = ("conv", "convt", "maxpool", "avgpool", "lppool")
HUGE = (2**63, 2**70, -(2**63) - 1, 10**30)


def _attr(node: str, name: str, value: object) -> Edit:
    def edit(doc: Document) -> object:
        node_id = next(n.id for n in doc.nodes() if n.name == node)
        return doc.set_attribute(node_id, name, value)

    return edit


def _cases() -> list[tuple[str, Edit, str]]:
    """(label, edit, a word the message must contain)."""
    cases: list[tuple[str, Edit, str]] = []
    for node in SPATIAL:
        for name in ("kernel_shape", "strides") + (("dilations",) if node in ("conv", "convt", "maxpool") else ()):
            for bad in ([0, 1], [-1, 1], [1, -5]):
                cases.append((f"{node}.{name}={bad}", _attr(node, name, bad), "positive"))
            for bad in ([1], [1, 1, 1], [1, 1, 1, 1], []):
                cases.append((f"{node}.{name}={bad}", _attr(node, name, bad), "entries|empty"))
            for huge in HUGE:
                cases.append((f"{node}.{name}=[{huge}, 1]", _attr(node, name, [huge, 1]), "64-bit"))
            cases.append((f"{node}.{name}=text", _attr(node, name, "2,2"), "INTS"))
            cases.append((f"{node}.{name}=floats", _attr(node, name, [1.5, 2.0]), "INTS"))
        for bad in ([1, 1], [1, 1, 1], [0, 0, 0, 0, 0, 0], [1] * 5):
            cases.append((f"{node}.pads={bad}", _attr(node, "pads", bad), "entries"))
        for bad in ([-1, 0, 0, 0], [0, 0, 0, -3]):
            cases.append((f"{node}.pads={bad}", _attr(node, "pads", bad), "zero or positive"))
        cases.append((f"{node}.pads huge", _attr(node, "pads", [2**64, 0, 0, 0]), "64-bit"))
        for bad in ("BOGUS", "same_upper", "NOTSET\n", "VALID ", "SAME", "0"):
            cases.append((f"{node}.auto_pad={bad!r}", _attr(node, "auto_pad", bad), "auto_pad"))
        cases.append((f"{node}.auto_pad=1", _attr(node, "auto_pad", 1), "STRING"))
    for node in ("conv", "convt"):
        for bad in (0, -1, 2**63):
            cases.append((f"{node}.group={bad}", _attr(node, "group", bad), "positive|64-bit"))
    cases += [
        ("convt.output_padding=[-1,0]", _attr("convt", "output_padding", [-1, 0]), "zero or positive"),
        ("convt.output_padding=[0]", _attr("convt", "output_padding", [0]), "entries"),
        ("convt.output_shape=[0,4]", _attr("convt", "output_shape", [0, 4]), "positive"),
        ("maxpool.ceil_mode=2", _attr("maxpool", "ceil_mode", 2), "ceil_mode"),
        ("maxpool.storage_order=-1", _attr("maxpool", "storage_order", -1), "storage_order"),
        ("avgpool.count_include_pad=7", _attr("avgpool", "count_include_pad", 7), "count_include_pad"),
        ("lppool.p=0", _attr("lppool", "p", 0), "positive"),
        ("d2s.mode=XYZ", _attr("d2s", "mode", "XYZ"), "mode"),
        ("concat.axis=2**64", _attr("concat", "axis", 2**64), "64-bit"),
        ("concat.axis=-2**70", _attr("concat", "axis", -(2**70)), "64-bit"),
        ("leaky.alpha=1e39", _attr("leaky", "alpha", 1e39), "32-bit float"),
        ("leaky.alpha=-1e300", _attr("leaky", "alpha", -1e300), "32-bit float"),
        ("leaky.alpha=text", _attr("leaky", "alpha", "0.1"), "FLOAT"),
        ("d2s.mode surrogate", _attr("d2s", "mode", "DCR\udc80"), "Unicode"),
    ]
    for bad_array in (np.array(["1.5", "2"] * 54), np.array(["x"] * 108), np.array([1 + 2j] * 108), ["a"] * 108):
        label = f"w <- {np.asarray(bad_array).dtype}"
        cases.append((label + " (set)", _initializer("w", bad_array), "cannot"))
        cases.append((label + " (typed)", _typed("w", bad_array), "cannot"))
    cases.append(("labels <- floats", _initializer("labels", np.zeros(2, np.float32)), "cannot"))
    cases.append(("new float from text", _create("f", "float", ["1", "2"]), "cannot"))
    cases.append(("new int from text", _create("i", "int64", np.array(["7"])), "cannot"))
    cases.append(("new string from floats", _create("s", "string", [1.0, 2.0]), "cannot"))
    return cases


def _value_id(doc: Document, name: str) -> str:
    return doc.value_id(doc.model.graph.initializers[name])


def _initializer(name: str, array: object) -> Edit:
    return lambda doc: doc.set_initializer_value(_value_id(doc, name), array)


def _typed(name: str, array: object) -> Edit:
    return lambda doc: doc.edit("Set", lambda ctx, do: ic.set_typed(ctx, do, _value_id(doc, name), array))


def _create(name: str, dtype: str, array: object) -> Edit:
    return lambda doc: doc.edit("Create", functools.partial(ic.create_typed, name=name, dtype=dtype, array=array))


CASES = _cases()


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 200, len(CASES)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[pathlib.Path, bytes]:
    path = tmp_path_factory.mktemp("hostile") / "m.onnx"
    Document(ir.serde.deserialize_model(_model())).save(path)
    return path, path.read_bytes()


@pytest.mark.parametrize("label,edit,word", CASES, ids=[c[0] for c in CASES])
def test_invalid_edit_is_refused_and_changes_nothing(
    saved: tuple[pathlib.Path, bytes], label: str, edit: Edit, word: str
) -> None:
    path, original = saved
    doc = Document.open(path)
    doc.nodes()
    before = snapshot(doc.model)
    with pytest.raises(DocumentError) as info:
        edit(doc)
    error = info.value
    assert error.what and error.why and error.fix, label
    assert re.search(word, str(error)), f"{label}: {error}"
    assert "Traceback" not in str(error)
    assert snapshot(doc.model) == before and not doc.dirty and doc.history == []
    doc.save()  # saving the untouched document writes the same bytes: nothing of the refused edit leaks
    assert path.read_bytes() == original


VALID: list[tuple[str, str, object]] = [
    ("conv", "pads", [0, 0, 0, 0]),
    ("conv", "strides", [2, 2]),
    ("conv", "dilations", [2, 1]),
    ("conv", "auto_pad", "SAME_UPPER"),
    ("conv", "group", 1),
    ("convt", "output_padding", [1, 0]),
    ("maxpool", "ceil_mode", 1),
    ("maxpool", "pads", [1, 1, 0, 0]),
    ("avgpool", "auto_pad", "VALID"),
    ("lppool", "p", 3),
    ("concat", "axis", -(2**63)),
    ("leaky", "alpha", float("inf")),
    ("d2s", "mode", "CRD"),
]


@pytest.mark.parametrize("node,name,value", VALID)
def test_valid_edits_still_apply(node: str, name: str, value: object) -> None:
    doc = Document(ir.serde.deserialize_model(_model()))
    _attr(node, name, value)(doc)
    assert doc.dirty


def test_rank_unknown_uses_the_other_attributes() -> None:
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["y"], name="p", kernel_shape=[2, 2, 2])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    doc = Document(ir.serde.deserialize_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])))
    node_id = next(n.id for n in doc.nodes() if n.name == "p")
    doc.set_attribute(node_id, "pads", [0] * 6)
    with pytest.raises(DocumentError, match="kernel_shape has 3 entries"):
        doc.set_attribute(node_id, "strides", [1, 1])
    doc.set_attribute(node_id, "kernel_shape", [1, 1, 1])  # pads (6 entries) says rank 3 too
    conv_id = doc.add_node("Conv")  # nothing tells its rank: pads must still pair begins with ends
    with pytest.raises(DocumentError, match="per spatial axis"):
        doc.set_attribute(conv_id, "pads", [1, 1, 1])
    doc.set_attribute(conv_id, "pads", [1, 1, 1, 1, 1, 1])


def test_every_backend_model_attribute_passes_the_rules() -> None:
    from onnx.backend.test import loader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = loader.load_node_model_tests()
    refused = []
    for case in cases:
        model = ir.serde.deserialize_model(case.model)
        for node in model.graph:
            for attr in node.attributes.values():
                try:
                    check_attribute(node, attr)
                except DocumentError as exc:
                    refused.append(f"{case.name}: {exc}")
    assert refused == []
