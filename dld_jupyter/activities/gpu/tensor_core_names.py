"""Kernel names: readable (demangled) and does the kernel run on Tensor Cores? Told from its name, as DLProf did,
with the names Hopper's libraries use.

DLProf's lists (hmma, 884, 1688, ...) miss every Tensor Core kernel cuBLAS and cuDNN launch on an H100: cuBLAS's
`nvjet_sm90_hsh_…`, cuDNN's `sm80_xmma_fprop_implicit_gemm_f16…tensor16x8x16…`, CUTLASS's `…wgmma…`/`…gmma…`
(../shared/GPU.md). A name is only evidence: the profile cross-checks it with GPM's tensor activity
(`tensor_core_check`), so a rule that misses a family shows up as a disagreement, not as a silent zero.
CUPTI gives C++ kernels mangled (`_ZN11onnxruntime4cuda17_UnaryElementWise…`); `demangle` turns them into what
Nsight Systems and DLProf show, through the C++ runtime's own `abi::__cxa_demangle` (libstdc++, which every
onnxruntime wheel loads), leaving a name it cannot read as it was.
Pure: no CUDA needed, unit-tested on names taken from real records.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import re
from collections.abc import Sequence
from typing import Any

# Each pattern names a family of Tensor Core kernels (case-insensitive, searched anywhere in the name).
TENSOR_CORE_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"nvjet_", "cuBLAS nvjet (Hopper/Blackwell GEMM, MMA instructions)"),
    (r"xmma", "cuDNN/cuBLAS xmma (implicit GEMM on MMA)"),
    (r"tensor\d+x\d+x\d+", "CUTLASS/cuDNN tensorMxNxK instruction shape"),
    (r"w?gmma", "Hopper warpgroup MMA (wgmma/gmma)"),
    (r"hmma|imma|dmma|bmma", "warp MMA (DLProf's hmma/imma)"),
    (r"(?<![0-9])(884|1688|16816|16832|161616)(?![0-9])", "MMA instruction shape (DLProf's 884/1688/16816)"),
    (r"_s(?:884|1688|16816)", "cuDNN s884/s1688/s16816 kernels"),
    (r"cutlass.*(?:_tensorop_|tensorop)", "CUTLASS tensorop kernels"),
    (r"fmha|flash_fwd|flash_bwd", "fused attention on MMA (FMHA, FlashAttention)"),
)
_COMPILED = tuple((re.compile(pattern, re.IGNORECASE), why) for pattern, why in TENSOR_CORE_PATTERNS)
# FP32 FMA (SIMT) variants of the same families: `sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_…_ffma_…` ran on the H100
# in FP32 models, named xmma but computing with FFMA, not MMA.
_SIMT = re.compile(r"ffma|simt", re.IGNORECASE)


@functools.cache
def _cxxabi() -> tuple[Any, Any] | None:
    """(__cxa_demangle, free) from the C++ and C runtimes, or None where there is no libstdc++."""
    try:
        cxx = ctypes.CDLL(ctypes.util.find_library("stdc++") or "libstdc++.so.6")
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    demangler = cxx.__cxa_demangle
    demangler.restype = ctypes.c_void_p
    demangler.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    libc.free.argtypes = [ctypes.c_void_p]
    return demangler, libc.free


def demangle(name: str) -> str:
    """The readable form of a mangled C++ kernel name (`_Z…`); any other name, or one that does not demangle,
    unchanged."""
    abi = _cxxabi() if name.startswith("_Z") else None
    if abi is None:
        return name
    demangler, free = abi
    status = ctypes.c_int(-1)
    pointer = demangler(name.encode("utf-8", "replace"), None, None, ctypes.byref(status))
    if not pointer:
        return name
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace") if status.value == 0 else name
    finally:
        free(pointer)


@functools.lru_cache(maxsize=4096)  # a run repeats a few dozen names 100,000 times: the regexes took 5 s of 10
def tensor_core_reason(name: str) -> str | None:
    """Why `name` is a Tensor Core kernel (the family), or None when its name does not say so."""
    if _SIMT.search(name):
        return None
    for pattern, why in _COMPILED:
        if pattern.search(name):
            return why
    return None


def is_tensor_core_kernel(name: str) -> bool:
    return tensor_core_reason(name) is not None


def tensor_core_check(
    kernels: Sequence[tuple[str, float, bool]], gpm_tensor_values: Sequence[float] | None
) -> dict[str, Any]:
    """The name rule against GPM's tensor activity of the same run: `kernels` are (kind, duration_ms, tensor_core),
    `gpm_tensor_values` the `gpm_tensor_activity` samples (%), None when GPM was not sampled.

    They agree when Tensor Core kernels were found and GPM saw tensor activity, or neither did; a disagreement is
    reported with what it likely means, never hidden."""
    tc = [duration for kind, duration, tensor in kernels if kind == "kernel" and tensor]
    result: dict[str, Any] = {
        "tensor_core_kernels": len(tc),
        "tensor_core_ms": sum(tc),
        "gpm_tensor_activity_max": None,
        "agrees": None,
        "note": "",
    }
    if gpm_tensor_values is None or not gpm_tensor_values:
        result["note"] = "GPM tensor activity was not sampled: the Tensor Core column comes from kernel names alone"
        return result
    peak = max(gpm_tensor_values)
    result["gpm_tensor_activity_max"] = peak
    found, active = bool(tc), peak > 0
    result["agrees"] = found == active
    if found and not active:
        result["note"] = (
            "kernel names say Tensor Cores but GPM saw no tensor activity: the kernels may be too short for GPM's "
            "sampling period, or a name rule matches kernels that do not use them"
        )
    elif active and not found:
        result["note"] = (
            "GPM saw tensor activity but no kernel name says Tensor Cores: a library's kernel family is missing from "
            "activities/gpu/tensor_core_names.py"
        )
    return result
