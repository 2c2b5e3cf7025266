"""The analysis debugger's actions as one type (issue 38): every `AnalysisAction` has a handler in the worker (CLOSE
is the request loop's), the front door sends every action the worker answers (PING and OVERRIDES excepted: a liveness
probe, and the state the other replies carry), each handler answers on a real engine, and an unknown action is
refused saying which are known, by `answer` and by a real worker, which keeps serving."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dld_jupyter.activities.analysis.actions import AnalysisAction
from dld_jupyter.activities.analysis.engine import AnalysisEngine
from dld_jupyter.activities.analysis.inputs import load_inputs, model_input_specs
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds.analysis import HANDLERS, answer, encode_array
from dld_jupyter.frontdoor.analysis import analyse

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "tests" / "data" / "real" / "mobilenet_v3_small_w05.onnx"
API = [ROOT / "dld_jupyter" / "frontdoor" / name for name in ("analysis.py", "analysis_layers.py")]
NOT_SENT_BY_THE_API = {AnalysisAction.PING, AnalysisAction.OVERRIDES}


def test_every_action_has_a_worker_handler_and_close_is_the_loops() -> None:
    assert set(HANDLERS) == set(AnalysisAction) - {AnalysisAction.CLOSE}


def test_the_api_sends_every_action_the_worker_answers() -> None:
    sent = {
        AnalysisAction[node.attr]
        for path in API
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "AnalysisAction"
    }
    assert sent == set(AnalysisAction) - NOT_SENT_BY_THE_API


def test_each_handler_answers_on_a_real_engine(tmp_path: Path) -> None:
    feeds = load_inputs(model_input_specs(MODEL), seed=1)
    np.savez(tmp_path / "inputs.npz", **feeds)
    A = AnalysisAction
    with AnalysisEngine(MODEL, feeds, window=4, keep_bytes=1 << 22) as engine:
        nodes = answer(engine, "nodes", {})
        conv = next(i for i, op in enumerate(nodes["ops"]) if op == "Conv")
        weight = nodes["weights"][conv][0]
        zeros = {"npy": encode_array(np.zeros_like(engine.tensor(weight)))}
        script: list[tuple[AnalysisAction, dict[str, Any]]] = [
            (A.PING, {}), (A.STATE, {}), (A.ADD_BREAKPOINT, {"node": conv}), (A.RUN, {}), (A.STEP, {}),
            (A.SUMMARY, {"name": conv}), (A.TENSOR, {"name": conv}), (A.REMOVE_BREAKPOINT, {"node": conv}),
            (A.OVERRIDE, {"node": conv, "name": weight, "value": zeros}), (A.OVERRIDES, {}),
            (A.REVERT, {"node": conv, "name": weight}), (A.OVERRIDE, {"node": conv, "name": weight, "value": zeros}),
            (A.REVERT_ALL, {}), (A.SET_INPUTS, {"inputs": str(tmp_path / "inputs.npz")}), (A.RESUME, {}),
            (A.FINISH, {}), (A.OUTPUTS, {"data": True}), (A.SHAPES, {}),
        ]
        assert {action for action, _ in script} | {A.NODES} == set(HANDLERS)
        replies = [(action, answer(engine, action.value, args)) for action, args in script]
    got = dict(replies)
    assert got[A.PING] == {"pong": True} and got[A.STATE]["state"] == "idle"
    assert got[A.ADD_BREAKPOINT]["breakpoints"] == [conv] and got[A.REMOVE_BREAKPOINT]["breakpoints"] == []
    assert got[A.RUN]["position"] == conv and got[A.STEP]["position"] == nodes["order"][nodes["order"].index(conv) + 1]
    assert "npy" in got[A.TENSOR] and "npy" not in got[A.SUMMARY] and got[A.TENSOR]["shape"] == got[A.SUMMARY]["shape"]
    assert [o["name"] for o in got[A.OVERRIDES]["overrides"]] == [weight]
    assert got[A.REVERT]["overrides"] == [] and got[A.REVERT_ALL]["overrides"] == []
    assert got[A.RESUME]["state"] == got[A.FINISH]["state"] == "finished"  # no breakpoint left: to the end
    assert all("npy" in entry for entry in got[A.OUTPUTS].values()) and got[A.SHAPES]["shapes"]


def test_an_unknown_action_is_refused_naming_the_known_ones() -> None:
    feeds = load_inputs(model_input_specs(MODEL), seed=1)
    with AnalysisEngine(MODEL, feeds, window=4, keep_bytes=1 << 22) as engine:
        with pytest.raises(SpecError, match=r"'explode' is not an analysis action \(one of ping, nodes, .*step"):
            answer(engine, "explode", {})
        with pytest.raises(SpecError, match="'__init__' is not an analysis action"):  # getattr would have called it
            answer(engine, "__init__", {})
        with pytest.raises(SpecError, match="answered by the request loop"):
            answer(engine, "close", {})


def test_a_real_worker_refuses_an_unknown_action_and_keeps_serving(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    with analyse(MODEL) as analysis:
        reply = analysis.activity.request("explode", {}, timeout=60.0)
        assert not reply["ok"] and "'explode' is not an analysis action (one of ping" in reply["error"]
        assert analysis.step() is not None and analysis.state == "paused"
