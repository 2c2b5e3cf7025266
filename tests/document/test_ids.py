"""The one id scheme (document/model/ids.py): every kind of element id is read back as what it names, and edge ids round
trip, so no module needs its own prefix check."""

from __future__ import annotations

import pytest

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.model.ids import edge_id, kind_of, parse_edge_id, value_node_id, value_of_node


@pytest.mark.parametrize(
    ("element_id", "kind"),
    [
        ("n0", "op"),
        ("v12", "value"),
        ("iv3", "input"),
        ("ov3", "output"),
        ("rv3", "outer"),
        ("g:encoder/layer.0", "group"),
        ("f:n4/n0", "body"),
        ("n1:0->ov3:0", "edge"),
        ("g:encoder:-1->n7:0", "edge"),  # a collapsed group's link
        ("f:n4/i0:0->f:n4/n1:2", "edge"),
    ],
)
def test_kind_of_reads_every_kind(element_id: str, kind: str) -> None:
    assert kind_of(element_id) == kind


@pytest.mark.parametrize("bad", ["", "x3", "L4", "3"])
def test_kind_of_refuses_what_is_no_id(bad: str) -> None:
    with pytest.raises(DocumentError, match="none of the id kinds"):
        kind_of(bad)


@pytest.mark.parametrize(("src", "si", "dst", "di"), [("n1", 0, "n2", 3), ("iv0", 0, "ov9", 0), ("g:a:b", -1, "n2", 0)])
def test_edge_ids_round_trip(src: str, si: int, dst: str, di: int) -> None:
    assert parse_edge_id(edge_id(src, si, dst, di)) == (src, si, dst, di)


def test_parse_edge_id_refuses_a_node_id() -> None:
    with pytest.raises(DocumentError, match="an edge id reads"):
        parse_edge_id("n1")


def test_value_nodes_name_their_value() -> None:
    assert value_node_id("outer", "v5") == "rv5"
    assert value_of_node("iv5") == "v5"
    with pytest.raises(DocumentError, match="only input, output and outer-reference"):
        value_of_node("n5")


def test_a_document_mints_only_ids_of_the_scheme() -> None:
    doc = Document.new()
    relu = doc.add_node("Relu")
    doc.add_graph_input(relu, 0, "x", "float", [1, 3])
    doc.add_graph_output(relu, 0, "y")
    kinds = {node.id: kind_of(node.id) for node in doc.nodes()}
    assert {kinds[node.id] for node in doc.nodes()} == {"op", "input", "output"}
    assert all(kinds[node.id] == node.kind for node in doc.nodes())
    for edge in doc.edges():
        assert kind_of(edge.id) == "edge"
        assert parse_edge_id(edge.id)[0] == edge.src
