"""`dld sanitize MODEL -o OUT`: Sanitize Graph through Polygraphy (transforms.sanitize).

Folds constants (Polygraphy's FoldConstants, pass by pass until nothing folds, or --passes N; --no-fold turns it
off; --fold-size-threshold BYTES keeps larger tensors computed at run time), removes unused nodes and sorts the
graph, writes OUT, and checks that both models give the same outputs (within 1e-5) on random inputs.
Exit 0 when written, 1 when it failed or its result fails the full checker or onnxruntime's load (refused: nothing
is written), 2 for bad input, 3 when Polygraphy is missing.
"""

from __future__ import annotations

import argparse
from typing import Any

from dld_jupyter.cli.batch_run import comparison_failure, progress_to_stderr, run_batch
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.verbs import add_verb

UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def size(text: str) -> int:
    """Bytes, with an optional K/M/G suffix as Polygraphy accepts (16M = 16777216)."""
    text = text.strip().upper()
    factor = UNITS.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in UNITS else text
    if not digits.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a size in bytes (e.g. 1024, 64K, 16M)")
    return int(digits) * factor


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "sanitize", __doc__, "fold constants and remove unused nodes (Polygraphy)", func=run)
    parser.add_argument("model", help="path of the .onnx file")
    parser.add_argument("-o", "--output", required=True, help="path of the sanitized model to write")
    parser.add_argument("--no-fold", action="store_true", help="no constant folding (cleanup and sort only)")
    parser.add_argument(
        "--fold-size-threshold",
        type=size,
        default=None,
        metavar="BYTES",
        help="do not fold nodes producing tensors larger than this (K/M/G suffixes)",
    )
    parser.add_argument("--passes", type=int, default=None, help="folding passes (default: until nothing folds)")
    parser.add_argument("--no-compare", action="store_true", help="skip the onnxruntime output comparison")
    parser.add_argument("--json", action="store_true", help="print the status as JSON")
    declare_files(parser, models=["model"], outputs={"--output": "output (-o)"})


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.transforms.sanitize import sanitize

    def work() -> Any:
        return sanitize(
            args.model,
            args.output,
            fold=not args.no_fold,
            size_threshold=args.fold_size_threshold,
            passes=args.passes,
            compare=not args.no_compare,
            progress=progress_to_stderr("sanitize"),
        )

    return run_batch("sanitize", args.json, work, comparison_failure)
