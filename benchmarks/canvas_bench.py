"""Canvas benchmark in the real browser harness (JupyterLab + headless Chromium), beside Netron on the same files.

Run: python benchmarks/canvas_bench.py [--runs 3] [--cases 1k,7k,50k,5kx,20kx,llama] [--no-netron] [--netron-runs 1]

Measured (median of --runs, each in a fresh kernel):
- open: from running the `open_designer(...)` cell (modules already imported in an earlier cell) to an interactive
  canvas: the snapshot applied and one frame painted. 1k / ~7k transformer / 50k open collapsed ("auto");
  5kx / 20kx are opened fully expanded (`grouping="none"`), i.e. first paint of every node. "document": until the
  document has loaded and edits work (a model of 10,000+ nodes shows its overview first, drawn from the file's
  outline, while the kernel builds the document);
- pan/zoom frame time p50/p95 at 5k expanded (~150 animation frames of real mouse panning and wheel zooming): the
  interval between the frames' own timestamps (the time each frame began, which a frame the page could not produce
  in time turns into 33 ms or more), with the count of such dropped frames; beside it the interval between the
  moments the page ran each frame's callback, which also moves with the input the page handles first in each frame
  (jitter of a millisecond or two, ~15.5/16.6/18.0 ms in turn while the wheel turns, on any canvas). Both are also
  measured for a control in the same run and page: the same gestures over a 30-node expanded graph, so what is ours
  at 5k stands beside what the harness (Playwright's input, headless Chromium) costs a canvas of any size;
- edit round trip p50/p95 on the 7k model and on the real Llama-style export (`llama`: llama_30l, 1,809 nodes, from
  the real-models cache ~/.cache/dld_jupyter/real_models or DLD_REAL_MODELS; skipped, saying how to make it, when
  absent): a rename intent sent from the browser until its patch is applied
  (isolated edits, each after the previous one was painted; and back to back), over the canvas's fast channel
  where the server relays it (the path used is recorded), and a no-op "ping" for the channel alone;
- Netron (pip install netron; served on loopback) in the same Chromium: navigation to the full graph drawn.
Targets (issue 4): 50k collapsed <= 2 s; 5k / 20k expanded first paint <= 3 s / <= 8 s; (issue 42) pan/zoom p95
<= 17 ms at 5k (60 frames a second: the frames' intervals; their callbacks' p95 is above 17 ms for the 30-node
control too, so it is read against the control's); edit round trip p95 <= 10 ms isolated on the real Llama export.
Results: printed table + test-artifacts/bench/canvas_bench.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import onnx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.jupyter_server import free_port, start_server  # noqa: E402
from tests.browser.notebook_driver import open_notebook, write_notebook  # noqa: E402
from tests.models import generated_graph, transformer_like  # noqa: E402

REAL_MODELS = Path(os.environ.get("DLD_REAL_MODELS", Path.home() / ".cache" / "dld_jupyter" / "real_models"))
LLAMA = REAL_MODELS / "llama_30l.onnx"  # scripts/export_real_models.py CACHE --set bench --only llama_30l


def real_export(path: Path) -> Path:
    if not path.exists():
        raise FileNotFoundError(f"{path} is not exported: run scripts/export_real_models.py {path.parent} --set bench"
                                f" --only {path.stem} with a Python that has torch and transformers")
    return path


CASES: dict[str, tuple[Any, str]] = {  # name: (model builder, or the path of a real export; grouping)
    "1k": (lambda: generated_graph(1000), "auto"),
    "7k": (lambda: transformer_like(layers=195), "auto"),
    "50k": (lambda: generated_graph(50000), "auto"),
    "5kx": (lambda: generated_graph(5000), "none"),
    "20kx": (lambda: generated_graph(20000), "none"),
    "7k-canvas": (lambda: transformer_like(layers=195), "canvas"),  # the canvas alone, without editor panels
    "llama": (lambda: real_export(LLAMA), "auto"),  # the real Llama-style export (30 layers, torch.export)
}
EDIT_CASES = {"7k": "edit_7k_ms", "7k-canvas": "edit_7k_canvas_only_ms", "llama": "edit_llama_ms"}
READY = "() => { const c = document.querySelector('.dld-canvas'); return c && c.dataset.ready === '1'; }"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_cell(page: Any, index: int) -> None:
    page.evaluate(
        """(i) => { const nb = window.jupyterapp.shell.currentWidget; nb.content.activeCellIndex = i;
                    return window.jupyterapp.commands.execute('notebook:run-cell'); }""", index)


def wait_kernels_exited(timeout_s: float = 30.0) -> None:
    """Wait until the kernels of earlier runs have exited: freeing a 50k-node model takes a second of CPU."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        alive = 0
        for proc in Path("/proc").iterdir():
            try:
                alive += proc.name.isdigit() and b"ipykernel_launcher" in (proc / "cmdline").read_bytes()
            except OSError:
                continue
        if not alive:
            return
        time.sleep(0.2)


