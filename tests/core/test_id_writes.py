"""One id scheme (issue 38): element ids are written and read only through dld_jupyter/document/model/ids.py.

Checked on the source, not by grep: a module outside ids.py that concatenates an id prefix (`"i" + value_id`), opens
an f-string with one (`f"n{k}"`), formats one (`"v%d" % k`, `"o{}".format(v)`), writes an edge id inline
(`f"{src}:{i}->{dst}:{j}"`) or tests a prefix (`x[:1] == "v"`, `x.startswith("r")`) fails here, naming the line.
Before this test canvas_view.py and outline.py wrote input/output/outer node ids, node and value ids and edge ids
inline (13 places) and three modules tested prefixes by hand (4 places).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "dld_jupyter"
SCHEME = PACKAGE / "document" / "model" / "ids.py"
PREFIXES = frozenset({"n", "v", "i", "o", "r", "g:", "f:"})


def _prefix_text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _starts_with_prefix(text: str, then: str) -> bool:
    """`text` is an id prefix followed by a placeholder (`then` opens it: "%" or "{")."""
    return any(text.startswith(prefix + then) for prefix in PREFIXES)


def _offence(node: ast.AST) -> str | None:
    """What `node` does with the id scheme that only ids.py may do, or None."""
    if isinstance(node, ast.BinOp):
        left = _prefix_text(node.left)
        if left is not None and isinstance(node.op, ast.Add) and left in PREFIXES:
            return "adds an id prefix"
        if left is not None and isinstance(node.op, ast.Mod) and _starts_with_prefix(left, "%"):
            return "formats an id with %"
    if isinstance(node, ast.JoinedStr):
        parts = [_prefix_text(value) for value in node.values]
        if len(parts) > 1 and parts[0] in PREFIXES and parts[1] is None:
            return "opens an f-string with an id prefix"
        if "->" in parts and any(part is not None and part.startswith(":") for part in parts):
            return "writes an edge id inline"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = _prefix_text(node.func.value)
        if node.func.attr == "format" and owner is not None and _starts_with_prefix(owner, "{"):
            return "formats an id with str.format"
        if node.func.attr == "startswith" and node.args and _prefix_text(node.args[0]) in PREFIXES:
            return "tests an id prefix with startswith"
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Subscript):
        index = node.left.slice
        first = (isinstance(index, ast.Constant) and index.value == 0) or (
            isinstance(index, ast.Slice) and index.lower is None and _prefix_text(index.upper) is None
            and isinstance(index.upper, ast.Constant) and index.upper.value in (1, 2))
        if first and any(_prefix_text(other) in PREFIXES for other in node.comparators):
            return "tests an id prefix by its first characters"
    return None


def offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return [f"line {node.lineno}: {found}: {ast.unparse(node)[:80]}"
            for node in ast.walk(tree) if (found := _offence(node)) is not None]


def test_ids_are_written_and_read_only_in_ids_py() -> None:
    found = [f"{path.relative_to(PACKAGE.parent)} {where}" for path in sorted(PACKAGE.rglob("*.py"))
             if path != SCHEME for where in offences(path)]
    assert not found, "build and read element ids with document/model/ids.py's functions:\n" + "\n".join(found)


def test_the_rule_catches_each_inline_id(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        'a = "i" + vid\n'
        'b = f"n{k}"\n'
        'c = "v%d" % k\n'
        'd = "o{}".format(vid)\n'
        'e = f"{src}:{si}->{dst}:{di}"\n'
        'f = f"{src}:{si}->{dst}:0"\n'
        'g = node_id[:1] == "v"\n'
        'h = node_id[0] != "n"\n'
        'j = node_id.startswith("r")\n'
        'k = f"g:{path}"\n'
    )
    assert len(offences(bad)) == 10, offences(bad)


def test_the_rule_leaves_other_strings_alone(tmp_path: Path) -> None:
    fine = tmp_path / "fine.py"
    fine.write_text(
        'a = f"input_{i}"\n'
        'b = "in" + name\n'
        'c = f"  {value}\\t-> {path}"\n'
        'd = name[:1] == "_"\n'
        'e = text.startswith("nvidia")\n'
        'f = ids.value_node_id("input", vid)\n'
    )
    assert offences(fine) == []
