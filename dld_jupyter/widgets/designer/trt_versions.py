"""The TensorRT version choice of the export and profile forms (seed 000 "Selecting a Version"): a dropdown of the
installations found here, each with its version (activities/runtimes/tensorrt/installs.py: this environment's
module, trtexec on PATH, the paths added before), and "Custom path…" with a path field and Add, which checks the
path (a trtexec binary is run for its version) and keeps it in the list for the next forms.

The choice is the settings' `tensorrt` and `tensorrt_path`: the folder the worker imports tensorrt from (and checks
it did), or the trtexec binary the equivalent command line names. With an SSH target chosen in the run panel the
installations here mean nothing: the choice is the deployment's module or an absolute folder on the target, which
the run there checks (`follow_target`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import ipywidgets as w

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.tensorrt.installs import InstallStore, TrtInstall, find_installs, path_install
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.formats.html_text import fill

if TYPE_CHECKING:
    from dld_jupyter.activities.targets.ssh import SshTarget

CUSTOM = "custom"
PYTHON_MISSING = TrtInstall("python", None, None, "not installed (pip install tensorrt)")
REMOTE_PYTHON = TrtInstall("python", None, None)  # a target's: its run says what it is


def _key(install: TrtInstall) -> str:
    return f"{install.source}:{install.path or ''}"


class TrtVersionChoice:
    """The dropdown, the custom path with Add, and a line saying what Add found."""

    def __init__(self, settings: TrtSettings, store: InstallStore | None = None) -> None:
        self.store = store or InstallStore()
        self.target: str | None = None  # a remote target's name (use_target)
        self._remote: Callable[[], SshTarget] | None = None  # builds that target (it connects when asked)
        self._remote_found: list[TrtInstall] | None = None  # what "Find on target" found there
        self.installs: dict[str, TrtInstall] = {}
        self._listeners: list[Callable[[], object]] = []
        self.dropdown = w.Dropdown(description="TensorRT version", style={"description_width": "170px"},
                                   layout=w.Layout(width="380px"))
        self.path = w.Text(description="Custom path", placeholder="tensorrt folder, trtexec or TensorRT folder",
                           style={"description_width": "170px"}, layout=w.Layout(width="310px"))
        self.add = w.Button(description="Add", tooltip="check this path and list it (kept for the next forms)",
                            layout=w.Layout(width="64px"))
        self.find = w.Button(description="Find on target", icon="search", layout=w.Layout(display="none"),
                             tooltip="list the TensorRT installations of the target, with their versions (deploys "
                                     "the target first when needed, as a run would)")
        self.note = w.HTML()
        self.path_row = w.HBox([self.path, self.add])
        self.box = w.VBox([self.dropdown, self.path_row, self.find, self.note])
        self.box.add_class("dld-trt-version")
        self.add.on_click(lambda _button: self._in_thread(self.add_path) if self.target else self.add_path())
        self.find.on_click(lambda _button: self._in_thread(self.find_on_target))
        # Not on every keystroke of the path: checking one runs it (a trtexec prints its version); Add checks it.
        self.dropdown.observe(lambda _change: self._changed(), names="value")
        self.refresh()
        chosen = f"{settings.tensorrt}:{settings.tensorrt_path or ''}"
        if chosen in self.installs:
            self.dropdown.value = chosen
        elif settings.tensorrt != "python":  # a path not in the list (recalled settings): shown to add or use
            self.dropdown.value, self.path.value = CUSTOM, settings.tensorrt_path or ""
        self._show_path()

    def refresh(self) -> None:
        """List what is found now (the first entry is this environment's module, found or not); for a remote
        target, its deployment's module and a custom path there (what the target has is found by its run)."""
        if self.target is not None and self._remote_found is not None:
            self.installs = {_key(install): install for install in self._remote_found}
            self.installs.setdefault(_key(REMOTE_PYTHON), REMOTE_PYTHON)
            labels = {key: _on_target(install, self.target) for key, install in self.installs.items()}
        elif self.target is not None:
            self.installs = {_key(REMOTE_PYTHON): REMOTE_PYTHON}
            labels = {_key(REMOTE_PYTHON): f"TensorRT of the deployment on {self.target}"}
        else:
            found = find_installs(self.store)
            if not any(install.source == "python" for install in found):
                found.insert(0, PYTHON_MISSING)
            self.installs = {_key(install): install for install in found}
            labels = {key: install.label for key, install in self.installs.items()}
        current = self.dropdown.value
        self.dropdown.options = [(labels[key], key) for key in self.installs] + [("Custom path…", CUSTOM)]
        self.dropdown.value = current if current in {*self.installs, CUSTOM} else next(iter(self.installs))
        self.find.layout.display = "" if self.target is not None else "none"

    def use_target(self, target: str | None, make: Callable[[], SshTarget] | None = None) -> None:
        """The run's target: None this machine, else a saved connection's name and how to reach it (its TensorRT
        is the target's: Find on target lists it)."""
        self.target, self._remote, self._remote_found = target, make, None
        self.store = InstallStore(self.store.path, target)
        self.note.value = ""
        self.refresh()
        self._changed()

    def find_on_target(self) -> list[TrtInstall] | None:
        """List the target's installations (its deployment's module, trtexec on its PATH, the paths kept for it)."""
        from dld_jupyter.activities.errors import ActivityError
        from dld_jupyter.activities.runtimes.tensorrt.target_installs import target_installs

        if self._remote is None or self.target is None:
            return None
        self.note.value = fill("<span>finding TensorRT on {}…</span>", self.target)
        try:
            found = target_installs(self._remote(), self.store.paths())
        except (ActivityError, OSError) as error:
            self.note.value = fill('<span style="color:#b45309">{}</span>', str(error))
            return None
        self._remote_found = found
        self.refresh()
        self.note.value = fill("<span>{} found on {}</span>", str(len(found)), self.target)
        return found

    @staticmethod
    def _in_thread(work: Callable[[], object]) -> None:
        threading.Thread(target=work, name="dld-trt-versions", daemon=True).start()  # a target may take seconds

    def _show_path(self) -> None:
        self.path_row.layout.display = "" if self.dropdown.value == CUSTOM else "none"

    def _changed(self) -> None:
        self._show_path()
        for listener in self._listeners:
            listener()

    def on_change(self, listener: Callable[[], object]) -> None:
        """Call `listener()` when another TensorRT is chosen (the panels ask `reason()` again)."""
        self._listeners.append(listener)

    def reason(self) -> str | None:
        """Why the chosen TensorRT cannot run here (the runtime's own answer), or None; on a remote target the run
        there answers (None here, unless the choice itself is wrong)."""
        from dld_jupyter.activities.runtimes import runtime_named

        try:
            picked = self.settings()
            chosen = TrtSettings(tensorrt=picked["tensorrt"] or "python", tensorrt_path=picked["tensorrt_path"])
        except (ValueError, SpecError) as error:
            return str(error)
        return None if self.target is not None else runtime_named("tensorrt").available(chosen)

    def add_path(self) -> TrtInstall | None:
        """Check the custom path, keep it, list it and choose it; say why not when it is no TensorRT."""
        from dld_jupyter.activities.errors import ActivityError

        try:
            if self.target is not None and self._remote is not None:  # checked there, kept here for that target
                from dld_jupyter.activities.runtimes.tensorrt.target_installs import add_target_path

                install = add_target_path(self._remote(), self.path.value.strip(), self.store)
                self._remote_found = [*(self._remote_found or []), install]
            else:
                install = self.store.add(self.path.value.strip())
        except (SpecError, ActivityError, OSError) as error:
            self.note.value = fill('<span style="color:#b45309">{}</span>', str(error))
            return None
        self.refresh()
        self.dropdown.value = _key(install)
        self.note.value = fill("<span>added: {}</span>", _on_target(install, self.target))
        return install

    def settings(self) -> dict[str, str | None]:
        """The `tensorrt` and `tensorrt_path` of the choice; ValueError saying what is wrong with a custom path."""
        if self.dropdown.value != CUSTOM:
            return self.installs[self.dropdown.value].settings()
        text = self.path.value.strip()
        if not text:
            raise ValueError("settings.tensorrt_path: give the custom TensorRT path (a folder holding the tensorrt "
                             "package, a trtexec binary or a TensorRT folder), or choose a version found")
        if self.target is not None:  # a folder on the target, checked by the run there (this machine cannot)
            if not text.startswith("/"):
                raise ValueError(f"settings.tensorrt_path: give the absolute path of the folder holding the tensorrt "
                                 f"package on {self.target}")
            return {"tensorrt": "path", "tensorrt_path": text}
        install = path_install(text)
        if install.problem is not None:
            raise ValueError(f"settings.tensorrt_path: {text}: {install.problem}")
        return install.settings()

    def disable(self, disabled: bool) -> None:
        for widget in (self.dropdown, self.path, self.add):
            widget.disabled = disabled


def _on_target(install: TrtInstall, target: str | None) -> str:
    """An install's label, saying where it is when that is a target."""
    if target is None:
        return install.label
    if install.source == "python":
        what = f"TensorRT {install.version}" if install.version and not install.problem else "no tensorrt module"
        return f"{what} — the deployment on {target}"
    return f"{install.label} (on {target})"


def follow_target(choice: TrtVersionChoice, target: w.Dropdown, local: str, new_connection: str) -> None:
    """Keep `choice` on the run panel's chosen target (`target`, whose `local` value is this machine)."""
    from dld_jupyter.widgets.runs.targets import make_target

    def chosen(change: dict[str, object]) -> None:
        name = str(change["new"])
        if name == new_connection:
            return
        if name == local:
            choice.use_target(None)
        else:
            choice.use_target(name, lambda: cast("SshTarget", make_target(name)))

    target.observe(chosen, names="value")
