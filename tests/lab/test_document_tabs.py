"""Kernel side of DL Designer tabs, driven message by message as a tab would: the view kept by key (what a reloaded
page reattaches to), the dirty state sent on every change, Save As through the tab."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.lab import document_tabs
from dld_jupyter.lab.document_tabs import TabLink
from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.widgets.designer.designer import new_designer, open_designer


@pytest.fixture(autouse=True)
def no_comm_target(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_tabs, "register", lambda: None)  # no kernel comm manager in a test


def test_show_keeps_the_view_by_key(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    shutil.copy(SAMPLE_MODEL, path)
    made: list[Any] = []
    first = document_tabs.show("tab/m.onnx", lambda: made.append(open_designer(path)) or made[-1])
    again = document_tabs.show("tab/m.onnx", lambda: made.append(open_designer(path)) or made[-1])
    assert first is again and len(made) == 1 and document_tabs.is_live("tab/m.onnx")
    document_tabs.forget("tab/m.onnx")
    assert not document_tabs.is_live("tab/m.onnx")


def test_link_sends_dirty_changes_and_saves_as(tmp_path: Path) -> None:
    sent: list[dict[str, Any]] = []
    designer = document_tabs.show("new.onnx", new_designer)
    link = TabLink("new.onnx", sent.append)
    assert sent[-1] == {"kind": "state", "name": designer.document.name, "path": "", "dirty": False, "document": True}
    designer.document.add_node("Relu")
    assert sent[-1]["dirty"] is True
    link.handle({"kind": "save", "request": 3, "path": None})
    assert sent[-1]["ok"] is False and "Save As" in sent[-1]["error"]
    target = tmp_path / "saved.onnx"
    link.handle({"kind": "save", "request": 4, "path": str(target)})  # a Relu without input: invalid (issue 26)
    assert sent[-1]["ok"] is False
    assert sent[-1]["data"]["invalid"] == ["Relu_0: These mandatory inputs are not connected: 0 (X)"]
    assert "save it anyway as a draft" in sent[-1]["error"] and not target.exists()
    link.handle({"kind": "save", "request": 5, "path": str(target), "draft": True})  # the user confirmed a draft
    assert sent[-1] == {"kind": "reply", "request": 5, "ok": True, "error": None, "data": None}
    assert sent[-2]["dirty"] is False and sent[-2]["path"] == str(target) and target.stat().st_size > 0
    link.close()
    document_tabs.forget("new.onnx")


def test_a_file_the_tab_cannot_show_says_why(tmp_path: Path) -> None:
    """Open With DL Designer (Engine Graph) on a JSON that is no layer information: the reason, not a traceback."""
    import dld_jupyter as dld

    report = tmp_path / "profile.json"
    report.write_text("[]")
    view = document_tabs.show("profile.json", lambda: dld.open_engine(str(report)))
    assert "dld-tab-error" in view._dom_classes and "expected an object with a &quot;Layers&quot; list" in view.value
    assert not document_tabs.is_live("profile.json")  # not kept: a reload reads the file again
    sent: list[dict[str, Any]] = []
    TabLink("profile.json", sent.append)
    assert sent[-1]["document"] is False


def test_a_profile_in_a_tab_opens_its_report_in_a_tab_beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real ONNX Runtime profile from a designer shown in a tab: the tab is asked to open the report (path relative
    to the kernel's working directory), the heat goes on the canvas, and no viewer is built below the designer."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLE_MODEL, tmp_path / "m.onnx")
    sent: list[dict[str, Any]] = []
    designer = document_tabs.show("m.onnx", lambda: open_designer(tmp_path / "m.onnx"))
    link = TabLink("m.onnx", sent.append)
    panel = designer.profile_panel(run=True, iterations=3, warmup=1, threads=1)
    result = panel.wait(240)
    assert result is not None and result.ok, result and result.error
    assert sent[-1] == {"kind": "open_report", "file": "m.dld-report.json"}
    assert panel.viewer is None and panel.report_area.children == () and "its own tab" in panel.phase.value
    assert designer.heat is not None, "the report's heat is on the canvas"
    link.close()
    assert designer.open_report_tab is None, "a closed tab link opens no more reports"
    document_tabs.forget("m.onnx")


def test_a_start_activity_tab_picks_its_model_and_opens_the_report_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Start Activity dialog in a tab (no designer): Browse… asks the tab for JupyterLab's file dialog, the choice
    comes back as the model, a real profile of that file asks the tab to open its report; closing the link hides
    Browse… again and the next report shows in the dialog."""
    import dld_jupyter as dld

    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLE_MODEL, tmp_path / "m.onnx")
    sent: list[dict[str, Any]] = []
    dialog = document_tabs.show("Start Activity", lambda: dld.start_activity())
    link = TabLink("Start Activity", sent.append)
    assert sent[-1]["kind"] == "state" and sent[-1]["document"] is False
    dialog.browse_button.click()
    assert sent[-1] == {"kind": "pick_model"}
    link.handle({"kind": "model_picked", "path": "m.onnx"})
    assert dialog.path.value == "m.onnx" and dialog.form is not None
    dialog.form.fields["iterations"].value, dialog.form.fields["warmup"].value = 3, 1
    dialog.run()
    result = dialog.form.wait(240)
    assert result is not None and result.ok, result and result.error
    assert sent[-1] == {"kind": "open_report", "file": "m.dld-report.json"}
    link.close()
    assert dialog.open_report_tab is None and dialog.browse_button.layout.display == "none"
    document_tabs.forget("Start Activity")


