"""The targets a run panel offers (where a run happens): Local, those added here, and the saved SSH connections.

Other work adds choices with `add_target(label, make)`; the saved connections (`dld targets add`,
`dld.targets.add`) are read again each time a panel is built, so a connection saved in another cell or a shell
shows up in the next panel. `make()` builds the `activities.targets` Target a run is started on.
The chooser's last entry, "+ New connection…", is no target: choosing it opens Manage Remote Connections
(target_chooser.py, the run panels' and the Analysis panel's chooser).
"""

from __future__ import annotations

from collections.abc import Callable

from dld_jupyter.activities.targets.base import Target
from dld_jupyter.activities.targets.local import LocalTarget

MakeTarget = Callable[[], Target]
LOCAL = "Local"
NEW_CONNECTION = "+ New connection…"
TARGETS: dict[str, MakeTarget] = {LOCAL: LocalTarget}


def add_target(label: str, make: MakeTarget) -> None:
    """Offer another target in the run panels built from now on (a label already offered is refused)."""
    if label in TARGETS:
        raise ValueError(f"target {label!r} is already offered; choose another label")
    TARGETS[label] = make


def saved_targets() -> list[str]:
    """The names of the saved SSH connections (none when the settings file is unreadable: the run says why)."""
    from dld_jupyter.activities.errors import SpecError
    from dld_jupyter.activities.targets.connections import ConnectionStore

    try:
        return sorted(ConnectionStore().load())
    except SpecError:
        return []


def target_labels() -> list[str]:
    return [*TARGETS, *(name for name in saved_targets() if name not in TARGETS)]


def chooser_options() -> list[str]:
    """What a run panel's target chooser lists: the targets, then "+ New connection…"."""
    return [*target_labels(), NEW_CONNECTION]


def make_target(label: str) -> Target:
    """The Target for a chooser's label (ValueError naming the offered ones otherwise)."""
    make = TARGETS.get(label)
    if make is not None:
        return make()
    if label in saved_targets():
        from dld_jupyter.activities.targets.choose import target_named

        return target_named(label)
    raise ValueError(f"target {label!r} is not offered; choose one of {target_labels()}")
