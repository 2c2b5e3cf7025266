"""Each recommendation fires on data that shows the problem, with its numbers, and stays quiet otherwise."""

from __future__ import annotations

from pathlib import Path

from dld_jupyter.report_format.model import Layer, Report, Summary
from dld_jupyter.reports.open import open_report
from dld_jupyter.reports.recommendations import recommend


def ids(report: Report) -> list[str]:
    return [r.id for r in recommend(report)]


def base(backend: str = "onnxruntime", provider: str = "CPUExecutionProvider") -> Report:
    layers = [Layer(i, f"l{i}", ["Conv", "Relu", "Add", "MatMul"][i % 4], precision="FP32", provider=provider,
                    median_ms=1.0) for i in range(8)]  # fmt: skip
    passes = [8.2 + 0.01 * i for i in range(20)]
    summary = Summary("m", "", backend, provider, "CPU", median_ms=8.29, passes=20, min_ms=8.2, p90_ms=8.38,
                      max_ms=8.39, mean_ms=8.29)  # fmt: skip
    return Report(summary=summary, passes_ms=passes, layers=layers)


def test_quiet_on_a_healthy_report() -> None:
    assert ids(base()) == []


def test_real_tensorrt_sample(trt_prefix: Path) -> None:
    found = {r.id: r for r in recommend(open_report(f"{trt_prefix}.profile.json"))}
    assert set(found) == {"fp32-layers", "dominant-type"}
    fp32 = found["fp32-layers"]
    assert fp32.severity == "warning" and fp32.layers == [0, 85]
    assert "2 compute layer(s) take FP32 inputs" in fp32.problem and "2.2% of layer time" in fp32.problem
    assert "CaskConvolution layers take 91.3%" in found["dominant-type"].problem


def test_fp32_only_when_reduced_precision_is_on() -> None:
    report = base("tensorrt", "")
    assert "fp32-layers" not in ids(report)
    report.summary.settings["build_options"] = {"Precision": "FP32+FP16"}
    assert "fp32-layers" in ids(report)


def test_overhead_share() -> None:
    report = base()
    report.layers[0].overhead = True
    report.layers[0].median_ms = 1.0  # 1/8 = 12.5%
    rec = next(r for r in recommend(report) if r.id == "overhead-share")
    assert "12.5% of layer time" in rec.problem and rec.layers == [0]


def test_dominant_type_and_layer() -> None:
    report = base()
    report.layers[0].median_ms = 20.0
    found = {r.id: r for r in recommend(report)}
    assert "Conv layers take" in found["dominant-type"].problem and found["dominant-layer"].layers == [0]


def test_unstable_and_few_passes() -> None:
    report = base()
    report.summary.stable = False
    report.summary.stability_note = "p90 is 30% above the median"
    report.passes_ms = report.passes_ms[:3]
    found = {r.id: r for r in recommend(report)}
    assert "p90 is 30% above the median" in found["unstable-passes"].problem and "few-passes" in found
    assert ids(report)[0] == "unstable-passes"  # warnings first


def test_profiling_overhead_and_outside_layers() -> None:
    report = base()
    report.summary.profiling_overhead_ms = 2.0
    report.summary.median_ms = 12.0  # layers sum to 8 ms: 4 ms outside
    found = {r.id: r for r in recommend(report)}
    assert "20.0%" in found["profiling-overhead"].problem
    assert "4.000 ms (33.3%)" in found["outside-layers"].problem


def test_cpu_fallback_and_cpu_with_gpu() -> None:
    report = base(provider="CUDAExecutionProvider")
    report.layers[2].provider = "CPUExecutionProvider"
    found = {r.id: r for r in recommend(report)}
    assert (
        found["cpu-fallback"].layers == [2]
        and "1 layer(s) ran on CPUExecutionProvider" in found["cpu-fallback"].problem
    )
    cpu = base()
    cpu.system["available_providers"] = ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert "cpu-with-gpu" in ids(cpu)
    cpu.system = {"gpus": [{"name": "H100"}]}
    assert "cpu-with-gpu" in ids(cpu)