def test_a_sweep_in_a_tab_opens_its_results_in_a_tab_beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Sweep form of a designer shown in a tab, and of a Start Activity tab: a real sweep asks the tab to open its
    results (table, chart) in a tab beside it; the new tab takes the live view by its token, a later one (its kernel
    stopped) builds it from the folder; nothing is shown in the dock or below the designer."""
    import dld_jupyter as dld

    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLE_MODEL, tmp_path / "m.onnx")
    sent: list[dict[str, Any]] = []
    designer = document_tabs.show("m.onnx", lambda: open_designer(tmp_path / "m.onnx"))
    link = TabLink("m.onnx", sent.append)
    panel = designer.tools_panel("sweep", batch="1,2", out="m-sweep", iterations=2)
    assert panel.run() is not None and panel.wait(240)
    message = sent[-1]
    assert {k: message[k] for k in ("kind", "view", "title", "file")} == {
        "kind": "open_results", "view": "sweep", "title": "Sweep m-sweep", "file": "m-sweep"}
    assert panel.results_shown == "tab" and designer.reports.children == () and panel.results_area.children == ()
    rebuild = lambda: dld.sweep_results("m-sweep")  # noqa: E731  (what the tab's code passes)
    assert document_tabs.results(message["token"], rebuild) is panel.results  # the live view, once
    again = document_tabs.results(message["token"], rebuild)
    assert again is not panel.results and again.chart.value.count('class="dld-pareto-point"') == 2
    with pytest.raises(ValueError, match="kernel that has stopped"):
        document_tabs.results("gone")
    link.close()
    assert designer.open_results_tab is None
    document_tabs.forget("m.onnx")

    dialog = document_tabs.show("Start Activity", lambda: dld.start_activity("m.onnx", "sweep"))
    link = TabLink("Start Activity", sent.append)
    assert dialog.form is not None
    dialog.form.out.value, dialog.form.iterations.value = "s2", 2
    dialog.run()
    assert dialog.form.wait(240)
    assert sent[-1]["kind"] == "open_results" and sent[-1]["file"] == "s2"
    link.close()
    assert dialog.open_results_tab is None
    with pytest.raises(ValueError, match="kernel that has stopped"):  # never claimed: dropped with its link
        document_tabs.results(sent[-1]["token"])
    document_tabs.forget("Start Activity")
