"""Where the seconds go when a model opens, from a designer tab or from a notebook cell: a real JupyterLab in
headless Chromium, a real export, to an interactive canvas, per phase; Netron on the same file in the same Chromium,
alternating round by round.

Run: python benchmarks/open_time_bench.py [--path tab|cell] [--rounds 3] [--models resnet18,mobilenet_v3_small]
                                          [--spare on|off] [--label NAME]

`--path tab` (default): a double-click on the export in the file browser with no kernel of the tab running.
`--path cell`: a fresh notebook each round (a kernel of its own, started when the notebook opens, as JupyterLab does),
then its one cell run, as a user's first cell: `import dld_jupyter as dld` and `dld.open("model.onnx")` displayed.
The total counts from the run to the interactive canvas: the import is in it, the kernel's start is not (the kernel
starts while the notebook opens, before a user has typed the cell; the issue's "from a cell" figures read the same
way: 1.75 s could not have held a ~1 s kernel start); the kernel's start is reported beside it (kernel_start: the
notebook page loaded to its kernel idle).

`--spare`: on (the extension's warm spare kernel, its default setting: each round waits until the new page has
warmed it, and says how long that took; a notebook does not use it, but the page starts it beside the notebook's
kernel, so the cell waits for it too, as on an idle page), off (the setting's default turned off on the server: each
tab starts its kernel, as before the spare existed).

Each round: every session deleted and every kernel exited, a fresh JupyterLab page on a workspace of its own, then
the double-click or the cell. Phases of a tab, in seconds from the double-click (browser marks of tab_manager.ts:
OPEN_MARKS; kernel phases from dld_jupyter.activities.timing.recent(), in epoch seconds, on the page's clock through
performance.timeOrigin):
- tab: the opener has its command (JupyterLab's double-click handling, the file's type looked up);
- spare: the warm spare taken (its working directory and session moved to the tab's; ~0 without a spare);
- kernel: until the tab's kernel answers (the console created; a session created and a kernel process started, or
  the spare's session found; connected);
- import: until the kernel starts building the view (the tab's size check of the file, `import dld_jupyter`);
- read: the model read (`Document.open`, phase open_read);
- view: the first view built (grouping, layout, widgets; tab_view minus open_read);
- send: until the tab has the kernel's reply (the widget's state sent);
- hello: until the kernel starts the canvas's first snapshot (the canvas rendered and asked for it: its "hello";
  slightly negative when the kernel takes it before the page has handled the cell's reply);
- snapshot: the first snapshot built (the first view's layout) and sent (phase canvas_snapshot);
- paint: until the canvas is interactive, defined as in canvas_bench.py for the designer: the snapshot applied
  (`.dld-canvas[data-ready="1"]`) and two animation frames painted.
Phases of a cell, in seconds from the run (notebook:run-cell):
- run: until the kernel starts the cell (its execute_input message, stamped by the kernel);
- import: until the model is read (`import dld_jupyter`, then the designer's modules `dld.open` imports);
- read, view: `Document.open` (open_read) and the designer built (open_view);
- send: until the canvas's element is in the page (the cell's display: the widgets' state sent and their views made);
- hello, snapshot, paint: as for a tab, from the canvas's element in the page;
- kernel_cpu (beside the total): the kernel's CPU seconds from just before the run until the figures are read (the
  cell's import, read and view, the first snapshot), which a loaded machine stretches less than the wall clock.
The package's bytecode is compiled before the first round, as `pip install` compiles an installed package's: a
checkout run with PYTHONDONTWRITEBYTECODE=1 (this machine sets it) has no __pycache__, and every kernel would compile
our ~230 modules from source (~0.12 s of a cell's import) where a user's install never does.
Netron: canvas_bench.netron_time (navigation to its graph drawn). Results: a table of medians and
test-artifacts/bench/open_time[_LABEL].json. Models: benchmarks/real_models_bench.model_path (the real-models cache,
exported with scripts/export_real_models.py when missing).
"""

from __future__ import annotations

