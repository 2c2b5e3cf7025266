"""The names users call on `dld` are never shadowed by a subpackage: importing `dld_jupyter.X` sets the attribute X on
the package, so a folder named like a public function (a `compare/` package beside `dld.compare`) replaced the
function with a module as soon as anything imported it ("'module' object is not callable")."""

from __future__ import annotations

import importlib
import pkgutil

import dld_jupyter as dld


def test_no_module_of_the_package_is_named_like_a_public_function() -> None:
    modules = {info.name for info in pkgutil.iter_modules(dld.__path__)}
    assert not modules & set(dld.__all__), f"rename these modules: {sorted(modules & set(dld.__all__))}"


def test_public_functions_stay_callable_after_every_subpackage_is_imported() -> None:
    for info in pkgutil.iter_modules(dld.__path__):
        if info.ispkg and info.name not in {"labextension", "static", "models"}:
            importlib.import_module(f"dld_jupyter.{info.name}")
    for name in dld.__all__:
        if name != "__version__":
            assert callable(getattr(dld, name)), f"dld.{name} is not callable"
