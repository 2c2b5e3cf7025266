"""Which options of a `dld` verb name files it reads and files it writes, and the one check of them before it runs.

Why: the output guard (`formats/output_paths.py`) was called by each verb that remembered to, so one that did not
(`dld diverge A B --node-data A`) replaced its input model with JSON and exited 0. Each verb's parser now declares
its file options once (`declare_files`: ONNX models, other inputs, outputs, output folders) and `errors.run_guarded`
calls `check_file_options` before the verb's own code, so a new output option is guarded by declaring it;
`tests/cli/test_every_output_guarded.py` walks every parser and fails on an output option left undeclared.
A verb may still check computed paths (a default output beside the model) itself, with the same module.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Mapping
from typing import Any

KEY = "dld_file_options"  # the Namespace attribute holding a verb's declarations (set through set_defaults)
ROLES = ("model", "input", "output", "folder")  # folder: an output folder the verb creates or fills
Names = Iterable[str] | Mapping[str, str]


def _action(parser: argparse.ArgumentParser, name: str) -> argparse.Action:
    if name.startswith("-"):
        return parser._option_string_actions[name]
    return next(action for action in parser._actions if action.dest == name and not action.option_strings)


def declare_files(
    parser: argparse.ArgumentParser,
    *,
    models: Names = (),
    inputs: Names = (),
    outputs: Names = (),
    folders: Names = (),
) -> None:
    """Declare the parser's file options (option strings like "-o", or positional names like "model"): ONNX
    models (their external data count as inputs), other files read, files written, folders written. A mapping
    gives each the words its messages use ({"--output": "report"}); otherwise the longest option string."""
    table: list[tuple[str, str, str]] = list(parser.get_default(KEY) or [])
    for role, names in zip(ROLES, (models, inputs, outputs, folders), strict=True):
        labels = dict(names) if isinstance(names, Mapping) else dict.fromkeys(names, "")
        for name, label in labels.items():
            action = _action(parser, name)
            default = max(action.option_strings, key=len) if action.option_strings else action.dest
            table.append((role, label or default, action.dest))
    parser.set_defaults(**{KEY: table})


def declared(parser: argparse.ArgumentParser) -> list[tuple[str, str, str]]:
    """(role, label, dest) of each declared file option of `parser`."""
    return list(parser.get_default(KEY) or [])


def _paths(value: Any) -> list[str]:
    """The file paths of an option's value: a path, NAME=FILE pairs (the path), or a list of either."""
    if value is None:
        return []
    if isinstance(value, str | os.PathLike):
        return [os.fspath(value)]
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        return [value[1]]
    return [path for item in value for path in _paths(item)]


def check_file_options(args: argparse.Namespace) -> None:
    """Raise OutputPathError when a declared output would replace a declared input or model (or its external
    data), two outputs are one file, or an output cannot be written; the verbs' undeclared args pass."""
    from dld_jupyter.formats.output_paths import OutputPathError, check_outputs

    table: list[tuple[str, str, str]] = getattr(args, KEY, None) or []
    named: dict[str, dict[str, str]] = {role: {} for role in ROLES}
    for role, label, dest in table:
        paths = _paths(getattr(args, dest, None))
        for path in paths:
            named[role][label if len(paths) == 1 else f"{label} {path}"] = path
    for label, folder in named["folder"].items():
        if os.path.lexists(folder) and not os.path.isdir(folder):
            raise OutputPathError(f"the {label} folder {folder} is a file, not a folder: give the path of a folder "
                                  "(a new one is created). Nothing was written.")
    check_outputs(named["output"], named["input"], named["model"].values())


def require_folder(path: str, label: str) -> None:
    """OutputPathError when the folder `path` goes in does not exist: a verb that writes only after a long run
    says so before it (`dld run -o missing/x.npz` ran the model, then failed to write)."""
    from dld_jupyter.formats.output_paths import OutputPathError

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise OutputPathError(f"the {label} {path} cannot be written: the folder {folder} does not exist; create it "
                              "or give another path. Nothing was written.")
