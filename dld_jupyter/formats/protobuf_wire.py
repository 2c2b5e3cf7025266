"""The protobuf wire format, written by hand: varints, fixed64, doubles and length-delimited fields.

Enough to write a native Perfetto trace (`reports/perfetto.py`) without generated classes or a protoc step: a
message is built as bytes from (field number, value) pairs. Field numbers live with the messages that use them.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

VARINT, FIXED64, LENGTH = 0, 1, 2


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


def key(field: int, wire: int) -> bytes:
    return varint((field << 3) | wire)


def uint(field: int, value: int) -> bytes:
    """An int32/int64/uint32/uint64/enum/bool field."""
    return key(field, VARINT) + varint(int(value))


def fixed64(field: int, value: int) -> bytes:
    return key(field, FIXED64) + struct.pack("<Q", value & 0xFFFFFFFFFFFFFFFF)


def double(field: int, value: float) -> bytes:
    return key(field, FIXED64) + struct.pack("<d", float(value))


def message(field: int, body: bytes) -> bytes:
    """A length-delimited field: an embedded message or bytes."""
    return key(field, LENGTH) + varint(len(body)) + body


def string(field: int, text: str) -> bytes:
    return message(field, text.encode("utf-8", "replace"))  # a lone surrogate becomes "?": UTF-8 must be valid


def join(parts: Iterable[bytes]) -> bytes:
    return b"".join(parts)
