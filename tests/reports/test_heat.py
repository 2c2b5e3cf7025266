"""Heat on the canvas, the kernel half (reports/heat.py): a real ONNX Runtime CPU profile of a real export.

Every node of the model has the time of its layer(s) or a reason; a group's value is the sum of its members'
distinct layers (a fused layer once); nodes the report does not know are neutral and say why.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import onnx
import pytest

from dld_jupyter.activities.api import profile
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.heat import NOT_IN_REPORT, check_metric, group_members, heat_of

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


@pytest.fixture(scope="module")
def real_profile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, list[str]]:
    folder = tmp_path_factory.mktemp("heat")
    model = folder / MODEL.name
    shutil.copy(MODEL, model)
    report = profile(str(model), iterations=3, warmup=1, output=str(folder / "m.dld-report.json"))
    graph = onnx.load(str(model), load_external_data=False).graph
    return report, [node.name or f"{node.op_type}_{i}" for i, node in enumerate(graph.node)]


def test_every_node_has_its_layers_time_or_a_reason(real_profile: tuple[Report, list[str]]) -> None:
    report, names = real_profile
    heat = heat_of(report)
    timed = [n for n in names if heat.node_value(n) is not None]
    neutral = [n for n in names if heat.node_value(n) is None]
    assert timed and neutral  # optimization on: some nodes fused or folded away
    assert len(timed) + len(neutral) == len(names)
    for name in timed:
        layers = [layer for layer in report.layers if name in layer.onnx_nodes]
        assert heat.node_value(name, "time") == pytest.approx(sum(layer.median_ms for layer in layers))
        assert heat.node_value(name, "share") == pytest.approx(sum(layer.percent for layer in layers))
        assert heat.reason(name) == ""
    for name in neutral:  # removed by the optimizer, with the report's own reason (read back from its file)
        assert name in report.removed_nodes
        assert heat.reason(name) == report.removed_reasons[name]
        assert "folded" in heat.reason(name) or "eliminated" in heat.reason(name)


def test_a_fused_layer_gives_each_of_its_nodes_its_whole_time(real_profile: tuple[Report, list[str]]) -> None:
    report, _names = real_profile
    heat = heat_of(report)
    fused = next(layer for layer in report.layers if len(layer.onnx_nodes) > 1)
    for name in fused.onnx_nodes:
        assert heat.node_value(name) == pytest.approx(fused.median_ms)


def test_groups_sum_their_members_distinct_layers(real_profile: tuple[Report, list[str]]) -> None:
    report, names = real_profile
    heat = heat_of(report)
    whole = heat.group_value(names, "time")
    assert whole == pytest.approx(sum(layer.median_ms for layer in report.layers if layer.onnx_nodes))
    assert heat.group_value(names, "share") == pytest.approx(
        sum(layer.percent for layer in report.layers if layer.onnx_nodes)
    )
    fused = next(layer for layer in report.layers if len(layer.onnx_nodes) > 1)
    # Two nodes of one fused layer: that layer once, not twice.
    assert heat.group_value(fused.onnx_nodes[:2]) == pytest.approx(fused.median_ms)
    removed = [n for n in names if heat.node_value(n) is None]
    assert heat.group_value(removed) is None  # only removed members: no value


def test_group_members_by_scope_prefix() -> None:
    paths = {"a": ("enc", "l0"), "b": ("enc", "l1"), "c": ("dec",), "d": ()}
    assert group_members(paths) == {("enc",): ["a", "b"], ("enc", "l0"): ["a"], ("enc", "l1"): ["b"], ("dec",): ["c"]}


def test_a_node_the_report_does_not_know_is_neutral(real_profile: tuple[Report, list[str]]) -> None:
    heat = heat_of(real_profile[0])
    assert heat.node_value("added_after_profiling") is None
    assert heat.reason("added_after_profiling") == NOT_IN_REPORT


def test_unknown_metric_says_which_exist() -> None:
    with pytest.raises(ValueError, match=r"'time'.*'share'"):
        check_metric("percent")
