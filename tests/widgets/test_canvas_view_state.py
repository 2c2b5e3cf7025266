"""CanvasView owns its state: only canvas_view.py and view_events.py (the half it inherits) change it. Before, the
event application (view_events.patch_for), GraphCanvas (expand, constants) and the overview hand-off
(preview_view) rewrote the view's attributes from outside. Checked on the source of every widgets module: no
assignment to a view's state attribute and no mutating call on one (`view.grouping.expand(...)`,
`self.view.shown_constants ^= ...`)."""

from __future__ import annotations

import ast
from pathlib import Path

WIDGETS = Path(__file__).resolve().parents[2] / "dld_jupyter" / "widgets"
OWNERS = {WIDGETS / "canvas" / "canvas_view.py", WIDGETS / "canvas" / "view_events.py"}
MUTATORS = {"add", "discard", "remove", "pop", "clear", "update", "append", "setdefault", "expand", "collapse",
            "expand_to", "expand_only"}


def state_names() -> set[str]:
    """Attributes a CanvasView sets on itself."""
    names: set[str] = set()
    for owner in OWNERS:
        for node in ast.walk(ast.parse(owner.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
                    and isinstance(node.ctx, ast.Store)):
                names.add(node.attr)
    return names


def is_view(node: ast.expr) -> bool:
    """`view`, `self.view`, `canvas.view`..."""
    if isinstance(node, ast.Name):
        return node.id == "view"
    return isinstance(node, ast.Attribute) and node.attr == "view"


def offences(source: str, state: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute) and target.attr in state and is_view(target.value):
                found.append(f"line {node.lineno}: sets view.{target.attr}")
        if isinstance(node, ast.Attribute) and node.attr in MUTATORS:
            inner = node.value
            if isinstance(inner, ast.Attribute) and inner.attr in state and is_view(inner.value):
                found.append(f"line {node.lineno}: view.{inner.attr}.{node.attr}")
    return found


def test_only_the_view_changes_its_state() -> None:
    state = state_names()
    assert {"sent_nodes", "grouping", "shown_constants", "fn_expanded", "edges"} <= state
    found = [f"{path.relative_to(WIDGETS.parent)} {o}" for path in sorted(WIDGETS.rglob("*.py")) if path not in OWNERS
             for o in offences(path.read_text(), state)]
    assert not found, "CanvasView's state changed from outside (add a CanvasView method):\n" + "\n".join(found)


def test_the_rule_catches_what_it_names() -> None:
    state = {"shown_constants", "grouping", "sent_nodes", "edges"}
    source = ("self.view.shown_constants ^= {x}\nview.sent_nodes = {}\n(self.view.grouping.expand if e else f)(p)\n"
              "view.edges.pop(e)\nview.edges[e] = r\nself.view.resync()\n")
    assert len(offences(source, state)) == 5
