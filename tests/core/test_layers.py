"""Layers run one way: document → transforms → activities → reports → widgets/cli/lab.

The core layers import no Jupyter package (the activity engine runs on bare GPU hosts and under dld-prof),
and no layer imports one above it. Checked on the source, so a lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "dld_jupyter"
ORDER = ["document", "transforms", "activities", "reports"]
FRONT_DOORS = ["widgets", "cli", "lab"]
JUPYTER = {
    "ipywidgets",
    "anywidget",
    "traitlets",
    "IPython",
    "ipykernel",
    "jupyter_server",
    "jupyterlab",
    "notebook",
    "comm",
    "plotly",
    "nbformat",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


# The report format (data shape, its file I/O and pass statistics) is the contract activities write;
# the rest of reports/ (statistics, comparison, exports) sits above activities and reads it.
# passes.py defines what "stable" means in a summary, so it belongs to the format too.
FORMAT_MODULES = {"dld_jupyter.report_format.model", "dld_jupyter.report_format.io", "dld_jupyter.report_format.passes"}


def forbidden_for(layer: str) -> set[str]:
    above = ORDER[ORDER.index(layer) + 1 :] + FRONT_DOORS
    return JUPYTER | {f"dld_jupyter.{name}" for name in above}


@pytest.mark.parametrize("layer", ORDER)
def test_core_layer_imports_nothing_above_it(layer: str) -> None:
    forbidden = forbidden_for(layer)
    offences = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for module in imported_modules(path):
            if module in FORMAT_MODULES:
                continue
            if any(module == banned or module.startswith(banned + ".") for banned in forbidden):
                offences.append(f"{path.relative_to(PACKAGE.parent)} imports {module}")
    assert not offences, "layer rule broken:\n" + "\n".join(offences)


def test_rule_catches_an_offence(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    import ipywidgets\n    from dld_jupyter.widgets import canvas\n")
    assert {"ipywidgets", "dld_jupyter.widgets"} <= imported_modules(bad)
