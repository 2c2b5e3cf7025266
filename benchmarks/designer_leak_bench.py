"""Open / edit / close designers in ONE real kernel and watch what stays behind (issue 31, finding 3).

Why: a notebook user opens and closes designers all day in one kernel (a DL Designer tab replaces its designer, a
cell is re-run). Each one left behind its check-debounce thread, its fast channel's listening Unix socket and socket
file, ~87 widgets and ~17 MB (127 -> 455 MB RSS over 20 cycles). This script starts a real ipykernel through
jupyter_client (as JupyterLab does), and in it, per cycle: opens the bundled model and a real PyTorch export
(tests/data/real/, when present), edits each (a rename: the document's subscribers, the canvas patch and the editors'
debounced check all run), waits for the check, closes the designers. It prints threads, file descriptors, sockets,
listening sockets, channel socket files, live widgets and RSS after the warm-up and after every cycle, then the RSS
growth over the last 10 cycles (target: < 20 MB) and whether every count is back at its post-warm-up value.

    python benchmarks/designer_leak_bench.py [--cycles 20] [--warmup 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parents[1]
MODELS = [ROOT / "dld_jupyter" / "models" / "resnet8_cifar.onnx"]
REAL_EXPORT = ROOT / "tests" / "data" / "real" / "mobilenet_v3_small_w05.onnx"
if REAL_EXPORT.exists():
    MODELS.append(REAL_EXPORT)

SETUP = """
import gc, json, os, threading, time
import ipywidgets
from ipywidgets.widgets.widget import _instances
import dld_jupyter as dld
from dld_jupyter.channel_frames import socket_dir

def _listening_inodes():
    found = set()
    with open("/proc/net/unix") as table:
        next(table)
        for line in table:
            fields = line.split()
            if int(fields[3], 16) & 0x10000:  # __SO_ACCEPTCON: a listening socket
                found.add(fields[6])
    return found

def _probe():
    gc.collect()
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    sockets = [link[8:-1] for link in links if link.startswith("socket:[")]
    listening = _listening_inodes()
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return {"threads": threading.active_count(), "fds": len(links), "sockets": len(sockets),
            "listening": sum(1 for s in sockets if s in listening),
            "socket_files": len(list(socket_dir().glob("dld-*.sock"))), "widgets": len(_instances),
            "rss_mb": rss / 1024, "thread_names": sorted(t.name for t in threading.enumerate())}

def _cycle(paths):
    for path in paths:
        d = dld.open(path)
        doc = d.document
        node = doc.nodes()[0]
        doc.rename_node(node.id, node.name + "_edited")
        deadline = time.monotonic() + 30
        while d.editors.runner.busy and time.monotonic() < deadline:  # the debounced check, as a user would wait
            time.sleep(0.05)
        d.close()
"""


def execute(client: Any, code: str, timeout: float = 300) -> str:
    """Run `code` in the kernel; the text it printed (raises on an error reply)."""
    msg_id = client.execute(code)
    printed: list[str] = []
    while True:
        try:
            msg = client.get_iopub_msg(timeout=timeout)
        except Empty as error:
            raise TimeoutError(f"the kernel did not answer within {timeout} s") from error
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            printed.append(content["text"])
        elif kind == "error":
            raise RuntimeError("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(printed)


def probe(client: Any) -> dict[str, Any]:
    return dict(json.loads(execute(client, "print(json.dumps(_probe()))")))


def row(label: str, p: dict[str, Any]) -> str:
    return (f"{label:>10} threads {p['threads']:3d}  fds {p['fds']:4d}  sockets {p['sockets']:4d}  listening "
            f"{p['listening']:3d}  socket files {p['socket_files']:3d}  widgets {p['widgets']:5d}  "
            f"RSS {p['rss_mb']:7.1f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    channel_dir = tempfile.mkdtemp(prefix="dld-leak-")  # this kernel's sockets alone (mode 0700)
    env = {**os.environ, "DLD_CHANNEL_DIR": channel_dir}
    manager, client = start_new_kernel(kernel_name="python3", env=env, cwd=str(ROOT))
    try:
        execute(client, SETUP)
        paths = json.dumps([str(p) for p in MODELS])
        print(f"models per cycle: {', '.join(p.name for p in MODELS)}")
        for _ in range(args.warmup):
            execute(client, f"_cycle({paths})")
        base = probe(client)
        print(row("warm-up", base))
        rss: list[float] = []
        last = base
        for n in range(1, args.cycles + 1):
            execute(client, f"_cycle({paths})")
            last = probe(client)
            rss.append(last["rss_mb"])
            print(row(f"cycle {n}", last))
        window = rss[-11:] if len(rss) > 10 else [base["rss_mb"], *rss]
        growth = window[-1] - window[0]
        keys = ("threads", "fds", "sockets", "listening", "socket_files", "widgets")
        for _ in range(10):  # a descriptor of the kernel's own (a check's pipe) may still be closing
            drift = {k: last[k] - base[k] for k in keys if last[k] != base[k]}
            if not drift:
                break
            time.sleep(0.3)
            last = probe(client)
        print(f"RSS growth over the last {len(window) - 1} cycles: {growth:.1f} MB (target < 20 MB)")
        print("counts back at their post-warm-up values" if not drift else f"left behind after the cycles: {drift}")
        extra = Counter(last["thread_names"]) - Counter(base["thread_names"])
        if extra:
            print(f"threads added since the warm-up: {dict(extra)}")
        return 0 if growth < 20 and not drift else 1
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


if __name__ == "__main__":
    sys.exit(main())
