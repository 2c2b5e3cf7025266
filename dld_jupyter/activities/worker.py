"""The worker process: `python -m dld_jupyter.activities.worker SPEC.json` (or `-` for stdin).

Runs one activity and speaks `protocol` on stdout; a session kind (`kinds.session`) stays alive after its spec and
answers envelope requests read line by line from stdin (`Run.request`) until stdin ends or asks to close. Anything
native code prints goes to stderr instead, so the message stream stays clean. Exit status: 0 done, 1 failed,
2 bad input, 3 unavailable (as `dld`'s exit codes).
A crash or a kill of this process is the engine's to report: nothing here has to survive it. The other way round,
on Linux a worker started by the local target ends when the process that started it dies (`DLD_PARENT_PID`,
prctl's parent-death signal): a kernel killed outright, or a Dask worker of a local cluster gone with its kernel, left
its worker measuring for as long as the spec asked, holding the CPU or GPU with nobody to read the report (issue 42).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import FrameType
from typing import TextIO

from dld_jupyter.activities.errors import BAD_INPUT, FAILED, UNAVAILABLE, ActivityError, UnavailableError
from dld_jupyter.activities.protocol import Channel

EXIT_CODES = {FAILED: 1, BAD_INPUT: 2, UNAVAILABLE: 3}


def _protocol_stream() -> Channel:
    """Keep the real stdout for messages and point fd 1 (and sys.stdout) at stderr."""
    sys.stdout.flush()
    channel_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return Channel(os.fdopen(channel_fd, "w", encoding="utf-8", buffering=1))


def _on_terminate(signum: int, frame: FrameType | None) -> None:
    # Cancellation: unwind so `finally` blocks run (GPU clocks get reset, temp files go).
    raise SystemExit(128 + signum)


PARENT_ENV = "DLD_PARENT_PID"  # the pid of the process that started the worker (targets/local.py sets it)
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Linux: SIGTERM this process when the process named by DLD_PARENT_PID dies (now, when it has already);
    elsewhere, or without the variable, nothing."""
    parent = os.environ.get(PARENT_ENV, "")
    if not sys.platform.startswith("linux") or not parent.isdigit():
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # no prctl in this libc: the worker outlives a killed parent, as before
        return
    if os.getppid() != int(parent):  # gone before the signal was asked for
        os.kill(os.getpid(), signal.SIGTERM)


def run(spec_text: str, channel: Channel, requests: Iterable[str] = ()) -> int:
    """Run the spec's activity kind; a session kind then serves `requests` (envelope lines) until they end."""
    from dld_jupyter.activities.kinds import kind_runner
    from dld_jupyter.activities.runtimes import runtime_for
    from dld_jupyter.activities.spec import spec_from_json
    from dld_jupyter.report_format.io import save_report

    try:
        spec = spec_from_json(spec_text)
        runner = kind_runner(spec)
        reason = runtime_for(spec).available(spec.runtime_settings())  # asked with the spec's own settings
        if reason is not None:
            raise UnavailableError(reason)
        outcome = runner(spec, channel, requests)
        artifacts = dict(outcome.artifacts)
        if outcome.report is not None:
            channel.progress(1.0, "writing report")
            save_report(outcome.report, spec.report_path())
            artifacts["report"] = spec.report_path()
    except ActivityError as error:
        channel.send("error", kind=error.kind, message=str(error))
        return EXIT_CODES[error.kind]
    except Exception as error:  # a bug or a runtime error: report it with its traceback in the log
        channel.log(traceback.format_exc(), "error")
        channel.send("error", kind=FAILED, message=f"{type(error).__name__}: {error}")
        return EXIT_CODES[FAILED]
    channel.send("done", artifacts=artifacts)
    return 0


def read_spec(stream: TextIO) -> str:
    """The spec's JSON from the head of `stream`: lines up to the first that completes a JSON value (the engine
    sends one line, then requests), or the whole stream for a spec piped by hand."""
    text = ""
    for line in stream:
        text += line
        try:
            json.loads(text)
        except ValueError:
            continue
        return text
    return text  # incomplete or invalid: spec_from_json says what is wrong


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m dld_jupyter.activities.worker SPEC.json|-", file=sys.stderr)
        return EXIT_CODES[BAD_INPUT]
    spec_text = read_spec(sys.stdin) if args[0] == "-" else Path(args[0]).read_text(encoding="utf-8")
    channel = _protocol_stream()
    signal.signal(signal.SIGTERM, _on_terminate)
    die_with_parent()
    return run(spec_text, channel, sys.stdin)


if __name__ == "__main__":
    sys.exit(main())
