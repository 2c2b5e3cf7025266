"""`dld extract-subgraph MODEL --slot NODE:ATTRIBUTE [--slot ...] [-o OUT]`: Extract Model Subgraph.

Writes one subgraph (a Loop/Scan body, an If branch, an entry of a subgraph list) as a standalone model: the
values it reads from the graphs around it become typed inputs; the result passes the full onnx.checker.
NODE is the node's name (or its designer id, `n12`); ATTRIBUTE the subgraph attribute, with `[i]` for an entry of
a list (`cases[1]`). Repeat --slot to go deeper: `--slot /Loop:body --slot /If:then_branch` is the then branch of
the If inside the Loop's body. OUT defaults to `<model>_<attribute>.onnx` beside MODEL.
Prints the written path; exit 0 when written, 2 for bad input (unreadable model, no such node or subgraph).
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.verbs import add_verb
from dld_jupyter.formats.terminal_text import echo

_SLOT = re.compile(r"(?P<node>.+):(?P<attribute>[A-Za-z_][A-Za-z0-9_]*)(?:\[(?P<index>\d+)\])?")


def slot(text: str) -> tuple[str, str, int | None]:
    found = _SLOT.fullmatch(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not NODE:ATTRIBUTE or NODE:ATTRIBUTE[INDEX] (e.g. /Loop:body)")
    index = found.group("index")
    return found.group("node"), found.group("attribute"), None if index is None else int(index)


def register(subparsers: Any) -> None:
    parser = add_verb(
        subparsers, "extract-subgraph", __doc__, "write a Loop/If/Scan subgraph as a standalone model", func=run
    )
    parser.add_argument("model", help="path of the .onnx file")
    parser.add_argument(
        "--slot", type=slot, action="append", required=True, metavar="NODE:ATTRIBUTE", help="the subgraph (repeat)"
    )
    parser.add_argument("-o", "--output", default=None, help="path of the model to write")
    declare_files(parser, models=["model"], outputs={"--output": "output (-o)"})


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.document import Document, DocumentError
    from dld_jupyter.transforms import extract_model_subgraph

    doc: Any = Document.open(args.model)
    slots: list[tuple[str, str, int | None]] = args.slot
    for depth, (node, attribute, index) in enumerate(slots):
        ids = [n.id for n in doc.nodes() if n.kind == "op" and (n.name == node or n.id == node)]
        if len(ids) != 1:
            where = doc.title if depth else doc.name
            why = f"{'no' if not ids else len(ids)} operator nodes are named {node!r} in {where}."
            raise DocumentError("Extract Model Subgraph", why, "Pass a node name shown by the designer, or its id.")
        if depth == len(slots) - 1:
            echo(extract_model_subgraph(doc, ids[0], attribute, index, args.output))
            return 0
        doc = doc.subgraphs.open(ids[0], attribute, index)
    return 0
