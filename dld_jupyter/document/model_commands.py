"""Model-level edits beyond set_model_info: the IR version (run through ``Document.edit``, one undo step)."""

from __future__ import annotations

from dataclasses import dataclass

import onnx

from .commands import Command, Context
from .errors import DocumentError
from .graph_edits import Do

MIN_IR_VERSION = 3  # the first IR version with opset imports


@dataclass(frozen=True)
class SetIrVersion:
    version: int

    def apply(self, ctx: Context) -> Command:
        old = ctx.model.ir_version
        ctx.model.ir_version = self.version
        ctx.changes.model_info = True
        return SetIrVersion(old)


def set_ir_version(ctx: Context, do: Do, version: int) -> None:
    """Set the model's IR version (3 .. the installed onnx's newest)."""
    newest = onnx.IR_VERSION
    if not isinstance(version, int) or isinstance(version, bool) or not MIN_IR_VERSION <= version <= newest:
        raise DocumentError(
            "Set IR version", f"{version!r} is not in {MIN_IR_VERSION}..{newest}.", f"Pick {MIN_IR_VERSION}..{newest}."
        )
    if version != ctx.model.ir_version:
        do(SetIrVersion(version))
