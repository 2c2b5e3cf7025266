"""The Designer's analysis mode on real exports, in the kernel: Launch from the panel with a PNG (the document turns
read-only with its banner), a breakpoint from the canvas menu's request on the first Conv (the run stops there),
two steps, the Channel Inspector equal to a plain ORT run that outputs the same value, the Network Overview's
lines equal to the shapes ORT computes for every node (BERT, integer inputs; the scripted GRU's Loop model
never contradicts them), Profile Layer Timings adding each Conv's time to its line, an analysis override of the last
Gemm's alpha changing the outputs as ORT does and Revert all restoring them exactly, weights shown from the
document, and Stop giving the document back with the overlay cleared; Launch/Stop Analysis as registered operations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from PIL import Image

from dld_jupyter.activities.analysis.inputs import load_inputs, model_input_specs
from dld_jupyter.frontdoor.operations import OperationUnavailable, operations
from dld_jupyter.widgets.analysis.channel_tiles import decode, encode, layout_of, stats_of
from dld_jupyter.widgets.analysis.layer_timings import time_text
from dld_jupyter.widgets.analysis.overview import inferred_shapes, node_lines, shape_text
from dld_jupyter.widgets.designer.designer import Designer, open_designer

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
MODEL = REAL / "mobilenet_v3_small_w05.onnx"


def plain_run(model: onnx.ModelProto, feeds: dict[str, Any], values: list[str]) -> dict[str, np.ndarray]:
    """ORT on `model` with `values` marked as outputs: the reference every inspected tensor must equal."""
    marked = onnx.ModelProto()
    marked.CopyFrom(model)
    known = {o.name for o in marked.graph.output}
    marked.graph.output.extend(onnx.ValueInfoProto(name=v) for v in values if v not in known)
    session = ort.InferenceSession(marked.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds), strict=True))


@pytest.fixture
def designer(tmp_path: Path) -> Iterator[Designer]:
    d = open_designer(MODEL)
    yield d
    d.stop_analysis()
    d.close()


def test_launch_break_step_inspect_override_stop(designer: Designer, tmp_path: Path) -> None:
    png = tmp_path / "cat.png"
    Image.fromarray((np.random.default_rng(0).random((120, 160, 3)) * 255).astype(np.uint8)).save(png)
    analysis = designer.launch_analysis({"input": str(png)})
    panel = designer.analysis_mode.panel
    assert analysis is not None and designer.analysis is analysis and panel.error.value == ""
    assert "Stop Analysis" in str(designer.document.read_only) and "dld-readonly-banner" in designer.banner.value
    assert panel.launch_button.description == designer.analysis_mode.button.description == "Stop Analysis"
    doc = designer.document
    conv = next(doc.node_id(n) for n in doc.model.graph if n.op_type == "Conv")
    panel.overlay.receive({"kind": "overlay", "overlay": "analysis", "action": "add_breakpoint", "id": conv}, [])
    assert analysis.position_id == conv and panel.overlay.payload["breakpoints"] == [conv]
    panel.step()
    panel.step()
    order = analysis.order_ids
    assert analysis.position_id == order[order.index(conv) + 2] == panel.overlay.payload["position"]
    stopped = doc.ir_node(analysis.position_id)
    proto = onnx.load(str(MODEL))
    feeds = load_inputs(model_input_specs(proto), {"input": str(png)})
    value = stopped.outputs[0].name
    reference = plain_run(proto, feeds, [value])
    shown = decode(encode(reference[value], layout_of(reference[value].shape), stats_of(reference[value])))
    assert panel.inspector.meta["shape"] == list(reference[value].shape)
    assert np.allclose(np.frombuffer(panel.inspector.data, np.float32), shown, atol=1e-5)
    assert panel.overlay.payload["lines"][analysis.position_id] == shape_text(reference[value].shape)
    before = panel.outputs_view.outputs[0]["rows"][0]
    gemm = [n for n in doc.model.graph if n.op_type == "Gemm"][-1]
    designer.canvas.selection = [doc.node_id(gemm)]
    panel.overrides.member.value, panel.overrides.value.value = "alpha", "3.0"
    panel.overrides.apply()
    changed = panel.outputs_view.outputs[0]["rows"][0]
    edited = onnx.ModelProto()
    edited.CopyFrom(proto)
    node = next(n for n in edited.graph.node if n.name == gemm.name)
    kept = [a for a in node.attribute if a.name != "alpha"]
    del node.attribute[:]
    node.attribute.extend([*kept, onnx.helper.make_attribute("alpha", 3.0)])
    (logits,) = plain_run(edited, feeds, []).values()
    assert [r["score"] for r in changed] == pytest.approx([float(logits[0, r["index"]]) for r in changed], rel=1e-4)
    assert changed != before and "1 analysis override" in panel.status.value
    panel.overrides.revert_all()
    assert panel.outputs_view.outputs[0]["rows"][0] == before
    panel.show_weights.value = "Weights"
    designer.canvas.selection = [conv]
    weight = next(v for v in doc.ir_node(conv).inputs if v is not None and v.const_value is not None)
    assert panel.inspector.meta["shape"] == list(weight.const_value.shape)
    designer.stop_analysis()
    assert designer.analysis is None and doc.read_only is None and panel.overlay.payload is None
    assert panel.launch_button.description == "Launch Analysis"


@pytest.mark.parametrize(("model", "all_exact"), [("bert_tiny", True), ("gru_scripted", False)])
def test_overview_lines_are_the_shapes_ort_computes(model: str, all_exact: bool) -> None:
    proto = onnx.load(str(REAL / f"{model}.onnx"))
    feeds = load_inputs(model_input_specs(proto), {})
    nodes = [(n.name or f"#{i}", n.output[0] if n.output else None) for i, n in enumerate(proto.graph.node)]
    values = [v for _, v in nodes if v]
    computed = plain_run(proto, feeds, values)
    lines = node_lines(nodes, inferred_shapes(proto, feeds))
    exact = sum(lines[node] == shape_text(computed[v].shape) for node, v in nodes if v)
    wrong = {
        node: (lines[node], shape_text(computed[v].shape))
        for node, v in nodes
        if v and not agrees(lines[node], computed[v].shape)
    }
    assert not wrong  # a line is the shape ORT computes, or says "?" where inference could not follow
    assert len(lines) == len(values) and (exact == len(values) or not all_exact)


def agrees(line: str, shape: tuple[int, ...]) -> bool:
    if line == "scalar":
        return shape == ()
    parts = line.split("×")
    return len(parts) == len(shape) and all(p in ("?", str(d)) for p, d in zip(parts, shape, strict=True))


def test_profile_layer_timings_put_each_nodes_latest_time_under_its_shape(designer: Designer) -> None:
    analysis = designer.launch_analysis()
    panel = designer.analysis_mode.panel
    assert analysis is not None and "·" not in "".join(panel.overlay.payload["lines"].values())
    panel.timings.value = True
    doc = designer.document
    convs = [doc.node_id(n) for n in doc.model.graph if n.op_type == "Conv"]
    lines = panel.overlay.payload["lines"]
    assert convs and all(c in panel._times and panel._times[c] > 0 for c in convs)  # ORT times every Conv
    assert all(lines[c].endswith(time_text(panel._times[c])) and lines[c].startswith("1×") for c in convs)
    panel.timings.value = False
    assert "·" not in "".join(panel.overlay.payload["lines"].values())


def test_launch_and_stop_are_registered_operations(designer: Designer) -> None:
    launch, stop = operations.get("launch_analysis"), operations.get("dld:stop-analysis")
    assert launch.enabled(designer) is True and stop.enabled(designer) == "the model is not being analysed"
    analysis = launch(designer, inputs={"input": "zeros"})
    assert analysis is designer.analysis and launch.enabled(designer) == "the model is being analysed already"
    assert not designer.analysis_mode.panel.model_inputs.tensors()["input"].any()
    stop(designer)
    assert designer.analysis is None and designer.document.read_only is None
    with pytest.raises(OperationUnavailable, match="analysis needs a designer"):
        launch(designer.canvas)
