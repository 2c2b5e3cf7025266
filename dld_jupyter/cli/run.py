"""`dld run MODEL --input NAME=FILE ... [--dump VALUE ...] -o OUT.npz`: run a model once on real inputs and save
its outputs, and any inner values asked for, in one .npz (keys: the ONNX value names).

Inputs are what the Model Inputs window takes: an image (.png, .jpg…, resized and normalized by the input's default
preset: ImageNet mean/std for 3-channel float inputs), an .npy (dtype and shape checked), `random` or `zeros`;
inputs not given are random (--seed); --inputs FILE.npz gives them all at once (an analysis's inputs, as the runs
list's command line of an analysis names them). It runs as an analysis (the activity worker, ONNX Runtime with graph
optimizations off) so a dumped value (--dump VALUE, a value name or a node name for its first output) is computed
by a prefix of the model and never by marking every tensor as an output. OUT.npz must not replace the model or an
input. Exit 0 done, 1 the run failed, 2 bad input, 3 the provider (or Pillow for images) is not installed.
"""

from __future__ import annotations

import argparse
import io
from typing import Any

import numpy as np

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files, require_folder
from dld_jupyter.cli.verbs import add_verb, unique_names
from dld_jupyter.formats.terminal_text import echo


def _input(text: str) -> tuple[str, str]:
    name, sep, source = text.partition("=")
    if not sep or not name or not source:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=FILE (an image, a .npy, random or zeros)")
    return name, source


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "run", __doc__, func=run, help="run a model on real inputs, save outputs (.npz)")
    add_input_options(parser)
    parser.add_argument("--dump", action="append", default=[], metavar="VALUE",
                        help="also save this inner value (or a node's first output); repeat per value")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.npz", help="where the .npz goes")
    declare_files(parser, outputs=["--output"])


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """The model and what an analysis runs on, as `dld run` and `dld analyze` take them (`analysis_arguments`
    reads them back): --input NAME=FILE, --inputs FILE.npz, --provider, --seed, --device, --threads."""
    parser.add_argument("model", help="path of the .onnx file")
    parser.add_argument("--input", action="append", type=_input, default=[], metavar="NAME=FILE",
                        help="an input: image, .npy, random or zeros; repeat per input")
    parser.add_argument("--inputs", metavar="FILE.npz",
                        help="every input from one .npz (keys: input names), as an analysis holds them; "
                             "--input NAME=FILE given too replaces that one")
    parser.add_argument("--provider", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--seed", type=int, default=0, help="seed of random inputs")
    parser.add_argument("--device", type=int, default=0, help="GPU index for the CUDA provider (default 0)")
    parser.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (default 0: it decides)")
    declare_files(parser, models=["model"], inputs=["--input", "--inputs"])


def analysis_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """What `dld run` starts its analysis with (`frontdoor.analysis.analyse`'s arguments): the model, the inputs
    (the .npz's arrays, then each --input), the provider and options."""
    from dld_jupyter.activities.errors import SpecError

    inputs: dict[str, Any] = {}
    if args.inputs:
        try:
            with np.load(args.inputs, allow_pickle=False) as saved:
                inputs = {name: saved[name] for name in saved.files}
        except (OSError, ValueError) as error:
            raise SpecError(f"--inputs {args.inputs}: not a readable .npz file ({error})") from error
    inputs.update(unique_names(args.input, "--input"))
    return {"model": args.model, "inputs": inputs, "provider": args.provider, "seed": args.seed,
            "device": args.device, "threads": args.threads}


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.activities.errors import SpecError
    from dld_jupyter.formats.atomic_write import atomic_write_bytes
    from dld_jupyter.frontdoor.analysis import analyse

    if not args.output.endswith(".npz"):
        raise SpecError(f"--output {args.output}: give a path ending in .npz")
    require_folder(args.output, "--output")  # before the run, not after it
    with analyse(**analysis_arguments(args)) as analysis:
        analysis.run()  # no breakpoints: to the end, so every value can be dumped
        saved: dict[str, np.ndarray[Any, Any]] = dict(analysis.outputs())
        for value in args.dump:
            name = str(analysis.summary(value)["name"])
            saved[name] = analysis.tensor(value)
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **saved)  # named so that ** fills only the arrays; np.load refuses pickles
    atomic_write_bytes(args.output, buffer.getvalue())
    for name, array in saved.items():
        echo(f"{name}\t{array.dtype}\t{list(array.shape)}")
    echo(f"dld run: {len(saved)} value(s) written to {args.output}", err=True)
    return int(ExitCode.OK)
