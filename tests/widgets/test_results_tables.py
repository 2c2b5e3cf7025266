"""The divergence and diff tables leave the canvas (issue 42: a 640 px box floating over the graph, a legend listing
removed nodes): shown by the designer, each goes below it in a notebook or into a JupyterLab tab beside it (its
`open_results_tab`); the divergence in execution order with the first node past the tolerance marked, the diff with
every added, changed and removed node; a row's click focuses that node on the designer's canvas."""

from __future__ import annotations

from pathlib import Path

from dld_jupyter.frontdoor.results_tab import ResultsTab
from dld_jupyter.model_compare import diverge
from dld_jupyter.widgets.designer.designer import open_designer
from dld_jupyter.widgets.results.results_table import ResultsTable
from tests.widgets.test_compare_overlays import FEEDS, _models


def test_the_table_goes_below_the_designer_or_into_its_tab_and_focuses_nodes(tmp_path: Path) -> None:
    old, new = _models(tmp_path)
    designer = open_designer(str(new))
    try:
        result = diverge(old, designer.document, inputs=FEEDS, tolerance=0.0)
        designer.show_divergence(result, "candidate", "old.onnx vs. this model")
        table = designer.divergence_table
        assert isinstance(table, ResultsTable) and designer.reports.children == (table,)
        assert table not in designer.tools.children + designer.profiling.children  # never in the dock
        assert table.title == "Divergence: old.onnx vs. this model"
        assert [row["order"] for row in table.rows] == sorted(row["order"] for row in table.rows)
        first = table.rows[table.first_row]  # type: ignore[index]
        assert first["node"] == "/layers.1/mlp/up/MatMul_57" and first["over"]
        assert not any(row["over"] for row in table.rows[: table.first_row])
        table._on_msg(table, {"kind": "focus", "node": first["node"]}, [])  # a click on its row
        by_name = {n.name: n.id for n in designer.document.nodes()}
        assert designer.canvas.selection == [by_name[first["node"]]]

        opened: list[ResultsTab] = []
        designer.open_results_tab = lambda shown: opened.append(shown) is None  # a JupyterLab tab's link
        designer.show_divergence(result, "candidate", "again")
        assert [shown.kind for shown in opened] == ["divergence"] and opened[0].view is designer.divergence_table
        assert opened[0].title == "Divergence: again" and designer.reports.children == (table,)
    finally:
        designer.close()


def test_the_diff_table_lists_every_change_below_the_designer_and_focuses_nodes(tmp_path: Path) -> None:
    old, new = _models(tmp_path)
    designer = open_designer(str(new))
    try:
        designer.compare_with(str(old))
        table = designer.diff_table
        assert isinstance(table, ResultsTable) and designer.reports.children == (table,)
        assert table.title == "Changes: old.onnx" and "old.onnx → this model" in table.summary
        [changed] = [row for row in table.rows if row["change"] == "changed"]
        assert changed["label"] == "/layers.1/mlp/up/MatMul_57" and "weight" in changed["what"]
        assert table.first_row == 0 and table.rows[0] is not None
        table._on_msg(table, {"kind": "focus", "node": changed["node"]}, [])
        assert designer.canvas.selection == [changed["node"]]
        result = diverge(old, designer.document, inputs=FEEDS, tolerance=0.0)
        designer.show_divergence(result)  # one table of each kind below: the diff's stays
        assert designer.reports.children == (table, designer.divergence_table)
    finally:
        designer.close()
