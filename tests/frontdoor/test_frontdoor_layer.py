"""frontdoor/ sits below the front doors: it imports none of them and no Jupyter package, and the front doors
reach each other only through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.test_layers import JUPYTER, PACKAGE, imported_modules

FRONT_DOORS = ["widgets", "cli", "lab"]


def test_frontdoor_imports_no_front_door_and_no_jupyter() -> None:
    forbidden = JUPYTER | {f"dld_jupyter.{door}" for door in FRONT_DOORS}
    offences = [
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in sorted((PACKAGE / "frontdoor").rglob("*.py"))
        for module in imported_modules(path)
        if any(module == bad or module.startswith(bad + ".") for bad in forbidden)
    ]
    assert not offences, "\n".join(offences)


@pytest.mark.parametrize("door", FRONT_DOORS)
def test_no_front_door_imports_another(door: str) -> None:
    others = [f"dld_jupyter.{other}" for other in FRONT_DOORS if other != door]
    offences = [
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in sorted((PACKAGE / door).rglob("*.py"))
        for module in imported_modules(path)
        if any(module == other or module.startswith(other + ".") for other in others)
    ]
    assert not offences, "\n".join(offences)


def test_the_rule_sees_an_offence(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from dld_jupyter.widgets.designer.designer import Designer\n")
    assert "dld_jupyter.widgets.designer.designer" in imported_modules(bad)
