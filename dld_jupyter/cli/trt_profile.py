"""The TensorRT half of `dld profile` / `dld-prof` (`--backend tensorrt`): its extra options (the TensorRT settings,
Profiler Settings) and the `TrtProfileSpec` built from the parsed arguments. ONNX Runtime-only options given
with `--backend tensorrt` are refused rather than silently ignored.
"""

from __future__ import annotations

import argparse

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds.profile import profile_spec
from dld_jupyter.activities.runtimes.tensorrt.settings import ProfilerSettings
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.trt_options import add_trt_options, settings_from_args

# ONNX Runtime options and the value that means "not given"
_ORT_ONLY = {"provider": "cpu", "optimize": True, "threads": 0, "input_folder": None, "random_inputs": None}


def add_tensorrt_profile_options(parser: argparse.ArgumentParser) -> None:
    add_trt_options(parser, with_device=False)  # --device is shared with ONNX Runtime
    group = parser.add_argument_group("TensorRT profiler settings")
    group.add_argument(
        "--hide-non-compute",
        action="store_true",
        help="leave host<->device copies out of the measured passes (both backends; without it a GPU run's copies "
        "are timed and shown as their own rows)",
    )
    group.add_argument("--prebuilt-engine", metavar="ENGINE", help="profile this engine instead of building one")
    declare_files(parser, inputs=["--prebuilt-engine"])


def trt_profile_spec(args: argparse.Namespace) -> ActivitySpec:
    given = [f"--{name.replace('_', '-')}" for name, unset in _ORT_ONLY.items() if getattr(args, name) != unset]
    if given:
        raise SpecError(f"{', '.join(given)}: ONNX Runtime options; they do not apply to --backend tensorrt")
    profiler = ProfilerSettings(
        iterations=args.iterations,
        warmup=args.warmup,
        sampling_ms=args.sampling_ms,
        gpu_metrics=args.gpu_metrics,
        lock_clocks=args.lock_clocks,
        hide_non_compute=args.hide_non_compute,
        prebuilt_engine=args.prebuilt_engine,
        seed=args.seed,
    )
    settings = settings_from_args(args)
    return profile_spec(args.model, "tensorrt", output=args.output, settings=settings, profiler=profiler)