import argparse
import ast
import compileall
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.canvas_bench import netron_time  # noqa: E402
from benchmarks.real_models_bench import model_path  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.jupyter_server import JupyterServer, start_server  # noqa: E402
from tests.browser.notebook_driver import open_notebook, write_notebook  # noqa: E402

PHASES = {"tab": ["tab", "spare", "kernel", "import", "read", "view", "send", "hello", "snapshot", "paint"],
          "cell": ["run", "import", "read", "view", "send", "hello", "snapshot", "paint"]}
CANVAS = {"tab": ".dld-DesignerDocument .dld-canvas", "cell": ".jp-Notebook .dld-canvas"}
READY = "(canvas) => { const c = document.querySelector(canvas); return !!c && c.dataset.ready === '1'; }"
INTERACTIVE = ("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() =>"
               " r((performance.now() - window.__dldClick) / 1000))))")
SPARE_READY = "() => document.body.dataset.dldSpareKernel === 'ready'"
# The tab's kernel: its process's start and the phases it timed (epoch seconds).
KERNEL_FACTS = """async () => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const reply = await kernel.requestExecute({code: '', silent: true, store_history: false, user_expressions: {
    phases: "__import__('dld_jupyter.activities.timing').activities.timing.recent()",
    stat: "open('/proc/self/stat').read()", cpu: "__import__('time').process_time()"}}).done;
  const value = (name) => reply.content.user_expressions[name].data['text/plain'];
  return {phases: value('phases'), stat: value('stat'), cpu: value('cpu'), id: kernel.id};
}"""
KERNEL_CPU = """async () => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const reply = await kernel.requestExecute({code: '', silent: true, store_history: false,
    user_expressions: {cpu: "__import__('time').process_time()"}}).done;
  return reply.content.user_expressions.cpu.data['text/plain'];
}"""
MARKS = """() => {
  const at = (name) => {
    const m = performance.getEntriesByName(name); return m.length ? m[m.length - 1].startTime : null; };
  return {t0: window.__dldClick, origin: performance.timeOrigin, start: at('dld-open:start'),
          spare: at('dld-open:spare'), kernelReady: at('dld-open:kernel-ready'), shown: at('dld-open:shown')};
}"""


def process_started(stat: str) -> float:
    """Epoch seconds at which a process started, from its /proc/<pid>/stat text (field 22: clock ticks after boot)."""
    ticks = int(stat.rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")


def wait_no_kernel(server: JupyterServer, timeout_s: float = 60.0) -> None:
    """Wait until the server runs no kernel (the last page's tab and spare shut down)."""
    deadline = time.monotonic() + timeout_s
    while server.api("/api/kernels"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"kernels still running after {timeout_s:.0f} s: {server.api('/api/kernels')}")
        server.delete_sessions()
        time.sleep(0.2)


def open_tab_once(page: Any, server: JupyterServer, name: str, spare: str) -> dict[str, float]:
    """One cold open of `name` by a double-click; phases in seconds."""
    page.goto("about:blank")
    server.delete_sessions()
    wait_no_kernel(server)
    loaded = time.monotonic()
    page.goto(f"{server.url}/lab/workspaces/{uuid.uuid4().hex}?reset&token={server.token}")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=90_000)
    item = page.locator(f".jp-DirListing-item[title*='{name}']").first
    item.wait_for(state="visible", timeout=60_000)
    result: dict[str, float] = {}
    if spare == "on":
        page.wait_for_function(SPARE_READY, timeout=180_000, polling=50)
        result["spare_warm_after_page_load"] = time.monotonic() - loaded
    page.evaluate("""() => { performance.clearMarks();
        document.addEventListener('dblclick', () => { window.__dldClick = performance.now(); },
                                  {capture: true, once: true}); }""")
    item.dblclick()
    page.wait_for_function(READY, arg=CANVAS["tab"], timeout=180_000, polling=20)
    interactive = float(page.evaluate(INTERACTIVE))
    marks = page.evaluate(MARKS)
    kernel = page.evaluate(KERNEL_FACTS)
    t0 = marks["t0"]
    click_epoch = (marks["origin"] + t0) / 1000

    def since_click(ms: float) -> float:
        return (ms - t0) / 1000

    phases = {phase: (start - click_epoch, seconds) for phase, start, seconds in ast.literal_eval(kernel["phases"])}
    view_start, view_s = phases["tab_view"]
    read_s = phases["open_read"][1]
    snapshot_start, snapshot_s = phases["canvas_snapshot"]
    result.update({
        "tab": since_click(marks["start"]),
        "spare": since_click(marks["spare"]) - since_click(marks["start"]),
        "kernel": since_click(marks["kernelReady"]) - since_click(marks["spare"]),
        "import": view_start - since_click(marks["kernelReady"]),
        "read": read_s,
        "view": view_s - read_s,
        "send": since_click(marks["shown"]) - (view_start + view_s),
        "hello": snapshot_start - since_click(marks["shown"]),
        "snapshot": snapshot_s,
        "paint": interactive - (snapshot_start + snapshot_s),
        "interactive": interactive,
        "kernel_process_started": process_started(kernel["stat"]) - click_epoch,
    })
    page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
    return result

