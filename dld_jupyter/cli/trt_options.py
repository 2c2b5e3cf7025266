"""Command-line options of the TensorRT settings (seed Common / Tactics / Optimizer pages), shared by
`dld export-engine`, `dld profile --backend tensorrt` and `dld-prof --backend tensorrt`, and the dry run they share.
"""

from __future__ import annotations

import argparse
import json

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.tensorrt.installs import TrtInstall
from dld_jupyter.activities.runtimes.tensorrt.settings import REFIT_MODES, TYPING_MODES, TrtSettings
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.formats.terminal_text import echo


def add_trt_options(parser: argparse.ArgumentParser, *, with_device: bool = True) -> None:
    group = parser.add_argument_group("TensorRT (Common, Tactics and Optimizer settings)")
    group.add_argument(
        "--trt-source",
        default="python",
        choices=["python", "path", "trtexec"],
        help="TensorRT to use: this Python environment's (default), an installation folder given by "
        "--trt-path, or a trtexec binary given by --trt-path",
    )
    group.add_argument("--trt-path", help="the folder holding the tensorrt package, or the trtexec binary")
    group.add_argument(
        "--trt",
        metavar="VERSION|PATH",
        help="the TensorRT to use, as `dld doctor` lists them: a version found here (10.6) or a path (a folder "
        "holding the tensorrt package, a trtexec binary, a TensorRT folder); with --target, found or checked "
        "there (relative paths: from its deployment folder); sets --trt-source and --trt-path",
    )
    group.add_argument(
        "--save-metadata",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="DETAILED layer information in the engine (default on)",
    )
    if with_device:
        group.add_argument("--device", type=int, default=0, help="CUDA device index (default 0)")
    group.add_argument("--plugin", action="append", default=[], metavar="LIB", help="custom plugin library (repeat)")
    group.add_argument(
        "--typing",
        default="default",
        choices=list(TYPING_MODES),
        help="typing mode: TensorRT defaults, strongly typed, obey or prefer precision constraints",
    )
    group.add_argument("--tf32", action=argparse.BooleanOptionalAction, default=True, help="TF32 tactics (default on)")
    for name in ("fp16", "bf16", "int8", "fp8"):
        group.add_argument(f"--{name}", action="store_true", help=f"allow {name.upper()} tactics")
    group.add_argument("--sparsity", action="store_true", help="examine weights for sparsity")
    group.add_argument("--cudnn-cublas", action="store_true", help="allow cuDNN and cuBLAS tactics")
    group.add_argument(
        "--native-instancenorm",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="TensorRT's own InstanceNorm (default on; off: the cuDNN plugin)",
    )
    group.add_argument("--optimization-level", type=int, default=3, help="builder optimization level 0..5 (3)")
    group.add_argument("--max-aux-streams", type=int, help="maximum worker streams (default: TensorRT decides)")
    group.add_argument("--hardware-compatible", action="store_true", help="engine for Ampere and newer GPUs")
    group.add_argument("--workspace-mib", type=int, help="workspace memory pool limit in MiB (default: no limit)")
    group.add_argument("--calibration-cache", metavar="FILE", help="INT8 calibration cache")
    declare_files(parser, inputs=["--plugin", "--calibration-cache"])
    group.add_argument(
        "--refit",
        default="none",
        choices=list(REFIT_MODES),
        help="weights refitting: none, refit (weights included) or strip (weights stripped)",
    )
    group.add_argument("--version-compatible", action="store_true", help="engine usable by later TensorRT versions")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the resolved settings and the equivalent trtexec command line; run nothing",
    )


def settings_from_args(args: argparse.Namespace) -> TrtSettings:
    source, path = args.trt_source, args.trt_path
    if args.trt:
        chosen = _chosen_install(args)
        source, path = chosen.source, chosen.path
    return TrtSettings(
        tensorrt=source,
        tensorrt_path=path,
        save_metadata=args.save_metadata,
        device=args.device,
        plugins=tuple(args.plugin),
        typing=args.typing,
        tf32=args.tf32,
        fp16=args.fp16,
        bf16=args.bf16,
        int8=args.int8,
        fp8=args.fp8,
        sparsity=args.sparsity,
        cudnn_cublas=args.cudnn_cublas,
        native_instancenorm=args.native_instancenorm,
        optimization_level=args.optimization_level,
        max_aux_streams=args.max_aux_streams,
        batch_size=getattr(args, "batch_size", None),
        hardware_compatible=args.hardware_compatible,
        workspace_mib=args.workspace_mib,
        calibration_cache=args.calibration_cache,
        refit=args.refit,
        version_compatible=args.version_compatible,
    )


def _chosen_install(args: argparse.Namespace) -> TrtInstall:
    """The install `--trt` names: found here, or with `--target` on that target (its versions, its paths)."""
    from dld_jupyter.activities.runtimes.tensorrt.installs import choose, find_installs

    if getattr(args, "target", None):
        from dld_jupyter.activities.targets.local import LocalTarget
        from dld_jupyter.cli.targets import target_from_args

        target = target_from_args(args)
        if not isinstance(target, LocalTarget):  # asyncssh is imported only for a remote target
            from dld_jupyter.activities.runtimes.tensorrt.target_installs import choose_on_target
            from dld_jupyter.activities.targets.ssh import SshTarget

            if isinstance(target, SshTarget):
                return choose_on_target(target, args.trt)
    return choose(args.trt, find_installs())


def print_dry_run(spec: object, as_json: bool, prog: str) -> int:
    """Print what the TensorRT activity `spec` would do; exit 2 with the reason on bad input."""
    from dld_jupyter.activities.runtimes.tensorrt.dry_run import dry_run
    from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec, TrtProfileSpec

    try:
        if not isinstance(spec, (TrtBuildSpec, TrtProfileSpec)):
            raise SpecError("--dry-run shows what a TensorRT run would do; add --backend tensorrt")
        data = dry_run(spec)
    except SpecError as error:
        if as_json:
            echo(json.dumps({"status": "failed", "error": str(error), "error_kind": "bad_input", "exit_code": 2}))
        else:
            echo(f"{prog}: {error}", err=True)
        return int(ExitCode.BAD_INPUT)
    if as_json:
        echo(json.dumps(data, indent=2))
        return int(ExitCode.OK)
    settings = data["spec"]["settings"]
    echo(f"{data['kind']}: {data['spec']['model']}")
    for key in sorted(settings):
        echo(f"  {key:<22} {settings[key]}")
    for key, value in data["model"].items():
        echo(f"  model {key:<16} {value}")
    echo(f"  timing cache           {data['timing_cache']}")
    echo("\nEquivalent trtexec command:\n  " + data["trtexec"]["command"])
    for note in data["trtexec"]["notes"]:
        echo(f"  note: {note}")
    return int(ExitCode.OK)
