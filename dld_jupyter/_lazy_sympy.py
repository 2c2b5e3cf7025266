"""sympy loads when first used, not when onnx-ir is imported.

Why: onnx-ir imports sympy at its top for symbolic dimension arithmetic (`SymbolicDim + 1`) and its parser of
symbolic shape expressions (`onnx_ir._symbolic_shapes`, which reads `sympy.Max` and the like when imported). Opening,
drawing and editing a model use neither, and that import was 0.18-0.65 s of every first `dld.open` in a kernel
(issue 42: the largest of a cold open's imports). `install()` puts a deferred module for each in `sys.modules`
before anything of the package imports onnx-ir: it has its spec, name, file and package path (the import system
finds it, and a submodule like `sympy.core` imports as usual) and runs its code the first time any other attribute
is read (onnx-ir's arithmetic, or a user's `sympy.Symbol`), once, under a lock: another thread waits for the end.

Nothing changes where sympy or onnx-ir is imported already, or either is not installed, or onnx-ir has no such module.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
import types
from pathlib import Path
from typing import Any

PARSER = "onnx_ir._symbolic_shapes"
_lock = threading.RLock()
_loading: set[str] = set()  # modules whose code runs now (in the thread that holds the lock)


class _Deferred(types.ModuleType):
    """A module whose code has not run yet: reading a missing attribute runs it, then reads the attribute."""

    def __getattr__(self, name: str) -> Any:  # only called for attributes the module does not have yet
        module_name = self.__name__
        with _lock:
            if module_name in _loading:  # its own code, or a module it imports, reads it half run: as a plain import
                raise AttributeError(f"partially initialized module {module_name!r} has no attribute {name!r}")
            if isinstance(self, _Deferred):
                _loading.add(module_name)
                try:
                    spec = self.__spec__
                    assert spec is not None and spec.loader is not None
                    spec.loader.exec_module(self)
                finally:
                    _loading.discard(module_name)
                object.__setattr__(self, "__class__", types.ModuleType)  # a plain module from now on
        return getattr(self, name)


def install() -> None:
    """Make sympy and onnx-ir's symbolic shape parser deferred in this process, where neither is imported yet."""
    if "sympy" in sys.modules or "onnx_ir" in sys.modules:
        return
    try:
        sympy = importlib.util.find_spec("sympy")
        package = importlib.util.find_spec("onnx_ir")  # finds the package without importing it
    except (ImportError, ValueError):  # an import hook refuses one (a host without onnx-ir): nothing to defer
        return
    if sympy is None or package is None or not package.submodule_search_locations:
        return
    parser_file = Path(next(iter(package.submodule_search_locations))) / "_symbolic_shapes.py"
    parser = importlib.util.spec_from_file_location(PARSER, parser_file) if parser_file.is_file() else None
    if parser is None or sympy.loader is None or parser.loader is None:
        return
    for spec in (sympy, parser):
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Deferred
        sys.modules[spec.name] = module
