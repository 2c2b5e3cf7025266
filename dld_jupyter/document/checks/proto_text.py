"""Find text fields of a parsed ModelProto that are not valid UTF-8.

Why: protobuf hands such a field (a node name, a value name, a doc string) back as ``bytes`` instead of ``str``,
and every later step that treats names as text then fails with a raw TypeError far from the cause. Opening a file
checks all text once, up front, so the user learns which field of which element is broken.
"""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf.descriptor import Descriptor, FieldDescriptor
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

    Reads the fields a message has set (``ListFields``: one call per message, where reading each field of the
    descriptor cost 0.77 s on a 50,000-node model, issue 42), except in messages with a bytes field (a tensor's
    ``raw_data``, possibly gigabytes), whose descriptor is walked so that those bytes are never materialised.
    """
    where = _where(message, outer)
    if _has_bytes(message.DESCRIPTOR):
        fields = [(field, getattr(message, field.name)) for field in message.DESCRIPTOR.fields
                  if field.type in _WALKED and (field.is_repeated or message.HasField(field.name))]
    else:
        fields = message.ListFields()
    for field, value in fields:
        if field.type == _STRING:
            for item in value if field.is_repeated else (value,):
                if isinstance(item, bytes):
                    yield f"field {field.name} of {where}", item
        elif field.type == _MESSAGE:
            for child in value if field.is_repeated else (value,):
                if isinstance(child, Message):  # a map's entries are messages too; its plain values are not
                    yield from undecodable(child, where)


_WALKED = (_STRING, _MESSAGE)
_BYTES_FIELDS: dict[Descriptor, bool] = {}


def _has_bytes(descriptor: Descriptor) -> bool:
    found = _BYTES_FIELDS.get(descriptor)
    if found is None:
        found = _BYTES_FIELDS[descriptor] = any(field.type == FieldDescriptor.TYPE_BYTES for field in descriptor.fields)
    return found
