"""Run a user tool on a saved model: argv list, streamed output, Cancel that ends the process and its children.

Cases handled, in order:
1. `$Output`: the path given (the dialog asked for it), else for a tool that prompts an error, else a fresh path
   in a new temporary folder (`<model>_<tool>.onnx`, not created: tools may refuse to overwrite);
2. the command is an argv list handed to the OS directly (never a shell), so a model path with spaces, quotes or
   `;` reaches the tool as exactly one argument; stdin is closed;
3. stdout and stderr are read by two threads and passed line by line, as they come, to `on_output(stream, line)`;
4. the tool runs in a new session (its own process group); Cancel (the token) or the timeout sends SIGTERM to the
   whole group, then SIGKILL after `grace` seconds, so children it started end too;
5. the result: the exit code, whether it was cancelled, the argv, the output path, and `open_path` (the output to
   open: asked for, exit code 0, and the file exists).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from dld_jupyter.transforms.progress import CancelToken
from dld_jupyter.usertools.tool import ToolError, UserTool

OnOutput = Callable[[str, str], None]  # (stream: "stdout" | "stderr", line without its newline)


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


def default_output(tool: UserTool, model: pathlib.Path) -> pathlib.Path:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="dld_tool_"))
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{model.stem}_{tool.name}")
    return folder / f"{stem}.onnx"


def _pump(stream: IO[str], name: str, on_output: OnOutput | None) -> None:
    for line in stream:
        if on_output is not None:
            on_output(name, line.rstrip("\r\n"))
    stream.close()


def _end_group(process: subprocess.Popen[str], grace: float) -> None:
    """SIGTERM to the tool's process group, SIGKILL to whatever is left after `grace` seconds."""
    if sys.platform == "win32":  # no process groups to signal: end the tree with taskkill
        subprocess.run(["taskkill", "/T", "/F", "/PID", str(process.pid)], capture_output=True, check=False)
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if process.poll() is not None:
            try:
                os.killpg(process.pid, 0)  # children of the group may outlive the leader
            except ProcessLookupError:
                return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


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
    deadline = None if timeout is None else time.monotonic() + timeout
    cancelled = timed_out = False
    while process.poll() is None:
        if cancel is not None and cancel.cancelled:
            cancelled = True
        elif deadline is not None and time.monotonic() > deadline:
            timed_out = True
        if cancelled or timed_out:
            _end_group(process, grace)
            break
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.05)
    code = process.wait()
    for reader in readers:
        reader.join(timeout=5)
    ended = cancelled or timed_out
    return ToolRun(tool.name, argv, None if ended else code, cancelled, timed_out, output, tool.open_output)
