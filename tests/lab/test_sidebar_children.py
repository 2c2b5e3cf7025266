"""The sidebar serves the document a designer shows in its document tabs (issue 19): a subgraph or local function
opened in it brings that document's palette and layers, commands (Confirm, Local Function Settings) act on it, and
closing it goes back to the model; a function created or deleted re-sends the palette (functions are operators)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dld_jupyter.lab.kernel_sidebar import SidebarSession
from dld_jupyter.widgets.designer.designer import open_designer

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def test_the_sidebar_follows_the_shown_document() -> None:
    sent: list[dict[str, Any]] = []
    session = SidebarSession(sent.append)
    d = open_designer(REAL / "gru_scripted.onnx")
    session.handle({"kind": "bind", "model_id": d.model_id})
    assert sent[-1]["title"] == "gru_scripted"
    child = d.open_subgraph("/Loop", "body")
    assert sent[-1]["kind"] == "state" and sent[-1]["title"].endswith("body")
    assert set(sent[-1]["layers"]["types"]) >= {"Gemm", "If"}
    first = next(n for n in child.document.nodes() if n.kind == "op")
    child.document.rename_node(first.id, "via_sidebar")
    session.handle({"kind": "command", "request": 7, "action": "confirm_edits", "args": {}})
    assert sent[-1] == {"kind": "reply", "request": 7, "ok": True, "error": None, "data": None}
    assert d.document.history[-1] == "Confirm Subgraph Edits"
    session.handle({"kind": "command", "request": 8, "action": "close_child", "args": {}})
    assert child.document.closed and sent[-1]["kind"] == "reply" and sent[-1]["ok"]
    assert any(m.get("kind") == "state" and m["title"] == "gru_scripted" for m in sent[-3:])


def test_the_palette_follows_the_functions() -> None:
    sent: list[dict[str, Any]] = []
    session = SidebarSession(sent.append)
    d = open_designer(REAL / "shufflenet_functions_small.onnx")
    session.handle({"kind": "bind", "model_id": d.model_id})
    functions = [e["name"] for e in sent[-1]["palette"] if e["function"]]
    assert sorted(functions) == ["InvertedResidual", "InvertedResidual.1"]
    session.handle(
        {"kind": "command", "request": 1, "action": "create_function", "args": {"name": "Block", "domain": "my.blocks"}}
    )
    states = [m for m in sent if m["kind"] == "state"]
    assert "Block" in [e["name"] for e in states[-1]["palette"] if e["function"]]
    session.handle({"kind": "command", "request": 2, "action": "local_functions", "args": {}})
    assert sent[-1]["ok"] and d.tools.children[0].__class__.__name__ == "FunctionsPanel"
