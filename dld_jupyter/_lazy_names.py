"""A package's names that load their modules on first use (PEP 562), for packages a first view imports for a few.

Why: `dld.open` imports `dld_jupyter.activities` for a run's result names and `dld_jupyter.model_compare` for the
types its overlays draw, and their `__init__` imported every kind, runtime and the divergence runner with them: a
fifth of a cold open's imports (issue 42). Such a package lists its names under TYPE_CHECKING (for mypy and readers)
and sets `__getattr__, __dir__ = lazy_names(__name__, {name: module})` (`dir()` and a notebook's completion list
the names before they are loaded).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, names: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's `__getattr__` (`name` imports `names[name]`, a module path, reads the name and keeps it) and
    its `__dir__`."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__
