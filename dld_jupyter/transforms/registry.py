"""The registry of transforms: front doors list `all_transforms()` and run one by `get(name)`.

Its own module so that transform modules and the registry's users import it without importing each other. The
built-in transforms are registered on the registry's first use, before any other (their modules are a tenth of a
designer's imports, which its first view never uses: issue 42).
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dld_jupyter.transforms.transform import Transform

_TRANSFORMS: dict[str, Transform] = {}
_BUILTINS = (  # (module, class), in their registration order
    ("extract", "ExtractSubgraph"),
    ("paste", "Paste"),
    ("fp16", "ConvertModelToFp16"),
    ("sanitize", "Sanitize"),
    ("tensor_conversion", "ConvertTensors"),
    ("function_create", "CreateFunctionFromSelection"),
    ("function_inline", "InlineFunction"),
    ("function_extract", "ExtractFunctionModel"),
    ("subgraph_extract", "ExtractModelSubgraph"),
)
_loading = threading.RLock()
_loaded = False


def _builtins() -> None:
    """Register the built-in transforms, once (a thread that comes meanwhile waits for them)."""
    global _loaded
    if _loaded:
        return
    with _loading:
        if _loaded:
            return
        for module, name in _BUILTINS:
            transform = getattr(importlib.import_module(f"dld_jupyter.transforms.{module}"), name)()
            _TRANSFORMS[transform.name] = transform
        _loaded = True


def register(transform: Transform) -> Transform:
    """Add `transform` under its name; a second one with the same name is a programming error."""
    _builtins()
    if transform.name in _TRANSFORMS:
        raise ValueError(f"a transform named {transform.name!r} is already registered; pick another name")
    _TRANSFORMS[transform.name] = transform
    return transform


def get(name: str) -> Transform:
    """The transform called `name`; KeyError naming the registered ones otherwise."""
    _builtins()
    if name not in _TRANSFORMS:
        raise KeyError(f"no transform named {name!r}; registered transforms are {sorted(_TRANSFORMS)}")
    return _TRANSFORMS[name]


def all_transforms() -> list[Transform]:
    """Every registered transform, in registration order."""
    _builtins()
    return list(_TRANSFORMS.values())
