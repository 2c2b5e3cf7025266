"""trtexec import on the real TensorRT samples (shared/trt-samples, copied in tests/data/trt) and on bad input."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import onnx
import pytest
from onnx import TensorProto, helper

from dld_jupyter.report_format.io import ReportError, load_report, save_report
from dld_jupyter.report_format.trt_names import parse_layer_name
from dld_jupyter.reports.open import detect, open_report, trtexec_siblings
from dld_jupyter.reports.trtexec import import_trtexec, parse_precision
from tests.reports.conftest import COPY, shared_samples


def profiles(folder: Path) -> list[Path]:
    found = sorted(folder.glob("*.profile.json"))
    assert found, f"no *.profile.json in {folder}"
    return found


def load(path: Path) -> Any:
    return json.loads(path.read_text())


def test_copy_matches_shared_samples() -> None:
    shared = shared_samples()
    if shared is None:
        pytest.skip("shared/trt-samples is not beside this clone (tests use the copy in tests/data/trt)")
    for file in shared.iterdir():
        assert (COPY / file.name).is_file(), f"{file.name} missing from tests/data/trt"
        if file.suffix == ".json":
            assert (COPY / file.name).read_bytes() == file.read_bytes(), file.name


@pytest.mark.parametrize("folder", [COPY, shared_samples()], ids=["copy", "shared"])
def test_every_sample_imports_completely(folder: Path | None, tmp_path: Path) -> None:
    if folder is None:
        pytest.skip("no shared samples here")
    for profile in profiles(folder):
        siblings = trtexec_siblings(profile)
        report = import_trtexec(profile, **siblings)
        records = [r for r in load(profile) if "name" in r]
        assert [layer.name for layer in report.layers] == [r["name"] for r in records]  # every layer, in order
        assert report.summary.backend == "tensorrt"
        assert sum(layer.percent for layer in report.layers) == pytest.approx(100.0, abs=1e-6)
        assert sum(r["percentage"] for r in records) == pytest.approx(100.0, abs=0.01)  # the file agrees
        for layer, record in zip(report.layers, records, strict=True):
            assert layer.median_ms == pytest.approx(record.get("medianMs", record["averageMs"]))
            assert layer.percent == pytest.approx(record["percentage"], abs=0.05)
        if "layers" in siblings:
            graph = {g["Name"]: g for g in load(siblings["layers"])["Layers"]}
            for layer in report.layers:
                info = graph[layer.name]
                assert layer.type == info["LayerType"]
                assert layer.input_dims == [t["Dimensions"] for t in info["Inputs"]]
                assert layer.output_dims == [t["Dimensions"] for t in info["Outputs"]]
                assert layer.precision != "N/A" or not info["Inputs"]
        # the round trip through the file format keeps everything
        assert load_report(save_report(report, tmp_path / f"{profile.name}.dld-report.json")) == report


def test_resnet50_sample_details(trt_prefix: Path) -> None:
    report = open_report(f"{trt_prefix}.profile.json")  # siblings found next to the profile
    conv = [layer for layer in report.layers if layer.type == "CaskConvolution"]
    assert len(conv) == 54 and all(layer.precision == "FP16" for layer in conv)
    assert report.layers[0].precision == "FP32"  # the input transpose reads the FP32 network input
    assert report.layers[0].input_dims == [[32, 224, 224, 3]]
    # reformats and NoOps are overhead; their sources are the layer they serve
    reformat = report.layers[1]
    assert reformat.overhead and reformat.type == "Reformat"
    assert reformat.onnx_nodes == report.layers[2].onnx_nodes == ["Conv__435", "resnet50/conv1_relu/Relu"]
    assert all(layer.overhead for layer in report.layers if layer.type in ("NoOp", "Reformat"))
    assert sum(layer.overhead for layer in report.layers) == 27
    assert all(layer.onnx_nodes for layer in report.layers if not layer.name.startswith("["))
    # passes from --exportTimes: the median of latencyMs, every pass kept
    times = load(Path(f"{trt_prefix}.timing.json"))
    assert report.summary.passes == len(report.passes_ms) == len(times) == 795
    assert report.summary.median_ms == pytest.approx(statistics.median_low([t["latencyMs"] for t in times]))
    assert report.passes_ms[report.summary.median_pass_index] == report.summary.median_ms
    assert report.summary.stable
    assert report.summary.device == "NVIDIA GeForce RTX 3090"
    assert report.summary.settings["build_options"]["Precision"] == "FP32+FP16"
    assert "end to end" in report.summary.settings["timeline"]


def test_timeline_lays_layers_end_to_end(trt_prefix: Path) -> None:
    report = import_trtexec(f"{trt_prefix}.profile.json", f"{trt_prefix}.graph.json")
    assert [e.layer for e in report.timeline] == list(range(len(report.layers)))
    end = 0.0
    for event, layer in zip(report.timeline, report.layers, strict=True):
        assert event.start_ms == pytest.approx(end) and event.duration_ms == layer.median_ms
        assert event.overhead == layer.overhead and event.stream == 0
        end += event.duration_ms
    assert end == pytest.approx(sum(layer.median_ms for layer in report.layers))
    assert report.summary.median_ms == pytest.approx(end)  # no --exportTimes: the layer sum
    assert "no --exportTimes" in report.summary.settings["median_ms"]


def test_h2d_and_d2h_from_times(trt_prefix: Path, tmp_path: Path) -> None:
    times = load(Path(f"{trt_prefix}.timing.json"))[:5]
    for t in times:
        t.update(h2dMs=0.5, d2hMs=0.25)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(times))
    report = import_trtexec(f"{trt_prefix}.profile.json", times=path)
    first, last = report.timeline[0], report.timeline[-1]
    assert (first.layer, first.start_ms, first.duration_ms, first.overhead) == (-1, 0.0, 0.5, True)
    assert report.timeline[1].start_ms == 0.5
    assert last.layer == -1 and last.duration_ms == 0.25
    assert last.start_ms == pytest.approx(0.5 + sum(layer.median_ms for layer in report.layers))


def test_profile_alone_names_overhead_kinds(trt_prefix: Path) -> None:
    report = import_trtexec(f"{trt_prefix}.profile.json")
    kinds = {layer.type for layer in report.layers}
    assert kinds == {"Reformat", "Unknown"}
    assert all(layer.precision == "N/A" and layer.input_dims == [] for layer in report.layers)
    assert report.summary.model == "tf-resnet50-rtx3090-fp16"
    assert report.summary.passes == 1  # the profile's {"count": 1}


def model_for(report_names: list[str], extra: list[str]) -> onnx.ModelProto:
    """A chain of Identity nodes named like the sample's ONNX sources (the real resnet.onnx is not shipped)."""
    nodes, prev = [], "x"
    for i, name in enumerate(report_names + extra):
        out = f"{name}:0" if i % 2 else f"t{i}"
        nodes.append(helper.make_node("Identity", [prev], [out], name=name))
        prev = out
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1])])  # fmt: skip
    return helper.make_model(graph)


