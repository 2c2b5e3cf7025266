"""A run's command line: the `dld` argv that reproduces it from a shell, and what the run did that no option says.

Why: seed 001's Inference Run Logger lets the user copy the command line of a past run to launch it again from a
terminal; before this only TensorRT had "Show command" (the trtexec line), and nothing said `dld profile …`. Each
kind builds its own line next to its spec (`ActivitySpec.command_line`, `Manifest.command_line` for a sweep,
`divergence_command` for a divergence), with the `Args` builder here, so an option is written the one way the CLI
parses it: a value equal to the CLI's default is left out (the line stays short), a switch the CLI has as
`--x/--no-x` is written either way. A setting no option expresses (a temporary copy of unsaved edits, inputs given
as arrays, a front door's "open afterwards") is said in `unsaid`, never dropped silently. Quoting is `shlex.join`:
a path with spaces or quotes pastes into a POSIX shell as one word. tests/core/test_command_lines.py parses every
kind's line back with the CLI's own parser and compares the specs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Args", "CommandLine"]


@dataclass(frozen=True)
class CommandLine:
    """`argv` (empty: no `dld` command runs this kind) and `unsaid`: what the run did that the command does not."""

    argv: tuple[str, ...]
    unsaid: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The argv quoted for a POSIX shell (`shlex.join`), or "" when no command runs this kind."""
        import shlex

        return shlex.join(self.argv)

    def __str__(self) -> str:
        return self.text


class Args:
    """Builds an argv option by option, writing each value as the `dld` parser reads it back."""

    def __init__(self, *words: str) -> None:
        self.argv: list[str] = list(words)
        self.notes: list[str] = []

    def word(self, *words: object) -> Args:
        """Positional words (model paths)."""
        self.argv.extend(str(w) for w in words)
        return self

    def option(self, flag: str, value: Any, default: Any = None) -> Args:
        """`flag value`, unless the value is None or the CLI's default; floats keep every digit (`repr`)."""
        if value is not None and not (value == default and type(value) is type(default)):
            self.argv += [flag, repr(value) if isinstance(value, float) else str(value)]
        return self

    def listed(self, flag: str, values: list[Any] | tuple[Any, ...], default: list[Any] | None = None) -> Args:
        """`flag a,b,c` (the sweep's comma-separated lists), unless equal to the default."""
        if list(values) != (default if default is not None else None):
            self.argv += [flag, ",".join(str(v) for v in values)]
        return self

    def flag(self, flag: str, value: bool) -> Args:
        """A store-true flag: written when on."""
        if value:
            self.argv.append(flag)
        return self

    def switch(self, flag: str, value: bool | None, default: bool | None) -> Args:
        """A `--x/--no-x` flag (argparse's BooleanOptionalAction): written when it differs from the default."""
        if value is not None and value != default:
            self.argv.append(flag if value else "--no-" + flag.removeprefix("--"))
        return self

    def repeat(self, flag: str, values: list[str] | tuple[str, ...]) -> Args:
        """An append option: `flag v` once per value."""
        for value in values:
            self.argv += [flag, str(value)]
        return self

    def unsaid(self, note: str) -> Args:
        """Something the run did that no option of the command expresses, said in words."""
        self.notes.append(note)
        return self

    def done(self) -> CommandLine:
        return CommandLine(tuple(self.argv), tuple(self.notes))