def time_open(page: Any, server: Any, model: str, grouping: str, tag: str) -> tuple[float, float, float]:
    name = f"bench_{tag}.ipynb"
    if grouping == "canvas":
        cells = ["from dld_jupyter.widgets.canvas.canvas import GraphCanvas\nfrom dld_jupyter.document import Document",
                 f"d = GraphCanvas(Document.open({model!r}), height='700px')\nd"]
    else:
        cells = ["import dld_jupyter.widgets.designer.designer as D",
                 f"d = D.open_designer({model!r}, grouping={grouping!r}, height='700px')\nd"]
    write_notebook(server.root_dir / name, cells)
    server.delete_sessions()  # earlier runs' kernels (holding big models) must not compete with this one
    wait_kernels_exited()
    page.goto("about:blank", timeout=300_000)  # unloading a page that drew 20k nodes can take long
    open_notebook(page, server, name)
    for _ in range(4):  # the first run before the kernel is connected is dropped silently: retry
        run_cell(page, 0)
        try:
            page.wait_for_function(
                "() => /\\[1\\]/.test(document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')[0].textContent)",
                timeout=30_000)
            break
        except Exception:
            continue
    page.evaluate("() => { window.__t0 = performance.now(); }")
    run_cell(page, 1)
    page.wait_for_function(READY, timeout=300_000, polling=20)
    # First paint: one frame painted after the snapshot was applied (big expanded graphs: the overview).
    first = float(page.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() =>"
        " r((performance.now() - window.__t0) / 1000))))"))
    # Every element created in cytoscape (big expanded graphs are created in chunks after the first paint).
    page.wait_for_function("() => document.querySelector('.dld-canvas').dataset.loaded === '1'", timeout=300_000,
                           polling=50)
    loaded = float(page.evaluate("() => (performance.now() - window.__t0) / 1000"))
    # A big model's overview is drawn from its outline while the kernel builds the document: until edits work.
    document = first
    if page.evaluate("() => document.querySelector('.dld-canvas').dataset.document") == "loading":
        page.wait_for_function("() => document.querySelector('.dld-canvas').dataset.document === '1'",
                               timeout=300_000, polling=20)
        document = float(page.evaluate("() => (performance.now() - window.__t0) / 1000"))
    return first, loaded, document


# A point of the background near the stage's centre, in model coordinates: pressing there pans; pressing on a glyph
# would drag that node (an edit the kernel answers), not the view. Found before the frames are recorded, left of the
# centre: the three drags move it ~340 px right.
BACKGROUND = """() => { const stage = document.querySelector('.dld-stage'); const cy = stage._cyreg.cy;
    const w = cy.width(), h = cy.height(); const boxes = cy.nodes().map(n => n.renderedBoundingBox());
    const free = (x, y) => boxes.every(b => x < b.x1 - 12 || x > b.x2 + 12 || y < b.y1 - 12 || y > b.y2 + 12);
    const model = (x, y) => ({x: (x - cy.pan().x) / cy.zoom(), y: (y - cy.pan().y) / cy.zoom()});
    for (let r = 0; r < Math.min(w, h) / 3; r += 8)
        for (let a = 0; a < 16; a++) {
            const x = w / 2 - 150 + r * Math.cos(a * Math.PI / 8), y = h / 2 + r * Math.sin(a * Math.PI / 8);
            if (free(x, y)) return model(x, y);
        }
    throw new Error('no background near the centre to pan from'); }"""
