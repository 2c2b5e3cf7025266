"""The notebook's sweep viewer: rows and filters, the Pareto front and chart, CSV, comparison of chosen points,
names shown as text, and the live table updated in place while the sweep runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import dld_jupyter as dld
from dld_jupyter.reports.sweep_table import pareto_ids
from tests.activities import _models as models
from tests.activities.conftest import save


def test_viewer_of_a_sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hostile = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "<b>m"))
    other = str(save(models.resnet_like(blocks=1, channels=8, size=8), tmp_path, "plain"))
    updates: list[str] = []

    class Handle:
        def update(self, shown: Any) -> None:
            updates.append(shown.data)

    shown_module: Any = __import__("IPython.display", fromlist=["display"])
    monkeypatch.setattr(shown_module, "display", lambda *args, **kwargs: Handle())
    view = dld.sweep([hostile, other], batch=[1, 2], out=str(tmp_path / "<i>out"), iterations=3, warmup=0)
    view._ipython_display_()
    assert view.wait(240)
    assert updates and "4 done" in updates[-1]  # the shown table followed the sweep to its end
    html = view._repr_html_()
    assert "<b>" not in html and "<i>" not in html and "&lt;i&gt;out" in html  # a folder name is text
    assert html.count('class="dld-pareto-point"') == 4 and "&lt;b&gt;m b1" in html  # the chart below, labelled
    rows = view.rows(model="plain")
    assert len(rows) == 2 and {r["batch"] for r in rows} == {1, 2}
    assert len(view.rows(batch=[1, 2], state="done")) == 4
    with pytest.raises(ValueError, match="unknown column"):
        view.rows(colour="red")
    front = pareto_ids(view.rows())
    assert front and all(r["state"] == "done" for r in view.rows() if r["id"] in front)
    figure = view.pareto_figure()
    assert {trace.name for trace in figure.data} == {"<b>m", "plain", "Pareto front"}
    assert view.csv(str(tmp_path / "s.csv")).count("\n") == 5
    chosen = [r["id"] for r in view.rows()][:2]
    assert type(view.compare(*chosen)).__name__ == "ReportViewer"
    again = dld.sweep_report(str(tmp_path / "<i>out"))
    assert [r["id"] for r in again.rows()] == [r["id"] for r in view.rows()]


def test_pareto_front_keeps_only_unbeaten_points() -> None:
    rows = [{"id": i, "state": "done", "median_ms": m, "throughput": t}
            for i, m, t in (("a", 1.0, 100.0), ("b", 2.0, 300.0), ("c", 2.5, 250.0), ("d", 0.5, 50.0))]
    assert sorted(pareto_ids(rows)) == ["a", "b", "d"]
