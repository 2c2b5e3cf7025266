"""The layer explorer's Add/Remove Breakpoint (issue 29, seed 001 §4 Debugger): the sidebar's `command` message
reaches the designer's analysis as the canvas menu's request does (launching the analysis if needed, stopping at the
breakpoint), and the explorer is told the breakpoints to badge, on a real export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dld_jupyter.lab.kernel_sidebar import SidebarSession
from dld_jupyter.widgets.designer.designer import Designer

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


def test_explorer_breakpoints_reach_the_analysis(mobilenet_designer: Designer) -> None:
    designer = mobilenet_designer
    sent: list[dict[str, Any]] = []
    session = SidebarSession(sent.append)
    session.handle({"kind": "bind", "model_id": designer.model_id})
    convs = [n.id for n in designer.document.nodes() if n.op_type == "Conv"][:2]

    def command(request: int, action: str, nodes: list[str]) -> dict[str, Any]:
        session.handle({"kind": "command", "request": request, "action": action, "args": {"nodes": nodes}})
        return next(m for m in reversed(sent) if m.get("kind") == "reply" and m.get("request") == request)

    refused = command(1, "remove_breakpoint", convs)  # nothing to remove before an analysis
    assert not refused["ok"] and "not being analysed" in refused["error"] and designer.analysis is None

    assert command(2, "add_breakpoint", convs)["ok"]
    analysis = designer.analysis
    assert analysis is not None and analysis.breakpoint_ids == convs  # launched, both breakpoints in execution order
    assert analysis.position_id == convs[0]  # and stopped at the first, as the canvas menu does
    assert designer.analysis_mode.panel.overlay.payload["breakpoints"] == convs  # the canvas badges follow

    assert sent[0]["kind"] == "state" and sent[0]["breakpoints"] == []
    badges = [m["ids"] for m in sent if m.get("kind") == "breakpoints"]
    assert badges[-1] == convs  # the explorer rows wear the badge the canvas glyphs wear

    assert command(3, "dld:remove-breakpoint", convs[:1])["ok"]
    assert analysis.breakpoint_ids == convs[1:]
    designer.stop_analysis()
    assert [m["ids"] for m in sent if m.get("kind") == "breakpoints"][-1] == []  # none once stopped