# Where that model point is on the page now (the view moved with the previous round).
ON_PAGE = """(p) => { const stage = document.querySelector('.dld-stage'); const cy = stage._cyreg.cy;
    const rect = stage.getBoundingClientRect();
    return [rect.left + p.x * cy.zoom() + cy.pan().x, rect.top + p.y * cy.zoom() + cy.pan().y]; }"""


def pan_zoom(page: Any) -> dict[str, list[float]]:
    """Real mouse gestures (drag on the background to pan, wheel to zoom) while the page records each animation
    frame: the interval between the frames' timestamps (`frames`) and between their callbacks' runs (`callbacks`)."""
    page.evaluate("""() => { const cy = document.querySelector('.dld-stage')._cyreg.cy; cy.zoom(0.5);
        cy.center(cy.nodes()[Math.floor(cy.nodes().length / 2)]); }""")
    page.wait_for_timeout(2500)
    background = page.evaluate(BACKGROUND)
    page.evaluate("""() => { window.__frames = []; window.__callbacks = []; window.__stop = false;
        let last = null, lastRun = null;
        const tick = (stamp) => { const now = performance.now();
            if (last !== null) { window.__frames.push(stamp - last); window.__callbacks.push(now - lastRun); }
            last = stamp; lastRun = now;
            if (window.__frames.length < 10000 && !window.__stop) requestAnimationFrame(tick); };
        requestAnimationFrame(tick); }""")
    for round_ in range(3):
        cx, cy = page.evaluate(ON_PAGE, background)
        page.mouse.move(cx, cy)
        page.mouse.down()
        for i in range(20):
            page.mouse.move(cx + 6 * i, cy + (3 * i if round_ % 2 else -3 * i))
        page.mouse.up()
        for i in range(10):
            page.mouse.wheel(0, -60 if i < 5 else 60)
            page.wait_for_timeout(16)
    recorded = page.evaluate("() => { window.__stop = true; return [window.__frames, window.__callbacks]; }")
    return {"frames": [float(f) for f in recorded[0]], "callbacks": [float(f) for f in recorded[1]]}


def frame_figures(recorded: dict[str, list[float]]) -> dict[str, Any]:
    frames, callbacks = recorded["frames"], recorded["callbacks"]
    return {"p50": pct(frames, 0.5), "p95": pct(frames, 0.95), "max": max(frames), "frames": len(frames),
            "dropped": sum(1 for f in frames if f > 1.5 * 1000 / 60),
            "callbacks_p50": pct(callbacks, 0.5), "callbacks_p95": pct(callbacks, 0.95)}

def edit_round_trips(page: Any, designer: bool, count: int = 60, pause_ms: int = 0) -> list[float]:
    """Rename round trips. pause_ms=0: back to back (each edit sent as soon as the previous one is applied, while
    the browser still paints it); pause_ms>0: isolated edits, each sent after the previous one was painted and the
    page rested pause_ms, as a user's next edit comes."""
    # Expand around one node (what a user does before editing), then rename it back and forth.
    focus = "d.focus(_n.name)" if designer else "d.focus([_n.id])"
    page.evaluate("""async (focus) => {
        const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
        await kernel.requestExecute({code: "_n = next(n for n in d.document.nodes() if n.op_type == 'Softmax')\\n"
            + focus}).done; }""", focus)
    page.wait_for_function("() => document.querySelector('.dld-stage')._cyreg.cy.nodes(':selected').length > 0",
                           timeout=60_000)
    if designer:  # a user edits a designer that has settled: its automatic type check of the model has finished
        page.evaluate("""async () => {
            const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            for (let i = 0; i < 600; i++) {
                let text = '';
                const f = kernel.requestExecute({code: "print(d.editors.runner.busy)"});
                f.onIOPub = (m) => { if (m.header.msg_type === 'stream') text += m.content.text; };
                await f.done;
                if (text.trim() === 'False') return;
                await new Promise(r => setTimeout(r, 200));
            }
            throw new Error('the type check did not settle'); }""")
    return list(page.evaluate("""async ([count, pause]) => {
        const stage = document.querySelector('.dld-stage'); const cy = stage._cyreg.cy; const dld = stage._dld;
        const id = cy.nodes(':selected')[0].id(); const times = [];
        for (let i = 0; i < count; i++) {
            const t0 = performance.now();
            const reply = await dld.channel.intent('rename', {node: id, name: 'bench_' + pause + '_' + i});
            if (!reply.ok) throw new Error(reply.error);
            times.push(performance.now() - t0);
            if (pause) {
                await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
                await new Promise(r => setTimeout(r, pause));
            }
        }
        return times; }""", [count, pause_ms]))


