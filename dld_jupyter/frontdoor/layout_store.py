"""Named layouts of the designer's panels (seed 000: "the commands under the Window menu save, apply or reset
layouts"; issue 41), kept in the user's JupyterLab settings (the `layouts` entry of the dld-jupyter plugin,
formats/lab_settings.py), so JupyterLab's View ▸ DL Designer Layouts menu, the Settings Editor and
`designer.layouts` in a notebook share one list, written atomically.

A layout is what the designer's dock really has (widgets/designer/dock.py): the side the panels are docked on
(beside or below the canvas), their size in px (width beside, height below), whether they are shown, and the
editors' tab in front; plus, when saved from JupyterLab, the shell's part (js/src/lab/side_bars.ts): for each
side bar whether it is collapsed, which panel it shows and its width. Python keeps that part as given, after
checking its shape, and the Lab applies it; a layout saved from Python has none and leaves JupyterLab's side bars
as they are.
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.formats.lab_settings import LabSettingsError, lab_settings_path, read_settings, write_setting

KEY = "layouts"
SIDES = ("right", "bottom")
TABS = ("parameters", "initializers", "tensor")
BARS = ("left", "right")  # JupyterLab's side bars
MIN_SIZE = 160  # as the dock's splitter allows
MIN_BAR = 50  # a JupyterLab side bar's width, px (js/src/lab/side_bars.ts)
MAX_SIZE = 4000
MAX_NAME = 80
FIX_FILE = "Correct or remove that entry in Settings ▸ Settings Editor ▸ DL Designer (JSON), or save it again."


class LayoutError(DocumentError):
    """A layout that cannot be saved, found or read; says what, why and the fix."""


@dataclass(frozen=True)
class PanelLayout:
    """One arrangement: `side` "right" | "bottom", `size` px, `shown`, editors' `tab`, and JupyterLab's `shell`
    part ({"left": {"collapsed": bool, "current": panel id or None, "width": px}, "right": ...}; {} when saved
    from Python)."""

    side: str = "right"
    size: int = 380
    shown: bool = True
    tab: str = "parameters"
    shell: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        what = "Layout"
        if self.side not in SIDES:
            raise LayoutError(what, f"side {self.side!r} is not one of {', '.join(SIDES)}.", "Pick one of them.")
        if isinstance(self.size, bool) or not isinstance(self.size, int) or not MIN_SIZE <= self.size <= MAX_SIZE:
            raise LayoutError(what, f"size {self.size!r} is not a whole number of px in {MIN_SIZE}–{MAX_SIZE}.",
                              "Give the dock's width (height when docked below) in px.")
        if not isinstance(self.shown, bool):
            raise LayoutError(what, f"shown {self.shown!r} is not true or false.", "Give true or false.")
        if self.tab not in TABS:
            raise LayoutError(what, f"tab {self.tab!r} is not one of {', '.join(TABS)}.", "Pick one of them.")
        _check_shell(self.shell)

    def to_json(self) -> dict[str, Any]:
        dock = {"side": self.side, "size": self.size, "shown": self.shown, "tab": self.tab}
        return {"dock": dock, "shell": {bar: dict(state) for bar, state in self.shell.items()}}

    @classmethod
    def from_json(cls, data: Any, name: str = "") -> PanelLayout:
        where = f"Layout {name!r}" if name else "Layout"
        if not isinstance(data, dict) or not isinstance(data.get("dock"), dict):
            raise LayoutError(where, "it has no \"dock\" object.", FIX_FILE)
        dock = data["dock"]
        unknown = set(dock) - {"side", "size", "shown", "tab"}
        if unknown:
            raise LayoutError(where, f"its dock has unknown keys {sorted(unknown)}.", FIX_FILE)
        try:
            return cls(side=dock.get("side", "right"), size=dock.get("size", 380), shown=dock.get("shown", True),
                       tab=dock.get("tab", "parameters"), shell=data.get("shell") or {})
        except LayoutError as error:
            raise LayoutError(where, error.why, FIX_FILE) from None


def _check_shell(shell: Any) -> None:
    if not isinstance(shell, Mapping):
        raise LayoutError("Layout", f"its shell part {shell!r} is not an object.", "Give {} or side bar states.")
    for bar, state in shell.items():
        if bar not in BARS:
            raise LayoutError("Layout", f"the shell has no side bar {bar!r}.", f"Use {' or '.join(BARS)}.")
        if not isinstance(state, Mapping) or set(state) - {"collapsed", "current", "width"}:
            raise LayoutError("Layout", f"the {bar} side bar's state {state!r} is not "
                              '{"collapsed": bool, "current": panel id or null, "width": px}.', "Give that shape.")
        current, width = state.get("current"), state.get("width")
        if not isinstance(state.get("collapsed", False), bool) or not (
            current is None or (isinstance(current, str) and len(current) <= 200)
        ) or not (width is None or (type(width) is int and MIN_BAR <= width <= MAX_SIZE)):
            raise LayoutError("Layout", f"the {bar} side bar's state {state!r} has a wrong value.",
                              f"collapsed is true or false, current a panel id (or null), width {MIN_BAR}–{MAX_SIZE}"
                              " px (or absent).")


DEFAULT = PanelLayout()
"""Reset Layout: the panels beside the canvas at the width a designer first opens with, the Parameters tab."""


def check_name(name: Any) -> str:
    """The name stripped; refused when empty, too long, or holding control characters."""
    if not isinstance(name, str) or not name.strip():
        raise LayoutError("Save layout", "the layout has no name.", "Give it a name, such as 'Wide editors'.")
    text: str = name.strip()
    if len(text) > MAX_NAME or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise LayoutError("Save layout", f"the name {text[:MAX_NAME]!r}… is too long or holds control characters.",
                          f"Use at most {MAX_NAME} printable characters.")
    return text


def load_layouts(file: pathlib.Path | None = None) -> dict[str, PanelLayout]:
    """The saved layouts by name, in the order they were first saved ({} when none is)."""
    target = file or lab_settings_path()
    try:
        entries = read_settings(target).get(KEY, [])
    except LabSettingsError as error:
        raise LayoutError("Read layouts", str(error), "Fix it in Settings ▸ Settings Editor.") from None
    if not isinstance(entries, list):
        raise LayoutError("Read layouts", f"{target}: \"{KEY}\" is not a list.", FIX_FILE)
    found: dict[str, PanelLayout] = {}
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.strip():
            raise LayoutError("Read layouts", f"{target}: an entry of \"{KEY}\" has no name: {entry!r}.", FIX_FILE)
        found[name] = PanelLayout.from_json(entry, name)
    return found


def _write(layouts: Mapping[str, PanelLayout], file: pathlib.Path | None) -> pathlib.Path:
    entries = [{"name": name, **layout.to_json()} for name, layout in layouts.items()]
    return write_setting(file or lab_settings_path(), KEY, entries)


def save_layout(name: str, layout: PanelLayout, file: pathlib.Path | None = None) -> pathlib.Path:
    """Keep `layout` under `name` (one saved before under that name is replaced in its place)."""
    name = check_name(name)
    layouts = load_layouts(file)
    layouts[name] = layout
    return _write(layouts, file)


def get_layout(name: str, file: pathlib.Path | None = None) -> PanelLayout:
    layouts = load_layouts(file)
    if name not in layouts:
        known = ", ".join(repr(n) for n in layouts) or "none yet"
        raise LayoutError("Apply layout", f"no layout is named {name!r} (saved: {known}).",
                          "Save one first (View ▸ DL Designer Layouts ▸ Save Layout…, or designer.layouts.save).")
    return layouts[name]


def delete_layout(name: str, file: pathlib.Path | None = None) -> pathlib.Path:
    layouts = load_layouts(file)
    if name not in layouts:
        get_layout(name, file)  # raises, listing the saved names
    del layouts[name]
    return _write(layouts, file)
