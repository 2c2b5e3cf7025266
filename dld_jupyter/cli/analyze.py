"""`dld analyze MODEL [--inputs FILE.npz] [--break NODE]... [--dump DIR] [--target NAME|ssh://...]`: the analysis
debugger from a shell (seed 001 §4, issue 37). It runs the model to each breakpoint in turn, in execution order,
then to the end, printing each stop (node name, op type, index in execution order); with --dump DIR it writes the
outputs of each stopped node, and the model's outputs at the end, as .npy files into DIR (one per value; the file
name is the value name with characters other than letters, digits, '.', '_' and '-' replaced by '_', and every
file is listed with its value name as it is written).

Breakpoints are ONNX node names, as the designer and `dld_jupyter.analyse` speak them (`#<index>` for a node without
a unique name); an unknown name is bad input (exit 2) and nothing runs. Inputs are `dld run`'s (--input NAME=FILE,
--inputs FILE.npz, random for those not given: --seed). The analysis is the one every front door runs (the
activity worker, ONNX Runtime with graph optimizations off), here or on a remote target (--target, as `dld
profile`). Exit 0 done, 1 the run failed, 2 bad input, 3 the provider or the target is not available.
"""

from __future__ import annotations

import argparse
import difflib
import io
import re
from pathlib import Path
from typing import Any

import numpy as np

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.run import add_input_options, analysis_arguments
from dld_jupyter.cli.targets import add_target_options
from dld_jupyter.cli.verbs import add_verb
from dld_jupyter.formats.terminal_text import echo

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "analyze", __doc__, func=analyze,
                      help="run a model to each breakpoint, print the stops, dump values (.npy)")
    add_input_options(parser)
    # one name per --break (repeated for several): a list option would swallow a MODEL written after it
    parser.add_argument("--break", dest="breaks", action="append", default=[], metavar="NODE",
                        help="stop at this node (its ONNX name); repeat the option for several stops")
    parser.add_argument("--dump", metavar="DIR",
                        help="folder the .npy files are written into: each stop's node outputs, the model outputs")
    add_target_options(parser)
    declare_files(parser, folders=["--dump"])


def file_name(value: str, taken: set[str]) -> str:
    """A file name in the dump folder for the value `value`: its safe characters, made unique among `taken`."""
    stem = _UNSAFE.sub("_", value).strip("._") or "value"
    name, count = f"{stem}.npy", 1
    while name in taken:
        count += 1
        name = f"{stem}-{count}.npy"
    taken.add(name)
    return name


class Dump:
    """The .npy files of one run, written into `folder` (None: nothing written); a value is written once."""

    def __init__(self, folder: str | None) -> None:
        self.folder = Path(folder) if folder else None
        self.files: dict[str, str] = {}  # value name -> file name

    def write(self, value: str, array: np.ndarray[Any, Any]) -> None:
        from dld_jupyter.formats.atomic_write import atomic_write_bytes

        shown = f"{list(array.shape)} {array.dtype}"
        if self.folder is None:
            echo(f"  {value}\t{shown}")
            return
        if not self.files:
            self.folder.mkdir(parents=True, exist_ok=True)  # on the first value: a refused run makes no folder
        if value not in self.files:
            self.files[value] = file_name(value, set(self.files.values()))
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        atomic_write_bytes(str(self.folder / self.files[value]), buffer.getvalue())
        echo(f"  {value}\t{shown}\t-> {self.folder / self.files[value]}")


def unknown_breaks(breaks: list[str], names: list[str], model: str) -> str | None:
    """The message for --break names no node of `model` has (None when all are known)."""
    unknown = [name for name in breaks if name not in names]
    if not unknown:
        return None
    said = []
    for name in unknown:
        close = difflib.get_close_matches(name, names, n=3)
        said.append(f"{name!r}" + (f" (did you mean {', '.join(map(repr, close))}?)" if close else ""))
    return (f"--break {', '.join(said)}: no node of {model} has that name. Give ONNX node names as the designer's "
            f"Layer Explorer lists them (`#<index>` for a node without a unique name); the model's first nodes in "
            f"execution order: {', '.join(names[:5])}")


def analyze(args: argparse.Namespace) -> int:
    import onnx

    from dld_jupyter.activities.errors import SpecError
    from dld_jupyter.cli.targets import target_from_args
    from dld_jupyter.frontdoor.analysis import analyse

    target = target_from_args(args) if args.target else None
    dump = Dump(args.dump)
    graph = onnx.load(args.model, load_external_data=False).graph
    with analyse(**analysis_arguments(args), target=target) as analysis:
        refused = unknown_breaks(list(args.breaks), analysis.execution_order, args.model)
        if refused is not None:
            raise SpecError(refused)
        for name in args.breaks:
            analysis.add_breakpoint(name)
        stop, stops = analysis.run(), 0
        while stop is not None:
            stops += 1
            echo(f"stop {stops}: {stop}")
            node = graph.node[analysis.order[stop.index]]
            for value in (name for name in node.output if name):
                dump.write(value, analysis.tensor(value))
            stop = analysis.resume()
        outputs = analysis.outputs()
        echo(f"end: ran to the end, {len(outputs)} model output(s)")
        for value, array in outputs.items():
            dump.write(value, array)
    where = f"; {len(dump.files)} .npy file(s) in {dump.folder}" if dump.folder is not None else ""
    ran = f" on {target.name}" if target is not None else ""
    echo(f"dld analyze: {stops} stop(s){ran}{where}", err=True)
    return int(ExitCode.OK)
