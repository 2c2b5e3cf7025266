"""Synthetic reports for tests: deterministic, valid, with every section filled."""

from __future__ import annotations

import random

from dld_jupyter.report_format.model import Layer, MetricSeries, Report, Summary, TimelineEvent

TYPES = ("Conv", "Relu", "MatMul", "Add", "Reformat")
PRECISIONS = ("FP16", "FP16", "FP32", "INT8")


def make_report(n: int = 20, seed: int = 0, backend: str = "onnxruntime", model: str = "net") -> Report:
    rng = random.Random(seed)
    layers = []
    for i in range(n):
        kind = TYPES[i % len(TYPES)]
        t = round(rng.uniform(0.01, 1.0), 6)
        layers.append(
            Layer(
                index=i,
                name=f"/block{i // 5}/{kind}_{i}",
                type=kind,
                onnx_nodes=[f"/block{i // 5}/{kind}_{i}"],
                input_dims=[[1, 64, 56, 56]],
                output_dims=[[1, 64, 56, 56]],
                precision=PRECISIONS[i % 4],
                provider="" if backend == "tensorrt" else "CPUExecutionProvider",
                stream=0,
                median_ms=t,
                mean_ms=t * 1.01,
                min_ms=t * 0.9,
                max_ms=t * 1.2,
                overhead=kind == "Reformat",
            )
        )
    total = sum(layer.median_ms for layer in layers)
    for layer in layers:
        layer.percent = 100 * layer.median_ms / total if total else 0.0
    timeline, start = [], 0.0
    for i, layer in enumerate(layers):
        timeline.append(TimelineEvent(i, layer.name, 0, start, layer.median_ms, layer.overhead))
        start += layer.median_ms
    passes = [round(total * (1.05 + 0.01 * k), 6) for k in range(10)]
    summary = Summary(
        model=model,
        model_path=f"/models/{model}.onnx",
        backend=backend,
        provider="CPUExecutionProvider" if backend != "tensorrt" else "NVIDIA H100",
        device="CPU",
        median_ms=sorted(passes)[4],
        passes=len(passes),
        warmup_passes=2,
        min_ms=min(passes),
        p90_ms=passes[8],
        max_ms=max(passes),
        mean_ms=sum(passes) / 10,
        median_pass_index=4,
        created="2026-01-01T00:00:00+00:00",
        settings={"iterations": 10},
    )
    metrics = [MetricSeries("sm_utilization", "SM Utilization", "%", [0.0, total / 2, total], [10.0, 80.0, 50.0])]
    return Report(
        summary=summary,
        passes_ms=passes,
        layers=layers,
        timeline=timeline,
        gpu_metrics=metrics,
        system={"os": "Linux"},
        removed_nodes=["/block0/Identity"],
    )
