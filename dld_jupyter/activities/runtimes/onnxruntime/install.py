"""Why the CUDA execution provider is missing, in words that name the real cause and the commands that fix it.

`onnxruntime` (CPU) and `onnxruntime-gpu` install into the same `onnxruntime/` folder. pip cannot express
"one or the other", so with both installed the build whose files were written last wins, silently: a GPU server
then offered only the CPU provider while `--provider cuda` said "install onnxruntime-gpu", which was installed.
"""

from __future__ import annotations

from importlib import metadata

SWITCH_TO_GPU = "pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime-gpu"


def installed(distribution: str) -> str | None:
    """The installed version of `distribution`, or None."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def cuda_missing_reason(version: str, available: list[str]) -> str:
    """The message for a CUDA run on an onnxruntime without the CUDA provider."""
    cpu, gpu = installed("onnxruntime"), installed("onnxruntime-gpu")
    head = f"CUDAExecutionProvider is not available in onnxruntime {version} (available: {available})"
    if cpu and gpu:
        return (
            f"{head}: both onnxruntime {cpu} (CPU) and onnxruntime-gpu {gpu} are installed; they share one "
            f"folder and the CPU build's files won. Keep only the GPU build: {SWITCH_TO_GPU}"
        )
    if gpu:
        return (
            f"{head}: onnxruntime-gpu {gpu} is installed but its CUDA provider did not load; check that the CUDA "
            "and cuDNN libraries it was built for are on the library path (pip install 'onnxruntime-gpu[cuda,cudnn]' "
            "installs them), and that an NVIDIA driver is present (nvidia-smi)"
        )
    return f"{head}: this is the CPU build of onnxruntime. For CUDA: {SWITCH_TO_GPU}"
