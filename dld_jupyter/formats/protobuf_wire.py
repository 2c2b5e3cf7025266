"""The protobuf wire format's length-delimited field, written by hand, for splicing bytes into an ONNX model.

`document/files/lazy_weights.py` writes a model whose weights are copied as raw byte ranges of the original file,
without parsing them into messages (a multi-gigabyte model would be held twice): a field is its key and length put
before bytes already encoded. Messages built field by field use their generated classes instead (the Perfetto export
uses the `perfetto` package's protos). """

from __future__ import annotations

LENGTH = 2


def varint(value: int) -> bytes:
    """Base-128 varint; negative int64 values take ten bytes, as protobuf writes them."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def message(field: int, body: bytes) -> bytes:
    """A length-delimited field: an embedded message or bytes."""
    return varint((field << 3) | LENGTH) + varint(len(body)) + body
