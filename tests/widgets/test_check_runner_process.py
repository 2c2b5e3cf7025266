"""The type check runner hands big models to a child process: same result, and cancel kills the child."""

from __future__ import annotations

import time

import onnx_ir as ir
import pytest

from dld_jupyter.document import Document
from dld_jupyter.widgets.editors import type_check
from tests.models import transformer_like


def wait(condition, timeout_s: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_big_model_checks_in_a_child_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type_check, "PROCESS_MIN_NODES", 10)
    doc = Document(ir.serde.deserialize_model(transformer_like(layers=3)))
    node = next(n for n in doc.model.graph if n.op_type == "MatMul")
    doc.disconnect(doc.node_id(node), 1)
    runner = type_check.CheckRunner(doc, lambda: None)
    started: list[ir.Model] = []
    real = type_check.CheckProcess
    monkeypatch.setattr(type_check, "CheckProcess", lambda model, ids: started.append(model) or real(model, ids))
    runner.start()
    wait(lambda: runner.checked_version is not None)
    assert any(model is doc.model for model in started)  # it went through a child process
    view = type_check.view(doc, runner)
    assert view["checked"] and any("mandatory inputs" in item["message"] for item in view["items"]), view


def running_child_check(monkeypatch: pytest.MonkeyPatch) -> tuple[type_check.CheckRunner, type_check.CheckProcess]:
    """A runner whose check of a small transformer runs in a child process, started and under way."""
    monkeypatch.setattr(type_check, "PROCESS_MIN_NODES", 10)
    runner = type_check.CheckRunner(Document(ir.serde.deserialize_model(transformer_like(layers=3))), lambda: None)
    runner.start()
    wait(lambda: runner._process is not None)
    assert runner._process is not None
    return runner, runner._process


def test_cancel_kills_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    runner, process = running_child_check(monkeypatch)
    runner.cancel()
    wait(lambda: process._process.poll() is not None, 10)  # the child is gone
    time.sleep(0.3)
    assert runner.checked_version is None and not runner.running  # the cancelled result was dropped


def test_a_new_check_kills_the_child_of_the_one_it_supersedes(monkeypatch: pytest.MonkeyPatch) -> None:
    runner, first = running_child_check(monkeypatch)
    runner.start()  # the model changed, say: the first check's result would be dropped anyway
    wait(lambda: first._process.poll() is not None, 10)
    wait(lambda: runner.checked_version is not None)  # the second check finished and was published
    assert runner._process is None and not runner.running


@pytest.mark.parametrize("in_child_process", [False, True])
def test_a_subgraph_document_checks_its_standalone_body(
    monkeypatch: pytest.MonkeyPatch, in_child_process: bool
) -> None:
    """A Loop body's outer references are graph inputs of the checked copy: no "not output of any previous node"
    errors, and a real problem comes back on the body's own node id."""
    from pathlib import Path

    monkeypatch.setattr(type_check, "PROCESS_MIN_NODES", 10 if in_child_process else 10**6)
    gru = Path(__file__).resolve().parents[1] / "data" / "real" / "gru_scripted.onnx"
    doc = Document.open(gru)
    body = doc.subgraphs.open(next(n.id for n in doc.nodes() if n.op_type == "Loop"), "body")
    runner = type_check.CheckRunner(body, lambda: None)
    runner.start()
    wait(lambda: runner.checked_version is not None)
    assert type_check.view(body, runner)["items"] == []
    gemm = next(n.id for n in body.nodes() if n.name == "/h2h/Gemm")
    body.disconnect(gemm, 0)
    runner.start()
    wait(lambda: runner.checked_version == runner.version())
    assert any(d.node_id == gemm and d.severity == "error" for d in body.diagnostics)