# The cell's start as the kernel stamped it (its execute_input message) and the canvas element's arrival in the page.
CELL_WATCH = """() => { performance.clearMarks(); window.__dldExec = null; window.__dldShown = null;
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  kernel.iopubMessage.connect((_, msg) => {
    if (msg.header.msg_type === 'execute_input' && window.__dldExec === null)
      window.__dldExec = Date.parse(msg.header.date);
  });
  const seen = new MutationObserver(() => {
    if (!document.querySelector('.jp-Notebook .dld-canvas')) return;
    window.__dldShown = performance.now();
    seen.disconnect();
  });
  seen.observe(document.body, {childList: true, subtree: true});
  const nb = window.jupyterapp.shell.currentWidget; nb.content.activeCellIndex = 0;
  window.__dldClick = performance.now();
  void window.jupyterapp.commands.execute('notebook:run-cell');
}"""


def open_cell_once(page: Any, server: JupyterServer, name: str, spare: str) -> dict[str, float]:
    """One open from the first cell of a fresh notebook on a fresh kernel; phases in seconds."""
    page.goto("about:blank")
    server.delete_sessions()
    wait_no_kernel(server)
    notebook = f"open_{uuid.uuid4().hex[:8]}.ipynb"
    write_notebook(server.root_dir / notebook, [f"import dld_jupyter as dld\ndld.open({name!r})"])
    loaded = time.monotonic()
    open_notebook(page, server, notebook)  # the page loaded, the notebook's kernel started, connected and idle
    result: dict[str, float] = {"kernel_start": time.monotonic() - loaded}
    if spare == "on":
        page.wait_for_function(SPARE_READY, timeout=180_000, polling=50)
        result["spare_warm_after_page_load"] = time.monotonic() - loaded
    cpu_before = float(page.evaluate(KERNEL_CPU))  # nothing of dld_jupyter imported before the cell
    page.evaluate(CELL_WATCH)
    page.wait_for_function(READY, arg=CANVAS["cell"], timeout=180_000, polling=20)
    interactive = float(page.evaluate(INTERACTIVE))
    marks = page.evaluate("() => ({t0: window.__dldClick, origin: performance.timeOrigin, exec: window.__dldExec,"
                          " shown: window.__dldShown})")
    kernel = page.evaluate(KERNEL_FACTS)
    t0 = marks["t0"]
    click_epoch = (marks["origin"] + t0) / 1000
    phases = {phase: (start - click_epoch, seconds) for phase, start, seconds in ast.literal_eval(kernel["phases"])}
    read_start, read_s = phases["open_read"]
    view_start, view_s = phases["open_view"]
    snapshot_start, snapshot_s = phases["canvas_snapshot"]
    executed = marks["exec"] / 1000 - click_epoch
    shown = (marks["shown"] - t0) / 1000
    result.update({
        "run": executed,
        "import": read_start - executed,
        "read": read_s,
        "view": view_s,
        "send": shown - (view_start + view_s),
        "hello": snapshot_start - shown,
        "snapshot": snapshot_s,
        "paint": interactive - (snapshot_start + snapshot_s),
        "interactive": interactive,
        "kernel_cpu": float(kernel["cpu"]) - cpu_before,
        "kernel_process_started": process_started(kernel["stat"]) - click_epoch,
    })
    (server.root_dir / notebook).unlink()
    return result


