"""A broken or hostile worker, for the tests that prove the engine trusts nothing a worker or a target says.

`python hostile_worker.py MODE [REPORT]` reads the spec's line from stdin, as the real worker does, and answers on
stdout with the protocol (`@dld {...}` lines). Standard library only: it also runs on the loopback SSH target in
place of the deployed launcher (it announces its process group and drops the caller's pings, as the launcher
does). Modes:
- `malformed`: malformed messages (a progress fraction of "abc", of null, a bad done...), then 200 KB of plain
  output, then the copy of REPORT at the staged report path and a proper `done`;
- `done:<json>`: REPORT copied to the staged report path, then a `done` naming the artifacts <json> (with
  `{report}` replaced by the staged report path);
- `big-report`: a 300 MB file (sparse) at the staged report path, named in `done`;
- `random-report`: 64 KiB of random bytes at the staged report path, named in `done`;
- `junk-layer-info` (an engine export's spec): an engine and random bytes for its layer information, both named.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

PID_MARK = "\x00dld-worker-pgid "  # as activities/targets/remote_launcher.py announces the worker's group
PING = "\x00dld-ping\n"  # what the caller sends the launcher every second (the launcher drops them)


def send(kind: str, **data: object) -> None:
    sys.stdout.write("@dld " + json.dumps({"type": kind, **data}) + "\n")
    sys.stdout.flush()


def main() -> int:
    mode, source = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    if os.environ.get("DLD_HOSTILE_REMOTE"):
        sys.stderr.write(f"{PID_MARK}{os.getpgrp()}\n")
        sys.stderr.flush()
    spec = json.loads(next(line for line in sys.stdin if line != PING))
    output = spec["output"]
    if mode == "junk-layer-info":
        with open(spec["engine"], "wb") as engine, open(spec["metadata"], "wb") as layer_info:
            engine.write(b"an engine")
            layer_info.write(os.urandom(4096))
        send("done", artifacts={"engine": spec["engine"], "layer_info": spec["metadata"]})
        return 0
    if mode == "malformed":
        for line in (
            '@dld {"type": "progress", "fraction": "abc"}',
            '@dld {"type": "progress", "fraction": null}',
            '@dld {"type": "progress", "fraction": 1e999}',
            '@dld {"type": "log", "level": ["x"], "message": {"y": 1}}',
            '@dld {"type": "reply", "request": "one"}',
            '@dld {"type": "something else"}',
        ):
            print(line, flush=True)
        for number in range(2000):  # 200 KB: three times what a pipe holds
            print(f"line {number:05d} " + "x" * 89, flush=True)
        shutil.copyfile(source, output)
        send("done", artifacts={"report": output})
    elif mode.startswith("done:"):
        shutil.copyfile(source, output)
        send("done", artifacts=json.loads(mode[len("done:") :].replace("{report}", output)))
    elif mode == "big-report":
        with open(output, "wb") as stream:
            stream.truncate(300 * 1000 * 1000)
        send("done", artifacts={"report": output})
    elif mode == "random-report":
        with open(output, "wb") as stream:
            stream.write(os.urandom(64 * 1024))
        send("done", artifacts={"report": output})
    else:
        print(f"hostile_worker: unknown mode {mode!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
