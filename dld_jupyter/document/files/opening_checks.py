"""What an .onnx file must be to be opened, checked on its protobuf before any ir object exists (io.read_checked):
each refusal is a DocumentError saying what and how to fix. In order: missing file, a folder, empty or
truncated/corrupt protobuf, not an ONNX model, IR version or opset newer than the installed onnx supports, external
data whose ``location`` is absolute or escapes the model's folder (CVE-2024-27318/27319), missing or too short
external data file, a non-numeric external offset/length or a NUL in a location, text fields that are not UTF-8, a
value defined twice, a cycle (a graph merely out of topological order is accepted and sorted by io.build)."""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Mapping

import onnx
from google.protobuf.message import DecodeError

from dld_jupyter.document.checks.proto_text import undecodable
from dld_jupyter.document.files import lazy_weights
from dld_jupyter.document.files.proto_tensors import all_tensors
from dld_jupyter.document.files.versions import ML_MAX_OPSET, newest_opset
from dld_jupyter.document.model.errors import DocumentError


def fail(path: pathlib.Path, why: str, fix: str) -> DocumentError:
    return DocumentError(f"Open {path.name}", why, fix)


def read_proto(path: pathlib.Path) -> tuple[onnx.ModelProto, bool, lazy_weights.MappedFile | None]:
    """The parsed model, whether it may reference external data (the bytes mention ``location``), and the mapped
    file its big embedded initializers are read from lazily (lazy_weights.py; None for small files)."""
    if path.is_dir():
        raise fail(path, f"{str(path)!r} is a folder.", "Pass the path of the .onnx file inside it.")
    if not path.is_file():
        raise fail(path, f"the file {str(path)!r} does not exist.", "Check the path.")
    if path.stat().st_size == 0:
        raise fail(path, "the file is empty.", "Choose an .onnx model file.")
    mapped: lazy_weights.MappedFile | None = None
    try:
        if path.stat().st_size >= lazy_weights.LAZY_MIN_FILE:
            with contextlib.suppress(ValueError, IndexError):  # not a protobuf: parsing below says why
                mapped = lazy_weights.MappedFile(path)
        data = mapped.stripped if mapped is not None else path.read_bytes()
    except OSError as exc:
        raise fail(path, f"the file cannot be read ({exc.strerror}).", "Check its permissions.") from exc
    try:
        proto = onnx.ModelProto.FromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise fail(
            path,
            f"the file is not a readable ONNX protobuf (truncated or corrupt: {exc}).",
            "Export or download the model again.",
        ) from exc
    if not proto.HasField("graph") or proto.ir_version <= 0:
        raise fail(path, "the file is not an ONNX model (no graph or IR version).", "Choose an .onnx model.")
    if not _is_utf8(data):
        _check_text(path, proto)  # about 15 µs per node: only when some bytes are not text
    return proto, b"location" in data, mapped


def check_versions(path: pathlib.Path, proto: onnx.ModelProto) -> None:
    if proto.ir_version > onnx.IR_VERSION:
        raise fail(
            path,
            f"IR version {proto.ir_version} is newer than this onnx ({onnx.__version__}) supports ({onnx.IR_VERSION}).",
            "Upgrade onnx, or export the model with an older IR version.",
        )
    newest = {"": newest_opset(), "ai.onnx": newest_opset(), "ai.onnx.ml": ML_MAX_OPSET}
    for opset in proto.opset_import:
        limit = newest.get(opset.domain)
        if limit is not None and opset.version > limit:
            raise fail(
                path,
                f"opset {opset.domain or 'ai.onnx'} {opset.version} is newer than supported ({limit}).",
                f"Convert the model to opset {limit} or older (onnx.version_converter), or upgrade onnx.",
            )


