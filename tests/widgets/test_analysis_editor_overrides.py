"""Runtime options (seed 001 §4.3, issue 29): while the designer analyses its model, an edit in the Parameter editor
or the tensor editor is an analysis override (the running session only: never the document, never its file),
shown as one in the editor and reverted there; the outputs follow as a plain ORT run of the edited model would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

from dld_jupyter.document.edits.literals import format_literal
from dld_jupyter.widgets.designer.designer import Designer

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
GEMM = "/classifier/classifier.3/Gemm"


def plain_outputs(model: onnx.ModelProto, feeds: dict[str, Any]) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds), strict=True))


def test_editor_edits_during_analysis_are_overrides_of_the_session(mobilenet_designer: Designer) -> None:
    d = mobilenet_designer
    path = Path(d.document.path)
    saved = path.read_bytes()
    gemm = next(n.id for n in d.document.nodes() if n.name == GEMM)
    d.document.save_copy(path.with_name("before.onnx"))
    a = d.launch_analysis({"input": "random"})
    assert a is not None
    editors = d._editors
    before = a.outputs()
    editors.selection = [gemm]

    assert editors.handle({"kind": "set_attr", "name": "alpha", "text": "0.25", "key": "attr:alpha"}), editors.errors
    edited = onnx.load(str(MODEL))
    node = next(n for n in edited.graph.node if n.name == GEMM)
    next(at for at in node.attribute if at.name == "alpha").f = 0.25
    expected = plain_outputs(edited, a.feeds)
    after = a.outputs()
    assert all(np.allclose(after[k], expected[k], atol=1e-5) for k in expected)
    assert not np.allclose(after["logits"], before["logits"])
    assert d.document.node(gemm).attributes["alpha"] == 1.0 and not d.document.dirty  # the document is as it was
    row = next(r for r in editors.params["attributes"] if r["name"] == "alpha")
    assert row["override"] and row["text"] == "0.25"
    assert a.overrides == [{"node": GEMM, "name": "alpha", "kind": "attribute"}]

    # The tensor editor: an initializer the Gemm reads (its bias), edited as text.
    bias = next(v for v in d.document.model.graph.initializers.values() if v.name == "classifier.3.bias")
    editors.open_tensor(value_id=d.document.value_id(bias))
    halves = np.full(bias.const_value.shape.numpy(), 0.5, dtype=np.float32)
    assert editors.handle({"kind": "tensor_set", "text": format_literal(halves), "key": "tensor"}), editors.errors
    next(t for t in edited.graph.initializer if t.name == "classifier.3.bias").CopyFrom(
        onnx.numpy_helper.from_array(halves, "classifier.3.bias")
    )
    expected = plain_outputs(edited, a.feeds)
    assert np.allclose(a.outputs()["logits"], expected["logits"], atol=1e-5)
    assert editors.tensor["override"] and not np.any(bias.const_value.numpy() == 0.5)  # the document keeps its bias

    d.document.save_copy(path.with_name("during.onnx"))  # what a save writes now: the document, no override
    assert path.with_name("during.onnx").read_bytes() == path.with_name("before.onnx").read_bytes()
    assert path.read_bytes() == saved

    assert editors.handle({"kind": "revert_override", "key": "tensor"}), editors.errors
    assert "override" not in editors.tensor
    assert editors.handle({"kind": "revert_override", "name": "alpha", "key": "attr:alpha"}), editors.errors
    assert "override" not in next(r for r in editors.params["attributes"] if r["name"] == "alpha")
    reverted = a.outputs()
    assert all(np.array_equal(reverted[k], before[k]) for k in before) and a.overrides == []

    a.override(gemm, "beta", 0.5)  # from a cell or the Analysis panel: the editor shows it at once
    assert next(r for r in editors.params["attributes"] if r["name"] == "beta")["override"]
    a.revert_all()
    assert not any(r.get("override") for r in editors.params["attributes"])

    assert not editors.handle({"kind": "reset_attr", "name": "alpha", "key": "attr:alpha"})  # a model edit
    assert "Stop Analysis" in editors.errors["attr:alpha"]["message"]
    d.stop_analysis()
    assert editors.handle({"kind": "set_attr", "name": "alpha", "text": "0.5", "key": "attr:alpha"})
    assert d.document.node(gemm).attributes["alpha"] == 0.5  # after Stop, an edit is an edit of the model again
