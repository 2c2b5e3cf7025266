"""A report's GPU activity records (kernels, memory copies and sets) as the rows every dashboard panel reads.

Why: the report format stores CUPTI records in its own shape; the dashboard reads them through this one adapter, so a
panel never depends on how they are stored, and a report without them says why (`absence`) instead of showing zeros.
Tensor Core use is the record's own flag when it carries one, else judged from the kernel name (`uses_tensor_cores`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dld_jupyter.report_format.model import Report

KERNEL, MEMORY = "kernel", "memory"  # what a record occupies on the GPU: compute, or a copy/set of memory

# Op types whose work can run on Tensor Cores (matrix products and convolutions, their fused and quantized forms).
TC_ELIGIBLE = frozenset({
    "Conv", "ConvTranspose", "FusedConv", "QLinearConv", "ConvInteger", "MatMul", "FusedMatMul", "MatMulInteger",
    "QLinearMatMul", "MatMulNBits", "Gemm", "FusedGemm", "Attention", "MultiHeadAttention", "GroupQueryAttention",
    "Einsum", "LSTM", "GRU", "RNN", "CaskConvolution", "CaskGemmConvolution", "CaskDeconvolution", "Convolution",
    "Deconvolution", "MatrixMultiply", "FullyConnected", "Myelin", "gemm",
})
# Kernel names of Tensor Core kernels: DLProf's list (hmma, 884, 1688, 16816, imma) plus Hopper's (nvjet_sm90 hsh/
# tst, wgmma, sm90_xmma, *_tensorop_*, cutlass tensor ops, flash attention). Matched case-insensitively.
TC_KERNEL_NAME = re.compile(
    r"hmma|imma|qmma|wgmma|gmma|tensorop|tensor\d+x\d+x\d+|\b884|1688|16816|_s884|_h884|nvjet|xmma_.*(f16|bf16|"
    r"fp16|e4m3|e5m2|tf32|i8)|flash_?fwd|flash_?attn|fmha|cutlass.*(f16|bf16|tf32)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Kernel:
    """One GPU activity of the report, times on the median-pass timeline (ms)."""

    name: str
    kind: str  # KERNEL or MEMORY
    layer: int  # position in report.layers of the op that launched it, -1 when none
    start_ms: float
    duration_ms: float
    tensor_core: bool
    launch_ms: float | None = None  # host time of the launch (runtime API call), when recorded
    pass_index: int | None = None  # measured pass it ran in (None: the median pass)
    device: int = 0
    stream: int = 0
    grid: str = ""
    block: str = ""

    @property
    def end_ms(self) -> float:
        return self.start_ms + self.duration_ms


def uses_tensor_cores(name: str) -> bool:
    return bool(TC_KERNEL_NAME.search(name))


def _get(record: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        value = record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)
        if value is not None:
            return value
    return default


def _dims(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "x".join(str(v) for v in value)
    return str(value) if value not in (None, "") else ""


def _kind(record: Any) -> str:
    kind = str(_get(record, "kind", "type", default="kernel")).lower()
    return MEMORY if any(word in kind for word in ("memcpy", "memset", "memory", "copy")) else KERNEL


def _records(report: Report) -> list[Any]:
    for name in ("kernels", "kernel_records", "gpu_activities"):
        records = getattr(report, name, None)
        if records:
            return list(records)
    return []


def kernels_of(report: Report) -> list[Kernel]:
    """Every recorded GPU activity of `report`, in start order ([] when it holds no kernel records)."""
    rows = []
    for record in _records(report):
        name = str(_get(record, "name", default=""))
        kind = _kind(record)
        flag = _get(record, "tensor_core", "uses_tensor_cores", "tensor_cores")
        launch = _get(record, "launch_ms", "api_start_ms")
        pass_index = _get(record, "pass_index", "iteration", "pass")
        rows.append(Kernel(
            name=name, kind=kind, layer=int(_get(record, "layer", default=-1)),
            start_ms=float(_get(record, "start_ms", default=0.0)),
            duration_ms=float(_get(record, "duration_ms", default=0.0)),
            tensor_core=bool(flag) if flag is not None else kind == KERNEL and uses_tensor_cores(name),
            launch_ms=None if launch is None else float(launch),
            pass_index=None if pass_index is None else int(pass_index),
            device=int(_get(record, "device", default=0)), stream=int(_get(record, "stream", default=0)),
            grid=_dims(_get(record, "grid")), block=_dims(_get(record, "block")),
        ))
    return sorted(rows, key=lambda k: (k.pass_index if k.pass_index is not None else -1, k.start_ms))


def median_pass(report: Report) -> int:
    """The pass whose kernels the timeline shows: the profiled median pass, else the measured median pass."""
    capture = getattr(report, "kernel_capture", None)
    median = capture.get("median_pass") if isinstance(capture, Mapping) else None
    return int(median) if isinstance(median, int) else report.summary.median_pass_index


def ran_on_gpu(report: Report) -> bool:
    """The run used a GPU: a CUDA/TensorRT provider or a TensorRT engine."""
    provider = report.summary.provider
    return report.summary.backend == "tensorrt" or not provider.startswith("CPU")


def absence(report: Report) -> str:
    """Why kernel panels are empty for `report` ("" when it holds kernel records)."""
    if _records(report):
        return ""
    if not ran_on_gpu(report):
        return (f"this run used {report.summary.provider or 'the CPU'}: no GPU ran, so there are no kernels, "
                "Tensor Core use or GPU idle time to show")
    return ("this report holds no kernel records: it was made without CUPTI kernel recording (older release, an "
            "import, or cupti-python missing on the target); profile again on the GPU with kernel records to see "
            "kernels, Tensor Core use and idle gaps")
