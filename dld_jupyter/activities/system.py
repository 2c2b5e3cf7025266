"""The report's system section: host, OS, CPU, Python and library versions (the GPU part comes from gpu.nvml)."""

from __future__ import annotations

import os
import platform
import socket
from importlib import metadata
from typing import Any


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as stream:
            for line in stream:
                if line.lower().startswith(("model name", "hardware")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def system_info() -> dict[str, Any]:
    libraries = {
        name: _version(name) for name in ("numpy", "onnx", "onnxruntime", "onnxruntime-gpu", "nvidia-ml-py", "tensorrt")
    }
    return {
        "host": socket.gethostname(),
        "os": platform.platform(),
        "cpu": cpu_model(),
        "cpu_cores": os.cpu_count() or 0,
        "python": platform.python_version(),
        "libraries": {name: version for name, version in libraries.items() if version},
        # the remote target's name, as the SSH target's launcher sets it (a local run has none)
        **({"target": os.environ["DLD_TARGET"]} if os.environ.get("DLD_TARGET") else {}),
    }
