"""Editor overrides in child documents during analysis (issue 37): in the Loop body's tab of the scripted GRU export,
an attribute edit while analysing overrides that node inside the analysed model's subgraph (the outputs equal ORT on
the model with that one attribute changed), is marked as an override in the child's Parameter editor and reverted
there exactly; edits in a local function's body are refused saying why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.widgets.designer.designer import open_designer

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
GRU = REAL / "gru_scripted.onnx"


def _outputs(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options)
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True))


def test_subgraph_tab_edit_is_an_override_inside_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    saved = GRU.read_bytes()
    d = open_designer(GRU)
    child = d.open_subgraph("/Loop", "body")
    try:
        a = d.launch_analysis({"h0": "zeros"})
        assert a is not None
        feeds = dict(a.feeds)
        before = a.outputs()
        editors = child._editors
        gemm = next(n.id for n in child.document.nodes() if n.name == "/x2h/Gemm")
        editors.selection = [gemm]
        assert editors.handle({"kind": "set_attr", "name": "alpha", "text": "0.5", "key": "attr:alpha"}), editors.errors
        assert a.overrides == [{"node": "/Loop", "name": "alpha", "kind": "attribute", "inside": ["body", "/x2h/Gemm"]}]
        edited = onnx.load(str(GRU))
        loop = next(n for n in edited.graph.node if n.name == "/Loop")
        body_gemm = next(n for n in loop.attribute[0].g.node if n.name == "/x2h/Gemm")
        next(x for x in body_gemm.attribute if x.name == "alpha").f = 0.5
        expected = _outputs(edited, feeds)
        after = a.outputs()
        assert all(np.allclose(after[k], v, atol=1e-6) for k, v in expected.items())
        assert not all(np.allclose(after[k], v) for k, v in before.items())
        row = next(r for r in editors.params["attributes"] if r["name"] == "alpha")
        assert row["override"] and row["text"] == "0.5"
        assert not editors.handle({"kind": "tensor_set", "text": "[1]", "key": "tensor"})  # (test_analysis_child_
        assert "No tensor is open" in str(editors.errors)  # tensors.py: a tensor edit in a child is an override too)
        assert editors.handle({"kind": "revert_override", "name": "alpha", "key": "attr:alpha"}), editors.errors
        assert a.overrides == [] and all(np.array_equal(a.outputs()[k], v) for k, v in before.items())
        assert "override" not in next(r for r in editors.params["attributes"] if r["name"] == "alpha")
    finally:
        d.stop_analysis()
        child.close()
        d.close()
    assert GRU.read_bytes() == saved


def test_function_body_edits_are_refused_while_analysing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    d = open_designer(REAL / "shufflenet_functions_small.onnx")
    domain, name, *_ = next(iter(d.document.model.functions))
    child = d.open_function(name, domain)
    try:
        assert d.launch_analysis() is not None
        node = next(n for n in child.document.nodes() if child.document.ir_node(n.id) is not None
                    and child.document.ir_node(n.id).attributes)
        attribute = next(iter(child.document.ir_node(node.id).attributes))
        child._editors.selection = [node.id]
        assert not child._editors.handle({"kind": "set_attr", "name": attribute, "text": "1",
                                          "key": f"attr:{attribute}"})
        assert "shared by every call" in str(child._editors.errors)
        assert d.analysis is not None and d.analysis.overrides == []
    finally:
        d.stop_analysis()
        child.close()
        d.close()
