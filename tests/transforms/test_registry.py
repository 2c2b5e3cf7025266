"""The transform registry: built-ins are registered, names are unique, requirements are stated."""

from __future__ import annotations

import pytest

from dld_jupyter import transforms
from dld_jupyter.transforms import Requirement


def test_builtins_are_registered_with_their_requirements() -> None:
    names = [t.name for t in transforms.all_transforms()]
    assert {"extract", "paste"} <= set(names)
    extract, paste = transforms.get("extract"), transforms.get("paste")
    assert extract.writes_new_file and extract.requires == {Requirement.SELECTION}
    assert not paste.writes_new_file and paste.requires == {Requirement.CLIPBOARD}


def test_unknown_and_duplicate_names() -> None:
    with pytest.raises(KeyError, match=r"no transform named 'fp16'; registered transforms are \["):
        transforms.get("fp16")
    with pytest.raises(ValueError, match="already registered"):
        transforms.register(transforms.get("paste"))