def check_external(path: pathlib.Path, proto: onnx.ModelProto, everywhere: bool) -> None:
    """Check external references of the initializers, and of every tensor when ``everywhere``."""
    base = path.parent.resolve()
    for tensor in all_tensors(proto) if everywhere else proto.graph.initializer:
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            continue
        info = {entry.key: entry.value for entry in tensor.external_data}
        location = info.get("location", "")
        name = tensor.name or "<unnamed>"
        fix = "Move the data file into the model's folder and set a relative location without '..'."
        if not location:
            raise fail(path, f"tensor {name!r} is external but has no location.", fix)
        if "\0" in location:
            raise fail(path, f"the external data location of tensor {name!r} contains a NUL character.", fix)
        if os.path.isabs(location) or location.startswith(("/", "\\")) or ":" in location:
            raise fail(path, f"tensor {name!r} has an absolute external data location {location!r}.", fix)
        parts = pathlib.PurePath(location.replace("\\", "/")).parts
        target = (base / location).resolve()
        if ".." in parts or not target.is_relative_to(base):
            raise fail(path, f"tensor {name!r} points outside the model's folder ({location!r}).", fix)
        if not target.is_file():
            raise fail(
                path,
                f"the external data file {location!r} of tensor {name!r} is missing.",
                f"Put {location!r} beside the model.",
            )
        end = _external_number(path, info, "offset", name) + _external_number(path, info, "length", name)
        if end > target.stat().st_size:
            raise fail(
                path,
                f"the external data file {location!r} is shorter than tensor {name!r} needs ({end} bytes).",
                "Copy the complete data file again.",
            )


def _external_number(path: pathlib.Path, info: Mapping[str, str], key: str, name: str) -> int:
    """An external-data ``offset``/``length``: a non-negative decimal integer (ONNX writes them so)."""
    text = info.get(key, "") or "0"
    if not (text.isascii() and text.isdigit() and len(text) <= 20):
        raise fail(
            path,
            f"the external data {key} of tensor {name!r} is {text[:40]!r}, not a non-negative whole number.",
            "Save the model again with onnx (onnx.save with save_as_external_data=True).",
        )
    return int(text)


def _is_utf8(data: bytes) -> bool:
    """Whether the whole file decodes: then no text field can be broken (usual when weights are external)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:  # embedded weights fail at their first odd byte, so this costs little
        return False
    return True


def _check_text(path: pathlib.Path, proto: onnx.ModelProto) -> None:
    for where, raw in undecodable(proto):
        raise fail(
            path,
            f"the {where} is not valid UTF-8 text ({raw[:40]!r}).",
            "Rename it in the tool that wrote the model; ONNX names are UTF-8 text.",
        )


def check_structure(path: pathlib.Path, graph: onnx.GraphProto) -> bool:
    """Refuse values defined twice and cycles in the main graph; True when the nodes are topologically sorted."""
    defined = {value.name for value in graph.input} | {tensor.name for tensor in graph.initializer}
    defined.add("")  # an omitted optional input or output
    sorted_ok = True
    for index, node in enumerate(graph.node):
        if sorted_ok and not defined.issuperset(node.input):
            sorted_ok = False
        outputs = node.output
        if not defined.isdisjoint(outputs):
            twice = [name for name in outputs if name and name in defined]
            if twice:
                raise fail(
                    path,
                    f"value {twice[0]!r} is defined twice (output of node {node.name or index!r}).",
                    "Give every tensor a unique name: each value must be produced once.",
                )
        defined.update(outputs)
    if not sorted_ok:
        _check_cycles(path, graph)
    return sorted_ok


def _check_cycles(path: pathlib.Path, graph: onnx.GraphProto) -> None:
    nodes = graph.node
    producer = {name: index for index, node in enumerate(nodes) for name in node.output if name}
    users: list[list[int]] = [[] for _ in nodes]
    pending = [0] * len(nodes)
    for index, node in enumerate(nodes):
        deps = {producer[n] for n in node.input if n and producer.get(n, -1) >= 0}
        pending[index] = len(deps)
        for dep in deps:
            users[dep].append(index)
    ready = [i for i, count in enumerate(pending) if count == 0]
    seen = 0
    while ready:
        index = ready.pop()
        seen += 1
        for user in users[index]:
            pending[user] -= 1
            if pending[user] == 0:
                ready.append(user)
    if seen < len(nodes):
        stuck = [nodes[i].name or nodes[i].op_type for i, c in enumerate(pending) if c > 0][:5]
        raise fail(path, f"the graph has a cycle through {', '.join(stuck)}.", "Break the loop (use a Loop operator).")
