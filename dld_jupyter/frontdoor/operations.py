"""The one registry of user operations (save, undo, arrange, check, profile…): id, labels, when enabled, run.

They used to be named in five places (the Designer's toolbar, the canvas intents, the sidebar's COMMANDS table,
the Lab command table, the CLI), each calling designer methods by name. Now a front door names an operation by its
id (`dld:save`, the JupyterLab command id) or by its message name (`save`, what the canvas intents and the sidebar
send), and hands it an OperationTarget (operation_target.py). Transforms register here as they land (see
transforms/).

`enabled(target)` is True or the reason the operation cannot run now; `run` raises that reason as
OperationUnavailable when a target lacks what the operation needs, and otherwise the operation's own error
(a DocumentError says what, why and the fix).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from dld_jupyter.frontdoor.operation_target import (
    ArrangesPanels,
    EditsTensorRT,
    ExportsImages,
    OperationTarget,
    Profiles,
    ShowsTools,
)

Enabled = Literal[True] | str


class OperationUnavailable(ValueError):
    """An operation asked of a target that cannot do it; the message says why."""


class InvalidModel(ValueError):
    """Save As refused a model the checker finds invalid: ``problems`` say what is wrong. A designer saves it anyway
    as a draft once the user confirms (``draft=True``), as the seed's tool and other editors do."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = "; ".join(p.rstrip(".") for p in problems[:5])
        if len(problems) > 5:
            shown += f"; and {len(problems) - 5} more"
        super().__init__(f"the model is not valid: {shown}. Fix it, or save it anyway as a draft (draft=True).")


def invalid_reasons(target: OperationTarget) -> list[str]:
    """The checker's errors on the model, one line each (empty: valid)."""
    found = target.document.check()
    return [d.message for d in found if d.severity == "error"]


class UnknownOperation(ValueError):
    """No operation has this id or name (a front door newer or older than the kernel's package)."""


@dataclass(frozen=True)
class Operation:
    id: str  # namespaced, as the JupyterLab command: "dld:save-as"
    name: str  # as the canvas intents and the sidebar's `command` messages name it: "save_as"
    label: str  # a button's text
    caption: str  # its tooltip
    enabled: Callable[[OperationTarget], Enabled]
    run: Callable[..., object]  # run(target, **args)

    def is_enabled(self, target: OperationTarget) -> bool:
        return self.enabled(target) is True

    def __call__(self, target: OperationTarget, **args: Any) -> object:
        return self.run(target, **args)


class OperationRegistry:
    def __init__(self) -> None:
        self._by_id: dict[str, Operation] = {}
        self._by_name: dict[str, Operation] = {}

    def add(self, operation: Operation) -> Operation:
        if operation.id in self._by_id or operation.name in self._by_name:
            raise ValueError(f"operation {operation.id} ({operation.name}) is registered already")
        self._by_id[operation.id] = operation
        self._by_name[operation.name] = operation
        return operation

    def __iter__(self) -> Iterator[Operation]:
        return iter(list(self._by_id.values()))

    def __contains__(self, key: object) -> bool:
        return key in self._by_id or key in self._by_name

    def get(self, key: str) -> Operation:
        """The operation with this id (`dld:save`) or message name (`save`)."""
        found = self._by_id.get(key) or self._by_name.get(key)
        if found is None:
            raise UnknownOperation(f"unknown command {key!r}; known: {', '.join(sorted(self._by_name))}")
        return found

    def run(self, key: str, target: OperationTarget, **args: Any) -> object:
        return self.get(key)(target, **args)


def ready(target: OperationTarget) -> Enabled:
    """Enabled unless the target's model is still loading (or failed to)."""
    load = target.canvas.pending_load
    if load is None:
        return True
    return "the model could not be loaded" if load.failed else "the model is still loading"


def _save_enabled(target: OperationTarget) -> Enabled:
    found = ready(target)
    if found is not True:
        return found
    return True if target.document.path is not None else "the model has no file yet: use Save As"


def _undo_enabled(target: OperationTarget) -> Enabled:
    found = ready(target)
    return found if found is not True else (True if target.document.can_undo else "nothing to undo")


def _redo_enabled(target: OperationTarget) -> Enabled:
    found = ready(target)
    return found if found is not True else (True if target.document.can_redo else "nothing to redo")


