"""The registry of transforms: front doors list `all_transforms()` and run one by `get(name)`.

Its own module so that transform modules and the registry's users import it without importing each other.
"""

from __future__ import annotations

from dld_jupyter.transforms.transform import Transform

_TRANSFORMS: dict[str, Transform] = {}


def register(transform: Transform) -> Transform:
    """Add `transform` under its name; a second one with the same name is a programming error."""
    if transform.name in _TRANSFORMS:
        raise ValueError(f"a transform named {transform.name!r} is already registered; pick another name")
    _TRANSFORMS[transform.name] = transform
    return transform


def get(name: str) -> Transform:
    """The transform called `name`; KeyError naming the registered ones otherwise."""
    if name not in _TRANSFORMS:
        raise KeyError(f"no transform named {name!r}; registered transforms are {sorted(_TRANSFORMS)}")
    return _TRANSFORMS[name]


def all_transforms() -> list[Transform]:
    """Every registered transform, in registration order."""
    return list(_TRANSFORMS.values())