def clear_user_settings(server_log_dir: Path) -> None:
    """No user setting of ours (JUPYTERLAB_SETTINGS_DIR of tests/browser/jupyter_server.py): the server's default
    for the spare kernel applies (start_server's warm_kernel)."""
    shutil.rmtree(server_log_dir / "user-settings" / "dld-jupyter", ignore_errors=True)


def median_row(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(row[key] for row in rows) for key in rows[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--path", choices=["tab", "cell"], default="tab")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--models", default="resnet18,mobilenet_v3_small")
    parser.add_argument("--spare", choices=["on", "off"], default="on")
    parser.add_argument("--label", default="")
    parser.add_argument("--no-netron", action="store_true")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    models = [m for m in args.models.split(",") if m]
    compileall.compile_dir(ROOT / "dld_jupyter", quiet=1)  # as installed (the module docstring says why)
    results: dict[str, Any] = {"path": args.path, "rounds": args.rounds, "spare": args.spare, "load": os.getloadavg(),
                               "designer": {m: [] for m in models}, "netron": {m: [] for m in models}}
    log_dir = ROOT / "test-artifacts" / "jupyter-open-bench"
    clear_user_settings(log_dir)
    out = ROOT / "test-artifacts" / "bench" / f"open_time_{args.path}{'_' + args.label if args.label else ''}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = {}
        for model in models:
            found = model_path(model)
            if found is None:
                sys.exit(f"no export of {model}: run scripts/export_real_models.py with a torch Python")
            paths[model] = root / f"{model}.onnx"
            shutil.copy(found, paths[model])
        server = start_server(root, log_dir, warm_kernel=args.spare == "on")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                open_once = open_cell_once if args.path == "cell" else open_tab_once
                for round_ in range(args.rounds):
                    for model in models:  # alternating: ours, then Netron, on each model in turn
                        row = open_once(page, server, paths[model].name, args.spare)
                        results["designer"][model].append(row)
                        print(f"round {round_} {model}: " + ", ".join(f"{k} {v:.2f}" for k, v in row.items()),
                              flush=True)
                        if not args.no_netron:
                            netron = netron_time(browser, paths[model], 200.0)
                            results["netron"][model].append(netron)
                            print(f"round {round_} {model}: netron {netron}", flush=True)
                        out.write_text(json.dumps(results, indent=2))
                browser.close()
        finally:
            server.delete_sessions()
            server.stop()
    results["load_after"] = os.getloadavg()
    results["medians"] = {m: median_row(rows) for m, rows in results["designer"].items()}
    results["netron_medians"] = {m: statistics.median(t for t in found if t is not None)
                                 for m, found in results["netron"].items() if any(t is not None for t in found)}
    out.write_text(json.dumps(results, indent=2))
    start = "the double-click" if args.path == "tab" else "the cell's run; kernel_start: page load to kernel idle"
    print(f"\nmedians of {args.rounds} rounds (s from {start}), spare kernel: {args.spare}")
    phases = PHASES[args.path] + (["kernel_cpu", "kernel_start"] if args.path == "cell" else [])
    print(f"{'model':20}" + "".join(f"{p:>{max(9, len(p) + 1)}}" for p in phases) + f"{'total':>9}{'netron':>9}")
    for model, row in results["medians"].items():
        netron = results["netron_medians"].get(model)
        cells = "".join(f"{row[p]:{max(9, len(p) + 1)}.2f}" for p in phases)
        print(f"{model:20}{cells}{row['interactive']:9.2f}" + (f"{netron:9.2f}" if netron is not None else f"{'-':>9}"))


if __name__ == "__main__":
    main()
