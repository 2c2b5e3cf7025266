"""The protobuf a Polygraphy-backed transform starts from: a document's model, or a file, with every weight in memory.

Polygraphy and onnxconverter-common read tensor bytes from the protobuf, so external data is loaded here (from the
document's folder) rather than passed on as references they would skip or misread.
"""

from __future__ import annotations

import os
import pathlib

import onnx
import onnx.external_data_helper
import onnx_ir as ir

from dld_jupyter.document import Document
from dld_jupyter.document.proto_tensors import all_tensors


def model_proto(doc: Document) -> onnx.ModelProto:
    """The document's model as a protobuf with external tensors read into memory."""
    proto = ir.to_proto(doc.model)
    if doc.path is not None and any(
        t.data_location == onnx.TensorProto.EXTERNAL for t in all_tensors(proto)
    ):
        onnx.external_data_helper.load_external_data_for_model(proto, str(doc.path.parent))
    return proto


def open_document(model: Document | str | os.PathLike[str]) -> Document:
    """`model` itself when it is a Document, else the file opened (DocumentError when it cannot be)."""
    return model if isinstance(model, Document) else Document.open(pathlib.Path(model))
