"""Layer -> ONNX node attribution on real PyTorch exports (tests/data/real, made by scripts/export_real_models.py).

What a user relies on when a name link selects nodes on the canvas: every layer whose type is an ONNX op of the
model holds a node of that op, no node sits in two layers, and every node is in a layer or in `removed_nodes`
with a reason — with ONNX Runtime's optimizations on (NCHWc convolutions named after the tensor they replace,
fused attention scales, constant-folded weight aliases) and off (function ops such as HardSwish inlined).
The earlier position-based mapping held 82 % (MobileNetV3) before the first layer was off by one.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import onnx
import pytest

from dld_jupyter.activities.kinds.profile import run_profile
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.report_format.model import Report

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
MODELS = ["mobilenet_v3_small_w05", "bert_tiny", "gpt2_tiny"]


class _Quiet:
    def progress(self, fraction: float, phase: str) -> None:
        pass

    def log(self, message: str, level: str = "info") -> None:
        pass


def _node_ops(path: Path) -> dict[str, str]:
    model = onnx.load(str(path), load_external_data=False)
    # Unnamed nodes are `<op>_<position>`: the name the profiler gives them and the designer's links resolve.
    return {node.name or f"{node.op_type}_{i}": node.op_type for i, node in enumerate(model.graph.node)}


@pytest.fixture(scope="module", params=[(m, o) for m in MODELS for o in (True, False)], ids=lambda p: f"{p[0]}-{p[1]}")
def profiled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Report]:
    name, optimize = request.param
    path = REAL / f"{name}.onnx"
    out = tmp_path_factory.mktemp("reports") / f"{name}.json"
    spec = OrtProfileSpec(model=str(path), iterations=3, warmup=1, optimize=optimize, output=str(out), threads=1)
    return path, run_profile(spec, _Quiet())


def test_every_layer_of_an_onnx_op_holds_a_node_of_that_op(profiled: tuple[Path, Report]) -> None:
    path, report = profiled
    ops = _node_ops(path)
    typed = [layer for layer in report.layers if layer.type in set(ops.values())]
    wrong = [(layer.name, layer.type, layer.onnx_nodes) for layer in typed
             if not any(ops.get(node) == layer.type for node in layer.onnx_nodes)]
    assert typed and not wrong, f"{len(wrong)} of {len(typed)} layers hold no node of their own op: {wrong[:5]}"


def test_no_node_in_two_layers_and_every_node_accounted_for(profiled: tuple[Path, Report]) -> None:
    path, report = profiled
    held = Counter(node for layer in report.layers for node in layer.onnx_nodes)
    assert [node for node, count in held.items() if count > 1] == []
    missing = set(_node_ops(path)) - set(held) - set(report.removed_nodes)
    assert missing == set()
    assert set(report.removed_reasons) == set(report.removed_nodes)
    assert all(report.removed_reasons.values())


def test_weight_aliases_are_removed_as_folded_constants_when_optimized() -> None:
    path = REAL / "mobilenet_v3_small_w05.onnx"
    model = onnx.load(str(path), load_external_data=False)
    weights = {init.name for init in model.graph.initializer}
    aliases = [n.name for n in model.graph.node if n.op_type == "Identity" and n.input[0] in weights]
    assert len(aliases) > 10  # PyTorch's Identity(initializer) for shared/folded weights
    spec = OrtProfileSpec(model=str(path), iterations=2, warmup=1, optimize=True, threads=1)
    report = run_profile(spec, _Quiet())
    assert set(aliases) <= set(report.removed_nodes)
    assert all("constant" in report.removed_reasons[name] for name in aliases)


def test_inlined_function_kernels_form_one_layer_named_after_the_onnx_node() -> None:
    path = REAL / "mobilenet_v3_small_w05.onnx"
    spec = OrtProfileSpec(model=str(path), iterations=2, warmup=1, optimize=False, threads=1)
    report = run_profile(spec, _Quiet())
    hardswish = [layer for layer in report.layers if layer.type == "HardSwish"]
    assert hardswish and all(layer.onnx_nodes == [layer.name] for layer in hardswish)
    timeline_layers = {event.layer for event in report.timeline}
    assert {report.layers.index(layer) for layer in hardswish} <= timeline_layers