def ping_round_trips(page: Any, count: int = 30) -> list[float]:
    return list(page.evaluate("""async (count) => {
        const dld = document.querySelector('.dld-stage')._dld; const times = [];
        for (let i = 0; i < count; i++) {
            const t0 = performance.now(); await dld.channel.intent('ping', {}); times.push(performance.now() - t0);
        }
        return times; }""", count))


def netron_time(browser: Any, path: Path, timeout_s: float) -> float | None:
    """Navigation to Netron's graph view drawn (body class "default" with graph nodes in #canvas). Netron replaces
    window.eval, so the page is polled through locators (Playwright's isolated world), not page.evaluate."""
    import netron

    port = free_port()
    address = ("127.0.0.1", port)
    netron.start(str(path), address=address, browse=False)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    # The cookie-consent prompt would block loading: answer it beforehand, as a returning user has.
    context.add_cookies([{"name": "consent", "value": str(int(time.time() * 1000)), "url": f"http://127.0.0.1:{port}/"}])
    page = context.new_page()
    try:
        start = time.monotonic()
        page.goto(f"http://127.0.0.1:{port}/")
        while time.monotonic() - start < timeout_s:
            try:  # a big graph keeps Netron's main thread busy for long stretches: a poll may time out
                classes = page.locator("body").get_attribute("class", timeout=5_000) or ""
                if "default" in classes.split() and page.locator("#canvas g.node").count():
                    return time.monotonic() - start
            except Exception:
                pass
            time.sleep(0.1)
        return None
    finally:
        context.close()
        netron.stop(address)


def measure_case(page: Any, server: Any, case: str, path: Path, runs: int, results: dict[str, Any]) -> None:
    times, loads, documents = [], [], []
    for run in range(runs):
        first, loaded, document = time_open(page, server, path.name, CASES[case][1], f"{case}_{run}")
        times.append(first)
        loads.append(loaded)
        documents.append(document)
        print(f"  {case} run {run}: first paint {first:.2f} s, all elements {loaded:.2f} s,"
              f" document loaded (edits work) {document:.2f} s", flush=True)
        if case == "5kx" and run == runs - 1:
            results["pan_zoom_5k_ms"] = frame_figures(pan_zoom(page))
            print(f"  pan/zoom 5k: {results['pan_zoom_5k_ms']}", flush=True)
            control = path.parent / "control_30x.onnx"
            onnx.save(generated_graph(30), control)
            time_open(page, server, control.name, "none", "control_30x")
            results["pan_zoom_control_ms"] = frame_figures(pan_zoom(page))
            print(f"  pan/zoom control (30 nodes, same gestures): {results['pan_zoom_control_ms']}", flush=True)
        if case in EDIT_CASES and run == runs - 1:
            key = EDIT_CASES[case]
            designer = CASES[case][1] != "canvas"
            trips = edit_round_trips(page, designer, pause_ms=100)
            results[key] = {"p50": pct(trips, 0.5), "p95": pct(trips, 0.95)}
            print(f"  {key} (isolated edits): {results[key]}", flush=True)
            trips = edit_round_trips(page, designer, pause_ms=0)
            results[f"{key}_back_to_back"] = {"p50": pct(trips, 0.5), "p95": pct(trips, 0.95)}
            print(f"  {key}_back_to_back: {results[key + '_back_to_back']}", flush=True)
            pings = ping_round_trips(page)
            # Intents sent over the canvas's fast channel (server relay + kernel socket) and over the comm.
            results[f"{key}_path"] = page.evaluate("() => document.querySelector('.dld-stage')._dld.channel.sent")
            results[f"{key}_ping"] = {"p50": pct(pings, 0.5), "p95": pct(pings, 0.95)}
            print(f"  {key}_ping (the channel alone, no edit; intents sent by path {results[key + '_path']}):"
                  f" {results[key + '_ping']}", flush=True)
    results["open_s"][case] = {"median": statistics.median(times), "all": times,
                               "loaded_median": statistics.median(loads), "loaded_all": loads,
                               "document_median": statistics.median(documents), "document_all": documents}


