"""usertools sits beside transforms, below the front doors: no Jupyter package, nothing from the layers above.

Kept here rather than as an entry of tests/core/test_layers.py's ORDER so that the branches changing that file
merge cleanly; the rule is the same one, applied with its helper.
"""

from __future__ import annotations

from tests.core.test_layers import JUPYTER, PACKAGE, imported_modules

ABOVE = ["report_format", "activities", "reports", "frontdoor", "widgets", "cli", "lab"]
ALLOWED = {"dld_jupyter.document", "dld_jupyter.transforms.progress"}


def test_usertools_imports_only_the_core_below_it() -> None:
    offences = []
    for path in sorted((PACKAGE / "usertools").rglob("*.py")):
        for module in imported_modules(path):
            top = module.split(".")[0]
            inside = module.startswith("dld_jupyter.")
            banned = top in JUPYTER or any(module.startswith(f"dld_jupyter.{layer}") for layer in ABOVE)
            if banned or (inside and not module.startswith("dld_jupyter.usertools") and module not in ALLOWED):
                offences.append(f"{path.name} imports {module}")
    assert not offences, "\n".join(offences)
