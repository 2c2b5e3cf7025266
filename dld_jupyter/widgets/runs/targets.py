"""The targets a run panel offers (where a run happens): Local only for now.

The remote-target work adds its choices with `add_target(label, make)`; each panel's chooser lists the choices
known when it is built. `make()` builds the `activities.targets` Target a run is started on.
"""

from __future__ import annotations

from collections.abc import Callable

from dld_jupyter.activities.targets.base import Target
from dld_jupyter.activities.targets.local import LocalTarget

MakeTarget = Callable[[], Target]
LOCAL = "Local"
TARGETS: dict[str, MakeTarget] = {LOCAL: LocalTarget}


def add_target(label: str, make: MakeTarget) -> None:
    """Offer another target in the run panels built from now on (a label already offered is refused)."""
    if label in TARGETS:
        raise ValueError(f"target {label!r} is already offered; choose another label")
    TARGETS[label] = make


def target_labels() -> list[str]:
    return list(TARGETS)


def make_target(label: str) -> Target:
    """The Target for a chooser's label (ValueError naming the offered ones otherwise)."""
    make = TARGETS.get(label)
    if make is None:
        raise ValueError(f"target {label!r} is not offered; choose one of {list(TARGETS)}")
    return make()
