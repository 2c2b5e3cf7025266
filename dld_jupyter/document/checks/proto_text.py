"""Find text fields of a parsed ModelProto that are not valid UTF-8.

Why: protobuf hands such a field (a node name, a value name, a doc string) back as ``bytes`` instead of ``str``,
and every later step that treats names as text then fails with a raw TypeError far from the cause. Opening a file
checks all text once, up front, so the user learns which field of which element is broken.
"""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE


def _where(message: Message, outer: str) -> str:
    name = getattr(message, "name", "")
    kind = type(message).__name__.removesuffix("Proto").lower()
    if isinstance(name, str) and name:
        return f"{kind} {name!r}"
    return f"{kind} in {outer}" if outer else kind


def undecodable(message: Message, outer: str = "") -> Iterator[tuple[str, bytes]]:
    """(where, raw bytes) for every text field of ``message`` (at any depth) that is not valid UTF-8.

    Walks the descriptor rather than ``ListFields`` so that bytes fields (a tensor's ``raw_data``, possibly
    gigabytes) are never materialised.
    """
    where = _where(message, outer)
    for field in message.DESCRIPTOR.fields:
        if field.type == _STRING:
            value = getattr(message, field.name)
            for item in value if field.is_repeated else (value,):
                if isinstance(item, bytes):
                    yield f"field {field.name} of {where}", item
        elif field.type == _MESSAGE:
            if field.is_repeated:
                for child in getattr(message, field.name):
                    yield from undecodable(child, where)
            elif message.HasField(field.name):
                yield from undecodable(getattr(message, field.name), where)