def _can_profile(target: OperationTarget) -> Enabled:
    return ready(target) if isinstance(target, Profiles) else "profiling needs a designer (dld.open)"


def _can_export(target: OperationTarget) -> Enabled:
    return True if isinstance(target, ExportsImages) else "exporting an image needs a designer (dld.open)"


def _always(_target: OperationTarget) -> Enabled:
    return True


def _save(target: OperationTarget, path: str | None = None) -> None:
    target.save(path)


def _save_as(target: OperationTarget, path: str = "", draft: bool = False) -> None:
    """Save to another path; an invalid model (a graph input without a usable type...) only as a confirmed draft:
    Save As used to write it without a word."""
    if not path:
        raise OperationUnavailable("Save as: give the path to save the model to.")
    if not draft and (problems := invalid_reasons(target)):
        raise InvalidModel(problems)
    target.save(path)


def _undo(target: OperationTarget) -> str:
    return target.document.undo()


def _redo(target: OperationTarget) -> str:
    return target.document.redo()


def _arrange(target: OperationTarget) -> None:
    target.canvas.arrange()


def _check(target: OperationTarget) -> object:
    return target.check()


def _profile(target: OperationTarget, **settings: Any) -> object:
    if not isinstance(target, Profiles):
        raise OperationUnavailable(str(_can_profile(target)))
    return target.profile_panel(**settings)


def _export_image(target: OperationTarget, path: str = "", **options: Any) -> object:
    if not isinstance(target, ExportsImages):
        raise OperationUnavailable(str(_can_export(target)))
    return target.export(path, **options)


def _can_trt(target: OperationTarget) -> Enabled:
    return ready(target) if isinstance(target, EditsTensorRT) else "the TensorRT dialogs need a designer (dld.open)"


def _trt_dialog(target: OperationTarget, dialog: str = "precision", nodes: list[str] | None = None) -> None:
    if not isinstance(target, EditsTensorRT):
        raise OperationUnavailable(str(_can_trt(target)))
    if dialog not in ("precision", "profile"):
        raise OperationUnavailable(f"unknown TensorRT dialog {dialog!r}: use 'precision' or 'profile'.")
    target.open_trt_dialog(dialog, list(nodes or []))


def _export_engine(target: OperationTarget, **settings: Any) -> object:
    if not isinstance(target, EditsTensorRT):
        raise OperationUnavailable(str(_can_trt(target)))
    return target.export_engine_panel(**settings)


def _toggle_grid(target: OperationTarget) -> bool:
    target.canvas.show_grid = not target.canvas.show_grid
    return target.canvas.show_grid


def _toggle_constants(target: OperationTarget) -> bool:
    target.canvas.show_constants = not target.canvas.show_constants
    return target.canvas.show_constants


MANAGE_CONNECTIONS_KIND = "manage_connections"


def _manage_connections(target: OperationTarget, **settings: Any) -> object:
    """The Manage Remote Connections panel in the designer's dock (where the Tools dialogs show)."""
    if not isinstance(target, ShowsTools):
        raise OperationUnavailable("Remote Connections shows in a designer (dld.open); in a notebook run "
                                   "dld.targets.manage()")
    return target.tools_panel(MANAGE_CONNECTIONS_KIND, **settings)


SWEEP_KIND = "sweep"


def _can_sweep(target: OperationTarget) -> Enabled:
    if not isinstance(target, ShowsTools):
        return "the Sweep form shows in a designer (dld.open); in a notebook run dld.sweep_form(model)"
    if target.document.path is None:
        return "save the model first: a sweep runs model files, each point in its own worker"
    return ready(target)


def _sweep(target: OperationTarget, **fields: Any) -> object:
    """The Sweep form (batch sizes × precisions × providers × GPUs) for the designer's saved model, in its dock."""
    enabled = _can_sweep(target)
    if enabled is not True or not isinstance(target, ShowsTools):
        raise OperationUnavailable(str(enabled))
    return target.tools_panel(SWEEP_KIND, **fields)


def _can_arrange(target: OperationTarget) -> Enabled:
    return True if isinstance(target, ArrangesPanels) else "layouts arrange a designer's panels (dld.open)"


def _arranging(target: OperationTarget) -> ArrangesPanels:
    if not isinstance(target, ArrangesPanels):
        raise OperationUnavailable(str(_can_arrange(target)))
    return target


