"""An ONNX file read one initializer at a time: its graph without weights, the weights moved into one external file.

Why: `onnx.load` of a model with embedded weights holds the file's bytes and the parsed protobuf at once, twice the
weights (a BERT-base export: 874 MB peak RSS before the analysis had run anything, over its budget of weights + 2 x
activations + 300 MB). Here the protobuf wire format is walked field by field: every field but the graph's
initializers is copied as it is (small), each initializer is parsed alone, its data appended to `weights.bin` at a
4 KiB-aligned offset (so ONNX Runtime can map it) and replaced by an external-data reference; initializers that are
already external are copied from their own file in 64 MB chunks. Without a weights file, the data is dropped: the
skeleton that `inputs.model_input_specs` reads in bounded memory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

import onnx
from onnx import numpy_helper

from dld_jupyter.activities.errors import SpecError

MODEL_GRAPH = 7  # ModelProto.graph
GRAPH_INITIALIZER = 5  # GraphProto.initializer
ALIGN = 4096
CHUNK = 64 << 20
INLINE_BYTES = 1024  # smaller tensors stay in the graph


def _varint(f: BinaryIO) -> int:
    shift = result = 0
    while True:
        byte = f.read(1)
        if not byte:
            raise SpecError(f"{getattr(f, 'name', 'model')}: truncated ONNX file (a field runs past its end)")
        result |= (byte[0] & 0x7F) << shift
        if byte[0] < 0x80:
            return result
        shift += 7


def _fields(f: BinaryIO, end: int) -> list[tuple[int, int, int, int]]:
    """(field number, wire type, field start, payload start) of each field until `end`; f ends at `end`."""
    found = []
    while f.tell() < end:
        start = f.tell()
        key = _varint(f)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _varint(f)
            payload = f.tell()
        elif wire == 1:
            payload = f.tell()
            f.seek(8, os.SEEK_CUR)
        elif wire == 2:
            length = _varint(f)
            payload = f.tell()
            f.seek(length, os.SEEK_CUR)
        elif wire == 5:
            payload = f.tell()
            f.seek(4, os.SEEK_CUR)
        else:
            raise SpecError(f"{getattr(f, 'name', 'model')}: not an ONNX protobuf (wire type {wire} at byte {start})")
        found.append((number, wire, start, payload))
    if f.tell() != end:
        raise SpecError(f"{getattr(f, 'name', 'model')}: a field runs past the end of the file; is it truncated?")
    return found


def _read(f: BinaryIO, start: int, end: int) -> bytes:
    f.seek(start)
    return f.read(end - start)


def read_model(source: str | os.PathLike[str], weights: BinaryIO | None = None) -> onnx.ModelProto:
    """The model at `source` with every initializer over 1 KiB moved into `weights` (its location named by the
    file's base name), or, without `weights`, with their data dropped (a skeleton: names, types, shapes)."""
    path = Path(source)
    if not path.is_file():
        raise SpecError(f"model: {path} does not exist")
    model_rest, graph_rest = bytearray(), bytearray()
    initializers: list[onnx.TensorProto] = []
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        top = _fields(f, size)
        for index, (number, wire, start, payload) in enumerate(top):
            end = top[index + 1][2] if index + 1 < len(top) else size
            if number != MODEL_GRAPH or wire != 2:
                model_rest += _read(f, start, end)
                continue
            f.seek(payload)
            inner = _fields(f, end)
            for j, (n2, w2, s2, p2) in enumerate(inner):
                e2 = inner[j + 1][2] if j + 1 < len(inner) else end
                if n2 == GRAPH_INITIALIZER and w2 == 2:
                    tensor = onnx.TensorProto()
                    tensor.ParseFromString(_read(f, p2, e2))
                    initializers.append(_moved(tensor, path.parent, weights))
                else:
                    graph_rest += _read(f, s2, e2)
    model = onnx.ModelProto()
    try:
        model.ParseFromString(bytes(model_rest))
        model.graph.MergeFromString(bytes(graph_rest))
    except Exception as error:  # protobuf's DecodeError
        raise SpecError(f"model: {path} is not a readable ONNX model ({error})") from error
    model.graph.initializer.extend(initializers)
    return model


def _moved(tensor: onnx.TensorProto, folder: Path, weights: BinaryIO | None) -> onnx.TensorProto:
    external = tensor.data_location == onnx.TensorProto.EXTERNAL
    if not external and (tensor.ByteSize() <= INLINE_BYTES or tensor.data_type == onnx.TensorProto.STRING):
        return tensor
    if weights is None:
        skeleton = onnx.TensorProto(name=tensor.name, data_type=tensor.data_type, dims=tensor.dims)
        return skeleton
    padding = -weights.tell() % ALIGN
    weights.write(b"\0" * padding)
    offset = weights.tell()
    if external:
        info = {entry.key: entry.value for entry in tensor.external_data}
        _copy(folder / info.get("location", ""), int(info.get("offset", 0)), info.get("length"), weights)
    else:
        data = tensor.raw_data if tensor.HasField("raw_data") else numpy_helper.to_array(tensor).tobytes()
        weights.write(data)
    length = weights.tell() - offset
    moved = onnx.TensorProto(name=tensor.name, data_type=tensor.data_type, dims=tensor.dims)
    moved.data_location = onnx.TensorProto.EXTERNAL
    for key, value in (
        ("location", Path(getattr(weights, "name", "weights.bin")).name),
        ("offset", str(offset)),
        ("length", str(length)),
    ):
        moved.external_data.add(key=key, value=value)
    return moved


def _copy(source: Path, offset: int, length: str | None, weights: BinaryIO) -> None:
    if not source.is_file():
        raise SpecError(f"external data {source} does not exist; keep it beside the model")
    with source.open("rb") as f:
        f.seek(offset)
        left = int(length) if length is not None else os.fstat(f.fileno()).st_size - offset
        while left > 0:
            chunk = f.read(min(CHUNK, left))
            if not chunk:
                raise SpecError(f"external data {source} ends before offset {offset} + {length}")
            weights.write(chunk)
            left -= len(chunk)
