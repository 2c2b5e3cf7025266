"""The protobuf a Polygraphy-backed transform starts from: a document's model, or a file, with every weight in memory.

Polygraphy and onnxconverter-common read tensor bytes from the protobuf, so external data is loaded here rather than
passed on as references they would skip or misread; each tensor from the folder its own model was read from
(document/files/self_contained.py), never from the document's current folder, which "Save As" changes (issue 31).
"""

from __future__ import annotations

import os
import pathlib

import onnx

from dld_jupyter.document import Document
from dld_jupyter.document.files.self_contained import self_contained_proto


def model_proto(doc: Document) -> onnx.ModelProto:
    """The document's model as a protobuf with external tensors read into memory, each from its own file."""
    return self_contained_proto(doc.model)


def open_document(model: Document | str | os.PathLike[str]) -> Document:
    """`model` itself when it is a Document, else the file opened (DocumentError when it cannot be)."""
    return model if isinstance(model, Document) else Document.open(pathlib.Path(model))