def test_model_keeps_only_real_nodes(trt_prefix: Path, tmp_path: Path) -> None:
    profile = f"{trt_prefix}.profile.json"
    sources = list(dict.fromkeys(s for r in load(Path(profile)) if "name" in r
                                 for s in parse_layer_name(r["name"]).sources))  # fmt: skip
    sources.remove("resnet50/pool1_pad/Pad")  # a name the model does not have
    path = tmp_path / "resnet.onnx"
    onnx.save(model_for(sources, ["folded/Const"]), path)
    report = import_trtexec(profile, model=path)
    by_name = {layer.name: layer for layer in report.layers}
    assert by_name["resnet50/pool1_pad/Pad"].onnx_nodes == []
    assert by_name["Conv__435 + resnet50/conv1_relu/Relu"].onnx_nodes == ["Conv__435", "resnet50/conv1_relu/Relu"]
    assert report.removed_nodes == ["folded/Const"]
    assert report.summary.model == "resnet" and report.summary.model_path == str(path)


def test_tensorrt10_metadata_links_nodes(tmp_path: Path) -> None:
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps([{"count": 10}, {"name": "__myl_ConvRelu", "timeMs": 1, "averageMs": 0.1,
                                                    "medianMs": 0.09, "percentage": 100}]))  # fmt: skip
    layers = tmp_path / "l.json"
    layers.write_text(json.dumps({"Layers": [{
        "Name": "__myl_ConvRelu", "LayerType": "kgen", "Metadata": "[ONNX Layer: /c/Conv]\x1f[ONNX Layer: /c/Relu]",
        "Inputs": [{"Name": "x", "Dimensions": [1, 3], "Format/Datatype": "Half"}], "Outputs": []}]}))  # fmt: skip
    report = import_trtexec(profile, layers)
    layer = report.layers[0]
    assert layer.onnx_nodes == ["/c/Conv", "/c/Relu"] and layer.precision == "FP16" and layer.type == "kgen"
    assert (layer.median_ms, layer.mean_ms) == (0.09, 0.1) and report.summary.passes == 10


