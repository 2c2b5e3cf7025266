"""`dld convert-fp16 MODEL -o OUT`: Convert Model to FP16 through Polygraphy (transforms.fp16).

Writes the float16 model to OUT (float32 inputs and outputs kept, Cast nodes where the converter keeps float32),
then runs both models on the same random inputs with onnxruntime and reports the largest absolute and relative
difference per output (--no-compare skips it). Exit 0 when written, 1 when the conversion failed or its result
fails the full checker or onnxruntime's load (refused: nothing is written), 2 for bad input, 3 when Polygraphy or
onnxconverter-common is missing.
"""

from __future__ import annotations

import argparse
from typing import Any

from dld_jupyter.cli.batch_run import comparison_failure, progress_to_stderr, run_batch
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.verbs import add_verb


def register(subparsers: Any) -> None:
    parser = add_verb(
        subparsers, "convert-fp16", __doc__, "convert a model's float tensors to float16 (Polygraphy)", func=run
    )
    parser.add_argument("model", help="path of the .onnx file")
    parser.add_argument("-o", "--output", required=True, help="path of the float16 model to write")
    parser.add_argument("--no-compare", action="store_true", help="skip the onnxruntime output comparison")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random comparison inputs")
    parser.add_argument("--json", action="store_true", help="print the status as JSON")
    declare_files(parser, models=["model"], outputs={"--output": "output (-o)"})


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.transforms.fp16 import convert_to_fp16

    def work() -> Any:
        return convert_to_fp16(
            args.model, args.output, not args.no_compare, args.seed, progress_to_stderr("convert-fp16")
        )

    return run_batch("convert-fp16", args.json, work, comparison_failure)
