"""ONNX Runtime sessions are opened by the runtimes only (issue 35): a profile, a session run, the analysis debugger
and divergence all reach ORT through activities/runtimes/ (the windows engine, runtimes/onnxruntime/windows.py, for
the last two), so a session option, a provider fallback or a memory bound is set in one place. The one exception is
the transforms' post-condition (transforms/postcondition.py), which loads a transform's result in a layer below the
activities. Checked on the source: any call named `InferenceSession`, however it was imported."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "dld_jupyter"
ALLOWED = ("activities/runtimes/", "transforms/postcondition.py")


def session_calls(path: Path) -> list[int]:
    """Line numbers of the calls of `InferenceSession` (a name or an attribute) in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "InferenceSession":
                found.append(node.lineno)
    return found


def test_inference_sessions_are_opened_under_runtimes_only() -> None:
    offences = [
        f"{relative}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if not (relative := path.relative_to(PACKAGE).as_posix()).startswith(ALLOWED)
        for line in session_calls(path)
    ]
    assert not offences, "InferenceSession( outside activities/runtimes/ (use the windows engine):\n" + "\n".join(
        offences
    )


def test_analysis_and_divergence_share_the_windows_engine() -> None:
    """Neither keeps a private engine beside the seam: both import the windows engine, and only it copies weights."""
    windows = "dld_jupyter.activities.runtimes.onnxruntime.windows"
    for module in ("activities/analysis/engine.py", "model_compare/divergence.py"):
        assert windows in (PACKAGE / module).read_text(), module
    modules = sorted(PACKAGE.rglob("*.py"))
    copies = [p.relative_to(PACKAGE).as_posix() for p in modules if "read_model(" in p.read_text()]
    assert set(copies) <= {
        "activities/runtimes/onnxruntime/windows.py",  # the private weights copy
        "activities/runtimes/onnxruntime/model_file.py",  # where it is defined
        "activities/analysis/inputs.py",  # a skeleton (no weights) for the input specs
    }, copies


def test_the_rule_sees_every_spelling(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import onnxruntime as ort\nfrom onnxruntime import InferenceSession\n"
        "a = ort.InferenceSession('m.onnx')\nb = InferenceSession(b'')\nc = ort.SessionOptions()\n"
    )
    assert session_calls(bad) == [3, 4]
    assert len(session_calls(PACKAGE / "activities/runtimes/onnxruntime/windows.py")) == 1