def _save_layout(target: OperationTarget, name: str = "", shell: dict[str, Any] | None = None) -> object:
    """Save Layout…: the dock's arrangement (and JupyterLab's side bars, `shell`) under `name`."""
    return _arranging(target).layouts.save(name, shell=shell)


def _apply_layout(target: OperationTarget, name: str = "") -> object:
    return _arranging(target).layouts.apply(name)


def _delete_layout(target: OperationTarget, name: str = "") -> None:
    _arranging(target).layouts.delete(name)


def _reset_layout(target: OperationTarget) -> object:
    return _arranging(target).layouts.reset()


def _dock_side(target: OperationTarget, side: str = "right") -> None:
    _arranging(target).side_dock.move(side)


operations = OperationRegistry()
"""Every user operation; front doors dispatch through it."""

SAVE = operations.add(Operation("dld:save", "save", "Save", "Save (Ctrl+S)", _save_enabled, _save))
SAVE_AS = operations.add(Operation("dld:save-as", "save_as", "Save As", "Save the model to another path", ready,
                                   _save_as))
UNDO = operations.add(Operation("dld:undo", "undo", "Undo", "Undo (Ctrl+Z)", _undo_enabled, _undo))
REDO = operations.add(Operation("dld:redo", "redo", "Redo", "Redo (Ctrl+Y)", _redo_enabled, _redo))
ARRANGE = operations.add(Operation("dld:arrange", "arrange", "Arrange", "Arrange nodes", ready, _arrange))
CHECK = operations.add(Operation("dld:check", "check", "Check", "Check the model", ready, _check))
PROFILE = operations.add(Operation("dld:profile", "profile", "Profile", "Profile the model with ONNX Runtime",
                                   _can_profile, _profile))
EXPORT_IMAGE = operations.add(Operation("dld:export-image", "export_image", "Export",
                                        "Export the canvas to the path (.png/.jpg/.svg)", _can_export, _export_image))
SHOW_GRID = operations.add(Operation("dld:show-grid", "show_grid", "Grid", "Show the background grid", _always,
                                     _toggle_grid))
SHOW_CONSTANTS = operations.add(Operation("dld:show-constants", "show_constants", "Constants",
                                          "Show Constant nodes", _always, _toggle_constants))
TRT_DIALOG = operations.add(Operation("dld:trt-dialog", "trt_dialog", "TensorRT",
                                      "Set Layer Precision / TensorRT Optimization Profile on the canvas", _can_trt,
                                      _trt_dialog))
EXPORT_ENGINE = operations.add(Operation("dld:export-engine", "export_engine", "Export Engine",
                                         "Export a TensorRT engine (every seed option, dry-run trtexec line)",
                                         _can_trt, _export_engine))
SWEEP = operations.add(Operation("dld:sweep", SWEEP_KIND, "Sweep…",
                                 "Sweep batch sizes × precisions × providers × models over your GPUs",
                                 _can_sweep, _sweep))
MANAGE_CONNECTIONS = operations.add(Operation("dld:manage-connections", MANAGE_CONNECTIONS_KIND, "Remote Connections…",
                                              "Manage Remote Connections: saved SSH targets, test, host keys",
                                              _always, _manage_connections))
SAVE_LAYOUT = operations.add(Operation("dld:save-layout", "save_layout", "Save Layout…",
                                       "Save the arrangement of the designer's panels under a name", _can_arrange,
                                       _save_layout))
APPLY_LAYOUT = operations.add(Operation("dld:apply-layout", "apply_layout", "Apply Layout",
                                        "Arrange the designer's panels as a saved layout", _can_arrange,
                                        _apply_layout))
DELETE_LAYOUT = operations.add(Operation("dld:delete-layout", "delete_layout", "Delete Layout",
                                         "Forget a saved layout of the designer's panels", _can_arrange,
                                         _delete_layout))
RESET_LAYOUT = operations.add(Operation("dld:reset-layout", "reset_layout", "Reset Layout",
                                        "The default arrangement: panels beside the canvas, Parameters in front",
                                        _can_arrange, _reset_layout))
DOCK_SIDE = operations.add(Operation("dld:dock-side", "dock_side", "Dock Panels",
                                     "Dock the designer's panels beside (right) or below (bottom) the canvas",
                                     _can_arrange, _dock_side))