def test_layer_names_only_and_multiple_profiles(tmp_path: Path, trt_prefix: Path) -> None:
    records = load(Path(f"{trt_prefix}.profile.json"))
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps([records, records]))  # one list per optimization profile
    layers = tmp_path / "l.json"
    layers.write_text(json.dumps({"Layers": [r["name"] for r in records[1:]], "Bindings": []}))
    report = import_trtexec(profile, layers)
    assert len(report.layers) == 86 and report.layers[2].type == "Unknown"


@pytest.mark.parametrize(
    ("text", "precision"),
    [("Channel major FP16 format where channel % 8 == 0", "FP16"), ("Row major linear FP32", "FP32"),
     ("Row major Int8 format", "INT8"), ("Half", "FP16"), ("Float", "FP32"), ("BF16", "BF16"), ("", "N/A"),
     ("Row major linear INT32", "INT32"), ("Channel major FP8 format", "FP8")],
)  # fmt: skip
def test_parse_precision(text: str, precision: str) -> None:
    assert parse_precision(text) == precision


def bad(tmp_path: Path, content: object, name: str = "") -> Path:
    path = tmp_path / (name or f"bad{len(list(tmp_path.iterdir()))}.json")  # one file per case
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_bad_inputs(tmp_path: Path, trt_prefix: Path) -> None:
    profile = f"{trt_prefix}.profile.json"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"profile": tmp_path / "missing.json"}, "no such profile file .*--exportProfile"),
        ({"profile": bad(tmp_path, "[{")}, "the profile is not JSON"),
        ({"profile": f"{trt_prefix}.graph.json"}, "found a JSON dict. Did you pass the --exportLayerInfo"),
        ({"profile": bad(tmp_path, [{"count": 1}, {"timeMs": 1}])}, 'record 1 has no layer "name"'),
        ({"profile": bad(tmp_path, [{"name": "a", "averageMs": "x"}])}, 'has no numeric "averageMs"'),
        ({"profile": bad(tmp_path, [{"count": 3}])}, "lists no layers"),
        ({"profile": profile, "layers": bad(tmp_path, [1])}, '"Layers" list'),
        ({"profile": profile, "times": bad(tmp_path, {"a": 1})}, '"latencyMs"'),
        ({"profile": profile, "metadata": [bad(tmp_path, [1])]}, "TREx metadata is a JSON object"),
        ({"profile": profile, "model": bad(tmp_path, "not onnx", "m.onnx")}, "not a readable ONNX model"),
        ({"profile": profile, "model": tmp_path / "none.onnx"}, "no such ONNX model"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ReportError, match=message):
            import_trtexec(**kwargs)


def test_detect(trt_prefix: Path, tmp_path: Path) -> None:
    assert detect(f"{trt_prefix}.profile.json") == "trtexec"
    assert detect(f"{trt_prefix}.graph.json") == "unknown"
    assert detect(tmp_path / "missing") == "unknown"
    with pytest.raises(ReportError, match="Accepted: a dld report, a trtexec"):
        open_report(f"{trt_prefix}.timing.json")
