"""A user tool's definition (seed 000 "User Tools"), its validation, and its JSON form.

Fields, the seed's: a unique `name`, the `application` (the executable; a Python script is the interpreter with
the script as first argument), `arguments` (a list: each item is one argv entry, `$Model` / `$Output` replaced
inside it), `prompt_for_output` (ask for the `$Output` path; otherwise a fresh temporary file) and
`open_output` (open the `$Output` model when the tool succeeds). The JSON form is a list of objects with these
keys (camelCase as the JupyterLab settings write them; snake_case accepted too).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dld_jupyter.document import DocumentError

MODEL = "$Model"
OUTPUT = "$Output"
_PLACEHOLDER = re.compile(re.escape(MODEL) + "|" + re.escape(OUTPUT))


class ToolError(DocumentError):
    """A user tool that cannot be saved or run as defined."""


@dataclass(frozen=True)
class UserTool:
    name: str
    application: str
    arguments: list[str] = field(default_factory=list)
    prompt_for_output: bool = False
    open_output: bool = False

    @property
    def uses_output(self) -> bool:
        return any(OUTPUT in a for a in self.arguments)

    def executable(self) -> str | None:
        """The application's full path when it can be run (a path, or a command found on PATH), else None."""
        if os.sep in self.application or (os.altsep and os.altsep in self.application):
            path = os.path.expanduser(self.application)
            return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
        return shutil.which(self.application)

    def argv(self, model: str, output: str | None) -> list[str]:
        """The command line: the executable, then each argument with `$Model` / `$Output` replaced in one pass (a
        model path holding `$Output`, or an output path holding `$Model`, is data and stays as it is)."""
        executable = self.executable()
        if executable is None:
            raise _not_found(self)
        if self.uses_output and output is None:
            raise ToolError(
                f"Run {self.name}",
                "its arguments use $Output but no output path was given.",
                "Pass an output path or let the runner pick a temporary one.",
            )
        values = {MODEL: model, OUTPUT: output or ""}
        return [executable, *(_PLACEHOLDER.sub(lambda m: values[m.group(0)], a) for a in self.arguments)]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "application": self.application,
            "arguments": list(self.arguments),
            "promptForOutput": self.prompt_for_output,
            "openOutput": self.open_output,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UserTool:
        what = "Read a user tool"
        if not isinstance(data, Mapping):
            raise ToolError(what, f"{data!r} is not an object.", 'Write each tool as {"name": ..., ...}.')
        unknown = set(data) - {
            "name",
            "application",
            "arguments",
            "promptForOutput",
            "prompt_for_output",
            "openOutput",
            "open_output",
        }
        if unknown:
            raise ToolError(
                what,
                f"unknown keys {sorted(unknown)}.",
                "Use name, application, arguments, promptForOutput, openOutput.",
            )
        arguments = data.get("arguments", [])
        if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
            raise ToolError(what, f"arguments {arguments!r} are not a list of strings.", 'Write ["$Model", ...].')
        return cls(
            str(data.get("name", "")),
            str(data.get("application", "")),
            list(arguments),
            bool(data.get("promptForOutput", data.get("prompt_for_output", False))),
            bool(data.get("openOutput", data.get("open_output", False))),
        )


def _not_found(tool: UserTool) -> ToolError:
    return ToolError(
        f"Run {tool.name}",
        f"the application {tool.application!r} is not an executable file.",
        "Give the full path of the program (for a script: the interpreter, then the script).",
    )


def validate_tool(tool: UserTool, others: Iterable[UserTool] = ()) -> None:
    """Refuse an empty or taken name (names are compared without case or surrounding spaces), an empty or missing
    application."""
    what = f"Save the user tool {tool.name!r}"
    if not tool.name.strip():
        raise ToolError(what, "it has no name.", "Give it a unique name.")
    if any(o.name.strip().casefold() == tool.name.strip().casefold() for o in others):
        raise ToolError(what, "another tool has this name.", "Pick a name no other tool uses.")
    if not tool.application.strip():
        raise ToolError(what, "it has no application path.", "Give the program to run.")
    if tool.executable() is None:
        raise _not_found(tool)


def validate_tools(tools: Iterable[UserTool]) -> None:
    """Validate a whole list (each name unique)."""
    seen: list[UserTool] = []
    for tool in tools:
        validate_tool(tool, seen)
        seen.append(tool)


def tools_to_json(tools: Iterable[UserTool]) -> str:
    return json.dumps([t.to_json() for t in tools], indent=2)


def tools_from_json(text: str) -> list[UserTool]:
    """Tools from their JSON list; names must be unique (the application is checked when one runs)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ToolError("Read user tools", f"the text is not JSON ({error}).", "Fix or delete the file.") from None
    if not isinstance(data, list):
        raise ToolError("Read user tools", "the JSON is not a list.", "Write a list of tools: [{...}, ...].")
    tools = [UserTool.from_json(item) for item in data]
    names = [t.name.strip().casefold() for t in tools]
    duplicates = sorted({t.name for t, n in zip(tools, names, strict=True) if names.count(n) > 1})
    if duplicates:
        raise ToolError("Read user tools", f"names used twice: {duplicates}.", "Rename one of each.")
    return tools
