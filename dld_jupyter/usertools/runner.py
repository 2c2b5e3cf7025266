"""Run a user tool on a saved model: argv list, streamed output, Cancel that ends the process and its children.

Cases handled, in order:
1. `$Output`: the path given (the dialog asked for it), else for a tool that prompts an error, else a fresh path
   in a new temporary folder (`<model>_<tool>.onnx`, not created: tools may refuse to overwrite);
2. the command is an argv list handed to the OS directly (never a shell), so a model path with spaces, quotes or
   `;` reaches the tool as exactly one argument; stdin is closed;
3. stdout and stderr are read by two threads and passed line by line, as they come, to `on_output(stream, line)`;
   a line longer than LINE_LIMIT characters is read in pieces and passed cut, with a note of what was left out
   (a 50 MB line never becomes one string);
4. the tool runs in a new session (its own process group), and its descendants are followed through /proc
   (processes.py: a `setsid` grandchild leaves the group); Cancel (the token) or the timeout sends SIGTERM to the
   group and to every descendant, then SIGKILL after `grace` seconds, so every process it started ends too;
5. the result: the exit code, whether it was cancelled, the argv, the output path, and `open_path` (the output to
   open: asked for, exit code 0, and the file exists).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from dld_jupyter.transforms.progress import CancelToken
from dld_jupyter.usertools.processes import ProcessTree, end_tree
from dld_jupyter.usertools.tool import ToolError, UserTool

OnOutput = Callable[[str, str], None]  # (stream: "stdout" | "stderr", line without its newline)
LINE_LIMIT = 32 * 1024  # characters of one line passed on; the rest is counted, not kept
SCAN_EVERY = 0.25  # seconds between /proc scans for the tool's descendants while it runs


@dataclass(frozen=True)
class ToolRun:
    tool: str
    argv: list[str]
    exit_code: int | None  # None: it was ended by Cancel or the timeout before it exited by itself
    cancelled: bool
    timed_out: bool
    output: pathlib.Path | None
    open_output: bool

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.cancelled and not self.timed_out

    @property
    def open_path(self) -> pathlib.Path | None:
        """The model to open now: the tool asked for it, succeeded and wrote `$Output`."""
        if self.open_output and self.ok and self.output is not None and self.output.is_file():
            return self.output
        return None


def safe_stem(name: str, fallback: str = "model") -> str:
    """`name` as one file name without its suffix: letters, digits, `_ . -` only, no leading dot, at most 100
    characters, so a graph or tool name such as `../x` or `/etc/x` can never reach another folder."""
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".")[:100]
    return stem or fallback


def file_inside(folder: pathlib.Path, name: str, suffix: str = ".onnx") -> pathlib.Path:
    """`folder/<safe name><suffix>`, checked to resolve inside `folder`."""
    path = folder / f"{safe_stem(name)}{suffix}"
    if path.resolve().parent != folder.resolve():
        raise ToolError("Name a file for a user tool", f"{name!r} leads outside {str(folder)!r}.", "Rename it.")
    return path


def default_output(tool: UserTool, model: pathlib.Path) -> pathlib.Path:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="dld_tool_"))
    return file_inside(folder, f"{model.stem}_{tool.name}")


def _pump(stream: IO[str], name: str, on_output: OnOutput | None) -> None:
    """Pass each line on as it comes; a line over LINE_LIMIT is read on in pieces and passed cut, with a note."""
    while line := stream.readline(LINE_LIMIT):
        ended = line.endswith("\n")
        cut = 0
        while not ended and len(line) >= LINE_LIMIT and (rest := stream.readline(LINE_LIMIT)):
            ended = rest.endswith("\n")
            cut += len(rest) - ended
        line = line.rstrip("\r\n")
        if cut:
            line += f" … [line cut: {cut:,} more characters not shown]"
        if on_output is not None:
            on_output(name, line)
    stream.close()


def _end(process: subprocess.Popen[str], tree: ProcessTree | None, grace: float) -> None:
    """End the tool and every process it started (processes.py), SIGKILL after `grace` seconds."""
    if tree is None:  # Windows: no process groups to signal: end the tree with taskkill
        subprocess.run(["taskkill", "/T", "/F", "/PID", str(process.pid)], capture_output=True, check=False)
        return
    end_tree(tree, process.poll, grace)


def run_tool(
    tool: UserTool,
    model_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str] | None = None,
    on_output: OnOutput | None = None,
    cancel: CancelToken | None = None,
    timeout: float | None = None,
    grace: float = 3.0,
) -> ToolRun:
    """Run `tool` on the saved model at `model_path` and wait for it (see the module docstring)."""
    model = pathlib.Path(model_path).resolve()
    what = f"Run {tool.name}"
    if not model.is_file():
        raise ToolError(what, f"the model {str(model)!r} is not a saved file.", "Save the model first.")
    output: pathlib.Path | None = None
    if tool.uses_output:
        if output_path is not None:
            output = pathlib.Path(output_path).resolve()
        elif tool.prompt_for_output:
            raise ToolError(what, "the tool asks for an output path.", "Pass output_path.")
        else:
            output = default_output(tool, model)
    argv = tool.argv(str(model), None if output is None else str(output))
    extra = (
        {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        if sys.platform == "win32"
        else {"start_new_session": True}
    )
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
            # A Python tool's prints come as it makes them: piped, its stdout was block-buffered and arrived at its
            # exit, after its stderr lines (the log read out of order, and showed nothing while it ran).
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            **extra,
        )
    except OSError as error:
        raise ToolError(what, f"the application could not start ({error.strerror}).", "Check its path.") from None
    assert process.stdout is not None and process.stderr is not None
    readers = [
        threading.Thread(target=_pump, args=(process.stdout, "stdout", on_output), daemon=True),
        threading.Thread(target=_pump, args=(process.stderr, "stderr", on_output), daemon=True),
    ]
    for reader in readers:
        reader.start()
    tree = None if sys.platform == "win32" else ProcessTree(process.pid)
    deadline = None if timeout is None else time.monotonic() + timeout
    cancelled = timed_out = False
    scanned = time.monotonic()
    while process.poll() is None:
        if cancel is not None and cancel.cancelled:
            cancelled = True
        elif deadline is not None and time.monotonic() > deadline:
            timed_out = True
        if cancelled or timed_out:
            _end(process, tree, grace)
            break
        if tree is not None and time.monotonic() - scanned > SCAN_EVERY:  # remember descendants before they hide
            tree.scan()
            scanned = time.monotonic()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.05)
    code = process.wait()
    for reader in readers:
        reader.join(timeout=5)
    ended = cancelled or timed_out
    return ToolRun(tool.name, argv, None if ended else code, cancelled, timed_out, output, tool.open_output)
