"""`dld doctor`: what this installation can run, and where: ONNX Runtime builds and providers, CUDA, cuDNN and NVML as
found here, every TensorRT with its version (this environment's module, trtexec on PATH, added paths), the Jupyter
side (JupyterLab against the support matrix, the labextension and widget manager, the server extension; one line
when Jupyter is not installed), and every saved remote target with its reachability.

Exit 0 when one ONNX Runtime build is installed; 3 when none is (or both are: they share one folder), with the
extra to install. A target that needs a password or an unknown host key is reported, never asked about.
"""

from __future__ import annotations

import argparse
import ctypes.util
from typing import Any

from dld_jupyter.cli.doctor_jupyter import jupyter_lines
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.formats.terminal_text import echo


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    what = "show runtimes, GPU libraries and remote targets"
    parser = subparsers.add_parser("doctor", help=what, description=__doc__)
    parser.add_argument("--no-targets", action="store_true", help="do not connect to the saved targets")
    parser.add_argument("--add-trt", metavar="PATH", help="add a TensorRT (a folder holding the tensorrt package, a "
                        "trtexec binary or a TensorRT folder) to the installations the export and profile forms list")
    parser.set_defaults(func=_doctor)


def _runtime_lines() -> tuple[list[str], ExitCode]:
    from dld_jupyter.activities.runtimes.onnxruntime.install import installed

    cpu, gpu = installed("onnxruntime"), installed("onnxruntime-gpu")
    lines = [f"onnxruntime (CPU build): {cpu or 'not installed'}", f"onnxruntime-gpu: {gpu or 'not installed'}"]
    if not cpu and not gpu:
        lines.append("no ONNX Runtime: pip install 'dld_jupyter[cpu]' (or 'dld_jupyter[gpu]' on an NVIDIA machine)")
        return lines, ExitCode.UNAVAILABLE
    if cpu and gpu:
        lines.append("both builds are installed and share one folder: keep one (pip uninstall -y onnxruntime)")
        code = ExitCode.UNAVAILABLE
    else:
        code = ExitCode.OK
    try:
        import onnxruntime

        lines.append(f"providers: {', '.join(onnxruntime.get_available_providers())}")
    except Exception as error:  # a broken install: say so, do not stop the report
        lines.append(f"onnxruntime does not import: {error}")
        code = ExitCode.UNAVAILABLE
    return lines, code


def _gpu_lines() -> list[str]:
    lines = [
        f"CUDA runtime: {ctypes.util.find_library('cudart') or 'not found'}",
        f"cuDNN: {ctypes.util.find_library('cudnn') or 'not found'}",
    ]
    try:
        import pynvml

        pynvml.nvmlInit()
        lines.append(f"NVML: driver {pynvml.nvmlSystemGetDriverVersion()}, {pynvml.nvmlDeviceGetCount()} GPU(s)")
        pynvml.nvmlShutdown()
    except Exception as error:
        lines.append(f"NVML: not available ({type(error).__name__}: {error})")
    return lines


def _tensorrt_lines(add: str | None) -> list[str]:
    from dld_jupyter.activities.runtimes.tensorrt.installs import InstallStore, find_installs

    store = InstallStore()
    if add:
        store.add(add)  # SpecError (exit 2) saying why a path is no TensorRT
    installs = find_installs(store)
    if not installs:
        return ["TensorRT: none found (pip install tensorrt, trtexec on PATH, or dld doctor --add-trt PATH)"]
    return ["TensorRT:", *(f"  {install.label}" for install in installs)]


def _target_lines() -> list[str]:
    from dld_jupyter.activities.errors import ActivityError
    from dld_jupyter.activities.targets.connections import ConnectionStore, Secrets
    from dld_jupyter.activities.targets.host_keys import HostKeyPolicy
    from dld_jupyter.activities.targets.ssh import SshTarget

    def no_questions(question: str) -> Any:
        raise ActivityError(f"needs an answer ({question.strip()}); run dld targets check NAME in a terminal")

    connections = ConnectionStore().load()
    lines = [f"targets: {len(connections)} saved"]
    for name, connection in sorted(connections.items()):
        try:
            target = SshTarget(connection, HostKeyPolicy(), Secrets(no_questions))
            info = target.check()
            state = "deployed" if info.deployed else "reachable, not deployed"
            lines.append(f"  {name}: {state} (python {'.'.join(map(str, info.python))}, {info.requirements[-1]})")
            if info.deployed:  # its TensorRT, found in the deployment (never deployed just to say)
                from dld_jupyter.activities.runtimes.tensorrt.installs import InstallStore
                from dld_jupyter.activities.runtimes.tensorrt.target_installs import target_installs

                found = target_installs(target, InstallStore(target=name).paths())
                lines += [f"    {i.label}" for i in found] or ["    TensorRT: none found"]
        except (ActivityError, OSError) as error:
            lines.append(f"  {name}: unreachable: {error}")
    return lines


def _doctor(args: argparse.Namespace) -> int:
    lines, code = _runtime_lines()
    lines += _gpu_lines()
    lines += _tensorrt_lines(args.add_trt)
    lines += jupyter_lines()
    if not args.no_targets:
        try:
            lines += _target_lines()
        except ImportError as error:
            lines.append(f"targets: remote targets need asyncssh ({error}): pip install 'dld_jupyter[remote]'")
    echo("\n".join(lines))
    return int(code)
