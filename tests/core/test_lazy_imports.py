"""What a first view does not use loads when first used: sympy through `dld.open` (_lazy_sympy.py: onnx-ir imported it
at its top, 0.18-0.65 s of a cold open in a kernel), the runners behind package names (_lazy_names.py), the
transforms, the overlays and tables a designer's actions draw, and the live runs' watcher (issue 42)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "data" / "real" / "mobilenet_v3_small_w05.onnx"


def _run(script: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_opening_a_designer_does_not_run_sympy_and_symbolic_arithmetic_still_works() -> None:
    out = _run(f"""
        import sys
        import dld_jupyter as dld
        designer = dld.open({str(MODEL)!r})
        designer.canvas._on_msg(designer.canvas, {{"kind": "hello"}}, [])  # the first view, sent
        print("OPENED", sorted(m for m in sys.modules if m == "sympy.core" or m.startswith("sympy.core.")))
        import onnx_ir as ir
        dim = ir.SymbolicDim("N") * 2 + 1  # onnx-ir's symbolic arithmetic runs sympy and its parser
        import sympy
        print("DIM", dim, isinstance(dim._expr, sympy.Expr), type(sys.modules["sympy"]) is type(sys))
        print("USER", sympy.Symbol("a") + sympy.Integer(1))
    """)
    assert "OPENED []" in out
    assert "DIM 2*N + 1 True True" in out
    assert "USER a + 1" in out


def test_threads_reading_sympy_first_at_once_all_see_it_whole() -> None:
    out = _run("""
        import threading
        import dld_jupyter  # installs the deferred sympy
        import sympy
        got, start = [], threading.Barrier(4)
        def read():
            start.wait()
            got.append(sympy.Symbol("x").name)
        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        print("GOT", got)
    """)
    assert "GOT ['x', 'x', 'x', 'x']" in out


def test_sympy_imported_before_the_package_is_left_as_it_is() -> None:
    out = _run("""
        import sys, sympy
        real = sys.modules["sympy"]
        import dld_jupyter, onnx_ir
        print("SAME", sys.modules["sympy"] is real, type(real) is type(sys))
    """)
    assert "SAME True True" in out


def test_a_designer_opens_without_the_runners_it_has_not_used() -> None:
    """`dld.open` imported every activity kind and runtime, the divergence runner and the debugger's front door
    through package `__init__`s and designer mixins (_lazy_names.py); they load when an action needs them. The first
    view of a model of onnx's own domains builds no whole schema registry (onnxruntime imported for its contrib
    schemas): the schemas of its operators and its palette are looked up one by one (schema.py)."""
    out = _run(f"""
        import sys
        import dld_jupyter as dld
        designer = dld.open({str(MODEL)!r})
        designer.canvas._on_msg(designer.canvas, {{"kind": "hello"}}, [])
        unused = ["dld_jupyter.activities.api", "dld_jupyter.activities.kinds",
                  "dld_jupyter.activities.runtimes.tensorrt.session", "dld_jupyter.model_compare.divergence",
                  "dld_jupyter.model_compare.divergence_kind", "dld_jupyter.frontdoor.analysis",
                  "dld_jupyter.frontdoor.compare_runs", "onnxruntime"]
        print("LOADED", [name for name in unused if name in sys.modules])
        from dld_jupyter.document.operators.schema import registry
        print("REGISTRY BUILT", registry._by_key is not None)
        from dld_jupyter.activities import OrtProfileSpec, profile
        from dld_jupyter.model_compare import Divergence, diff
        import dld_jupyter.activities as activities
        print("DIR", "run_activity" in dir(activities), "spec_from_json" in dir(activities))
        print("NAMES", profile.__module__, OrtProfileSpec.__module__, Divergence.__module__, diff.__module__)
    """)
    assert "LOADED []" in out, out
    assert "REGISTRY BUILT False" in out, out
    assert "DIR True True" in out, out
    assert ("NAMES dld_jupyter.activities.api dld_jupyter.activities.runtimes.onnxruntime.spec "
            "dld_jupyter.model_compare.divergence dld_jupyter.model_compare.structural_diff") in out, out


def test_a_first_view_loads_no_transform_overlay_or_runs_watcher_and_they_work_when_used() -> None:
    """The transforms (registered on the registry's first use), the heat/diff/divergence/node-data overlays with the
    report payload they pack, the comparison tables and the runs watcher behind a designer's job were a quarter of
    `dld.open`'s imports; the first view draws none of them."""
    out = _run(f"""
        import sys
        import dld_jupyter as dld
        designer = dld.open({str(MODEL)!r})
        designer.canvas._on_msg(designer.canvas, {{"kind": "hello"}}, [])
        unused = ["dld_jupyter.transforms.transform", "dld_jupyter.transforms.fp16", "dld_jupyter.transforms.paste",
                  "dld_jupyter.widgets.canvas.overlays.heat", "dld_jupyter.widgets.canvas.overlays.diff",
                  "dld_jupyter.widgets.canvas.overlays.divergence", "dld_jupyter.widgets.canvas.overlays.node_data",
                  "dld_jupyter.widgets.report.report_payload", "dld_jupyter.widgets.results.diff_table",
                  "dld_jupyter.frontdoor.runs", "dld_jupyter.activities.scheduler"]
        print("LOADED", [name for name in unused if name in sys.modules])
        from dld_jupyter import transforms
        print("ORDER", [t.name for t in transforms.all_transforms()])
        print("NAMES", transforms.Paste.__module__, transforms.Requirement.__module__, "Sanitize" in dir(transforms))
        node = next(n.id for n in designer.document.nodes() if n.kind == "op")
        reply = designer.canvas.handle_intent({{"action": "copy", "args": {{"nodes": [node]}}}})
        print("COPY", reply["ok"], reply["error"])
        print("SHOWN", designer._shown(), designer.compare_job.running, designer.heat)
    """)
    assert "LOADED []" in out, out
    assert ("ORDER ['extract', 'paste', 'convert_fp16', 'sanitize', 'convert_tensors', 'create_function', "
            "'inline_function', 'extract_function', 'extract_model_subgraph']") in out, out
    assert "NAMES dld_jupyter.transforms.paste dld_jupyter.transforms.transform True" in out, out
    assert "COPY True None" in out, out
    assert "SHOWN {} False None" in out, out


def test_a_transform_registered_before_the_builtins_loaded_comes_after_them_and_a_clash_is_refused() -> None:
    out = _run("""
        from dld_jupyter.transforms.registry import all_transforms, register
        from dld_jupyter.transforms.paste import Paste

        class Mine(Paste):
            name = "mine"

        register(Mine())
        print("ORDER", [t.name for t in all_transforms()][:2], [t.name for t in all_transforms()][-1])
        try:
            register(Paste())
        except ValueError as error:
            print("CLASH", error)
    """)
    assert "ORDER ['extract', 'paste'] mine" in out, out
    assert "CLASH a transform named 'paste' is already registered" in out, out
