"""`dld convert-tensors MODEL -o OUT --to DTYPE`: Convert Tensors on the command line (transforms.tensor_conversion).

Selects the initializers whose name matches --initializers REGEX and the tensor/list attributes whose node name,
op type or attribute name matches --attributes REGEX (at least one of the two; '.' selects all), optionally only
those of type --from DTYPE; bool, string and complex tensors are never selected. Converts them to --to DTYPE
with the tensor editor's saturating conversion, prints its precision-loss and overflow warnings, and writes OUT.
A tensor whose new type a reader does not allow (its schema's type constraints) is not converted, and the error
names the node and the allowed types; a result that fails the full checker or onnxruntime's load is refused.
Exit 0 when every selected tensor converted, 1 when some could not (OUT still holds the others) or the result was
refused (nothing written), 2 for bad input.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from dld_jupyter.cli.batch_run import progress_to_stderr, run_batch, verdict_failure
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.verbs import add_verb


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "convert-tensors", __doc__, func=run,
                      help="convert selected initializers and node attributes to one data type")
    parser.add_argument("model", help="path of the .onnx file")
    parser.add_argument("-o", "--output", required=True, help="path of the converted model to write")
    parser.add_argument("--to", required=True, metavar="DTYPE", help="target type: float16, float, int32, ...")
    parser.add_argument("--initializers", metavar="REGEX", help="initializers whose name matches")
    parser.add_argument("--attributes", metavar="REGEX", help="attributes whose node, op type or name matches")
    parser.add_argument("--from", dest="source", metavar="DTYPE", help="only tensors of this type")
    parser.add_argument("--json", action="store_true", help="print the status as JSON")
    declare_files(parser, models=["model"], outputs={"--output": "output (-o)"})


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.document import Document
    from dld_jupyter.transforms.batch_errors import BadOption
    from dld_jupyter.transforms.tensor_candidates import list_attributes, list_initializers
    from dld_jupyter.transforms.tensor_conversion import convert_tensors

    def work() -> Any:
        if args.initializers is None and args.attributes is None:
            raise BadOption(
                "Convert tensors", "nothing is selected.", "Give --initializers REGEX and/or --attributes REGEX."
            )
        doc = Document.open(args.model)
        initializers = (
            [c.value_id for c in list_initializers(doc, args.initializers, args.source) if c.convertible or c.external]
            if args.initializers is not None
            else []
        )
        attributes = (
            [(r.node_id, r.attribute) for r in list_attributes(doc, args.attributes, args.source) if r.convertible]
            if args.attributes is not None
            else []
        )
        result = convert_tensors(doc, args.to, initializers, attributes, progress_to_stderr("convert-tensors"))
        output = Path(args.output).resolve()
        doc.save_copy(output)
        return replace(result, output=output)

    def failed(result: Any) -> str | None:
        errors = len(result.errors)
        return f"{errors} tensor(s) could not be converted (see the log)" if errors else verdict_failure(result)

    return run_batch("convert-tensors", args.json, work, failed)
