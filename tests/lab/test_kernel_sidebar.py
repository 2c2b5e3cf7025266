"""Kernel side of the JupyterLab sidebar, driven message by message as the browser would (no browser needed)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import ipywidgets
import pytest

from dld_jupyter.lab.kernel_sidebar import SidebarSession
from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.widgets.designer.designer import open_designer


@pytest.fixture
def designer(tmp_path: Path) -> Any:
    path = tmp_path / "resnet8.onnx"
    shutil.copy(SAMPLE_MODEL, path)
    return open_designer(path)


@pytest.fixture
def sent() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def session(sent: list[dict[str, Any]]) -> SidebarSession:
    return SidebarSession(sent.append)


def bind(session: SidebarSession, designer: Any, sent: list[dict[str, Any]]) -> dict[str, Any]:
    session.handle({"kind": "bind", "model_id": designer.model_id})
    return sent[-1]


def test_hello_lists_only_designers(session: SidebarSession, designer: Any, sent: list[dict[str, Any]]) -> None:
    other = ipywidgets.Button()
    session.handle({"kind": "hello", "candidates": [other.model_id, designer.model_id, "gone"]})
    assert sent[-1] == {
        "kind": "designers",
        "items": [{"model_id": designer.model_id, "title": "resnet8", "path": str(designer.document.path)}],
    }


def test_bind_sends_palette_layers_and_selection(session: SidebarSession, designer: Any, sent: list) -> None:
    state = bind(session, designer, sent)
    assert state["kind"] == "state" and state["title"] == "resnet8"
    layers = state["layers"]
    assert len(layers["ids"]) == 29 and "/stem/conv/Conv" in layers["names"]
    assert {"name": "Conv", "domain": "ai.onnx"}.items() <= next(
        p for p in state["palette"] if p["name"] == "Conv"
    ).items()
    assert state["opsets"] == {"": 17}


def test_selection_flows_both_ways(session: SidebarSession, designer: Any, sent: list) -> None:
    layers = bind(session, designer, sent)["layers"]
    session.handle({"kind": "select", "ids": layers["ids"][:2]})
    assert list(designer.canvas.selection) == layers["ids"][:2]
    designer.canvas.selection = [layers["ids"][3]]
    assert sent[-1] == {"kind": "selection", "ids": [layers["ids"][3]]}


def test_edits_arrive_as_layer_patches(session: SidebarSession, designer: Any, sent: list) -> None:
    bind(session, designer, sent)
    session.handle({"kind": "add_node", "op": "Relu", "domain": "ai.onnx"})
    patch = sent[-1]
    assert patch["kind"] == "layers_patch" and patch["removed"] == []
    assert patch["upsert"]["types"] == ["Relu"]
    new_id = patch["upsert"]["ids"][0]
    session.handle({"kind": "command", "request": 1, "action": "undo", "args": {}})
    assert sent[-1] == {"kind": "reply", "request": 1, "ok": True, "error": None, "data": None}
    assert sent[-2] == {
        "kind": "layers_patch",
        "removed": [new_id],
        "upsert": {"ids": [], "names": [], "types": [], "domains": [], "precisions": [], "constants": []},
    }


def test_commands_and_settings(session: SidebarSession, designer: Any, sent: list, tmp_path: Path) -> None:
    bind(session, designer, sent)
    session.handle({"kind": "command", "request": 1, "action": "show_grid", "args": {}})
    assert designer.canvas.show_grid is True
    session.handle(
        {"kind": "settings", "color_scheme": "okabe-ito", "hide_constants": False, "auto_check_threshold": 100}
    )
    assert designer.canvas.color_scheme == "okabe-ito" and designer.canvas.show_constants is True
    designer.canvas.color_scheme = "default"  # the user's later choice wins over the Lab default
    session.handle(
        {"kind": "settings", "color_scheme": "tol-muted", "hide_constants": True, "auto_check_threshold": 100}
    )
    assert designer.canvas.color_scheme == "default"
    target = tmp_path / "copy.onnx"
    session.handle({"kind": "command", "request": 2, "action": "dld:save-as", "args": {"path": str(target)}})
    assert target.exists() and sent[-1] == {"kind": "reply", "request": 2, "ok": True, "error": None, "data": None}


def test_errors_are_messages_not_exceptions(session: SidebarSession, designer: Any, sent: list) -> None:
    session.handle({"kind": "select", "ids": ["n1"]})
    assert sent[-1]["kind"] == "error" and "no designer is bound" in sent[-1]["message"]
    session.handle({"kind": "bind", "model_id": ipywidgets.Button().model_id})
    assert "is not a designer" in sent[-1]["message"]
    bind(session, designer, sent)
    session.handle({"kind": "command", "request": 3, "action": "format_disk", "args": {}})
    assert sent[-1]["kind"] == "reply" and sent[-1]["request"] == 3 and not sent[-1]["ok"]
    assert "unknown command 'format_disk'" in sent[-1]["error"]
    before = len(designer.document.nodes())
    session.handle({"kind": "add_node", "op": "NoSuchOp"})
    assert sent[-1]["kind"] == "error" and len(designer.document.nodes()) == before


def test_save_as_of_an_invalid_model_lists_why_and_saves_a_draft_on_request(
    session: SidebarSession, designer: Any, sent: list, tmp_path: Path
) -> None:
    """Issue 26, item 4: Save As from the Lab (a notebook's designer) no longer writes an invalid model silently."""
    bind(session, designer, sent)
    designer.document.add_node("Relu")  # its input unconnected: the checker refuses the model
    target = tmp_path / "draft.onnx"
    session.handle({"kind": "command", "request": 3, "action": "dld:save-as", "args": {"path": str(target)}})
    assert sent[-1]["ok"] is False and not target.exists()
    assert any("mandatory inputs are not connected" in p for p in sent[-1]["data"]["invalid"])
    session.handle({"kind": "command", "request": 4, "action": "dld:save-as",
                    "args": {"path": str(target), "draft": True}})
    assert sent[-1]["ok"] is True and target.exists()