def save(results: dict[str, Any]) -> None:
    out = ROOT / "test-artifacts" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    (out / "canvas_bench.json").write_text(json.dumps(results, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--no-netron", action="store_true")
    parser.add_argument("--netron-runs", type=int, default=1)
    parser.add_argument("--netron-timeout", type=float, default=200.0)
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    from playwright.sync_api import sync_playwright

    results: dict[str, Any] = {"runs": args.runs, "open_s": {}, "netron_s": {}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = {}
        for case in list(cases):
            paths[case] = root / f"{case}.onnx"
            try:
                made = CASES[case][0]()
            except FileNotFoundError as missing:
                print(f"  {case} skipped: {missing}", flush=True)
                cases.remove(case)
                continue
            if isinstance(made, Path):
                paths[case].symlink_to(made)
            else:
                onnx.save(made, paths[case])
        server = start_server(root, ROOT / "test-artifacts" / "jupyter-bench")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                for case in cases:
                    try:
                        measure_case(page, server, case, paths[case], args.runs, results)
                    except Exception as error:  # one broken case must not lose the others' figures
                        results["open_s"][case] = {"error": f"{type(error).__name__}: {error}"[:300]}
                        print(f"  {case} failed: {error}", flush=True)
                    save(results)
                if not args.no_netron:
                    for case in [c for c in cases if CASES[c][1] != "canvas"]:
                        found = [netron_time(browser, paths[case], args.netron_timeout)
                                 for _ in range(args.netron_runs)]
                        ok = [t for t in found if t is not None]
                        results["netron_s"][case] = statistics.median(ok) if ok else f">{args.netron_timeout:.0f}"
                        print(f"  netron {case}: {results['netron_s'][case]}", flush=True)
                        save(results)
                browser.close()
        finally:
            server.stop()
    save(results)
    print(f"\n{'case':6} {'first paint (s)':>16} {'all elements (s)':>17} {'document (s)':>13} {'netron (s)':>12}")
    for case in cases:
        netron_s = results["netron_s"].get(case, "-")
        shown = f"{netron_s:.1f}" if isinstance(netron_s, float) else str(netron_s)
        row = results["open_s"].get(case, {})
        if "median" in row:
            print(f"{case:9} {row['median']:>13.2f} {row['loaded_median']:>17.2f} {row['document_median']:>13.2f}"
                  f" {shown:>12}")
        else:
            print(f"{case:9} {row.get('error', 'not run')}")
    tails = ("", "_back_to_back", "_ping")
    for key in ("pan_zoom_5k_ms", "pan_zoom_control_ms"):
        if key in results:
            row = results[key]
            print(f"{key}: frames p50 {row['p50']:.1f} ms, p95 {row['p95']:.1f} ms, max {row['max']:.1f} ms,"
                  f" dropped {row['dropped']} of {row['frames']}; callbacks p50 {row['callbacks_p50']:.1f} ms,"
                  f" p95 {row['callbacks_p95']:.1f} ms")
    for key in [f"{k}{tail}" for k in EDIT_CASES.values() for tail in tails]:
        if key in results:
            print(f"{key}: p50 {results[key]['p50']:.1f} ms, p95 {results[key]['p95']:.1f} ms")


if __name__ == "__main__":
    main()
