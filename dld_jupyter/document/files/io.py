"""Reading and writing .onnx files: the only module of the document layer that serializes.

Opening checks, in order, and refuses with a DocumentError saying what and how to fix: missing file, empty or
truncated/corrupt protobuf, not an ONNX model, IR version or opset newer than the installed onnx supports,
external data whose ``location`` is absolute or escapes the model's folder (CVE-2024-27318/27319), missing or too
short external data file, a non-numeric external offset/length or a NUL in a location, text fields that are not
UTF-8, a value defined twice, a cycle. Unnamed nodes get a unique name as Model Explorer names them
(formats/node_names.py; the ir model's meta keeps which, under GENERATED_NAMES_KEY). External tensors stay lazy
(memory-mapped on use), and so do big embedded initializers (lazy_weights.py: opening costs the nodes, not the
weight bytes).
A graph whose nodes are not in topological order (but acyclic) is sorted: edits keep that order.

Saving is atomic even with external data (atomic_save: a fresh data generation, then one rename of the .onnx), sets
an IR version onnxruntime 1.31 loads when the opsets allow it, keeps external data consistent (same folder:
references kept; another folder: tensors written to ``<name>.<generation>.data`` beside the new file, and tensor
attributes whose data lies in another folder embedded), and writes our ``dld*`` metadata keys.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Iterator, Mapping

import onnx
import onnx_ir as ir
from google.protobuf.message import DecodeError

from dld_jupyter.document.checks.proto_text import undecodable
from dld_jupyter.document.files import atomic_save, lazy_weights, sparse_initializers
from dld_jupyter.document.files.proto_tensors import all_tensors
from dld_jupyter.document.files.self_contained import external_tensors, in_memory, tensor_attributes
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.formats.atomic_write import atomic_write_bytes
from dld_jupyter.formats.node_names import GENERATED_META, Generated, name_unnamed_nodes

ORT_MAX_IR_VERSION = 13  # onnxruntime 1.31 refuses IR 14 (onnx 1.23's default)
ORT_MAX_OPSET = 26  # newest default-domain opset onnxruntime 1.31 loads
ML_MAX_OPSET = 5
GENERATED_NAMES_KEY = "dld_generated_names"  # model.meta: the Generated names of opening (document/files/io.py)


def newest_opset() -> int:
    return int(onnx.defs.onnx_opset_version())


def ir_version_for_opset(opset: int) -> int:
    """The IR version of the first onnx release that knows ``opset`` (never below 3)."""
    for _release, ir_version, ai_onnx, _ml, *_ in onnx.helper.VERSION_TABLE:
        if ai_onnx >= opset:
            return max(3, int(ir_version))
    return int(onnx.IR_VERSION)


def target_ir_version(ir_version: int, opsets: Mapping[str, int]) -> int:
    """``ir_version`` lowered to what onnxruntime 1.31 loads when the default-domain opset allows it."""
    if ir_version <= ORT_MAX_IR_VERSION:
        return ir_version
    needed = ir_version_for_opset(opsets.get("", opsets.get("ai.onnx", 1)))
    return ir_version if needed > ORT_MAX_IR_VERSION else ORT_MAX_IR_VERSION


# ---------------------------------------------------------------- opening


def _fail(path: pathlib.Path, why: str, fix: str) -> DocumentError:
    return DocumentError(f"Open {path.name}", why, fix)


def _read_proto(path: pathlib.Path) -> tuple[onnx.ModelProto, bool, lazy_weights.MappedFile | None]:
    """The parsed model, whether it may reference external data (the bytes mention ``location``), and the mapped
    file its big embedded initializers are read from lazily (lazy_weights.py; None for small files)."""
    if path.is_dir():
        raise _fail(path, f"{str(path)!r} is a folder.", "Pass the path of the .onnx file inside it.")
    if not path.is_file():
        raise _fail(path, f"the file {str(path)!r} does not exist.", "Check the path.")
    if path.stat().st_size == 0:
        raise _fail(path, "the file is empty.", "Choose an .onnx model file.")
    mapped: lazy_weights.MappedFile | None = None
    try:
        if path.stat().st_size >= lazy_weights.LAZY_MIN_FILE:
            with contextlib.suppress(ValueError, IndexError):  # not a protobuf: parsing below says why
                mapped = lazy_weights.MappedFile(path)
        data = mapped.stripped if mapped is not None else path.read_bytes()
    except OSError as exc:
        raise _fail(path, f"the file cannot be read ({exc.strerror}).", "Check its permissions.") from exc
    try:
        proto = onnx.ModelProto.FromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise _fail(
            path,
            f"the file is not a readable ONNX protobuf (truncated or corrupt: {exc}).",
            "Export or download the model again.",
        ) from exc
    if not proto.HasField("graph") or proto.ir_version <= 0:
        raise _fail(path, "the file is not an ONNX model (no graph or IR version).", "Choose an .onnx model.")
    if not _is_utf8(data):
        _check_text(path, proto)  # about 15 µs per node: only when some bytes are not text
    return proto, b"location" in data, mapped


def _check_versions(path: pathlib.Path, proto: onnx.ModelProto) -> None:
    if proto.ir_version > onnx.IR_VERSION:
        raise _fail(
            path,
            f"IR version {proto.ir_version} is newer than this onnx ({onnx.__version__}) supports ({onnx.IR_VERSION}).",
            "Upgrade onnx, or export the model with an older IR version.",
        )
    newest = {"": newest_opset(), "ai.onnx": newest_opset(), "ai.onnx.ml": ML_MAX_OPSET}
    for opset in proto.opset_import:
        limit = newest.get(opset.domain)
        if limit is not None and opset.version > limit:
            raise _fail(
                path,
                f"opset {opset.domain or 'ai.onnx'} {opset.version} is newer than supported ({limit}).",
                f"Convert the model to opset {limit} or older (onnx.version_converter), or upgrade onnx.",
            )


def _check_external(path: pathlib.Path, proto: onnx.ModelProto, everywhere: bool) -> None:
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
            raise _fail(path, f"tensor {name!r} is external but has no location.", fix)
        if "\0" in location:
            raise _fail(path, f"the external data location of tensor {name!r} contains a NUL character.", fix)
        if os.path.isabs(location) or location.startswith(("/", "\\")) or ":" in location:
            raise _fail(path, f"tensor {name!r} has an absolute external data location {location!r}.", fix)
        parts = pathlib.PurePath(location.replace("\\", "/")).parts
        target = (base / location).resolve()
        if ".." in parts or not target.is_relative_to(base):
            raise _fail(path, f"tensor {name!r} points outside the model's folder ({location!r}).", fix)
        if not target.is_file():
            raise _fail(
                path,
                f"the external data file {location!r} of tensor {name!r} is missing.",
                f"Put {location!r} beside the model.",
            )
        end = _external_number(path, info, "offset", name) + _external_number(path, info, "length", name)
        if end > target.stat().st_size:
            raise _fail(
                path,
                f"the external data file {location!r} is shorter than tensor {name!r} needs ({end} bytes).",
                "Copy the complete data file again.",
            )


def _external_number(path: pathlib.Path, info: Mapping[str, str], key: str, name: str) -> int:
    """An external-data ``offset``/``length``: a non-negative decimal integer (ONNX writes them so)."""
    text = info.get(key, "") or "0"
    if not (text.isascii() and text.isdigit() and len(text) <= 20):
        raise _fail(
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
        raise _fail(
            path,
            f"the {where} is not valid UTF-8 text ({raw[:40]!r}).",
            "Rename it in the tool that wrote the model; ONNX names are UTF-8 text.",
        )


def _check_structure(path: pathlib.Path, graph: onnx.GraphProto) -> bool:
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
                raise _fail(
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
        raise _fail(path, f"the graph has a cycle through {', '.join(stuck)}.", "Break the loop (use a Loop operator).")


class CheckedProto:
    """A parsed .onnx file that passed every check of opening: what `build` turns into the ir model."""

    __slots__ = ("file", "generated", "mapped", "may_be_external", "proto", "sorted")

    def __init__(self, file: pathlib.Path, proto: onnx.ModelProto, may_be_external: bool, sorted_ok: bool,
                 mapped: lazy_weights.MappedFile | None = None) -> None:
        self.file, self.proto, self.may_be_external, self.sorted = file, proto, may_be_external, sorted_ok
        self.mapped = mapped
        # Seed 000: a node has a unique name "automatically generated … if not present in the ONNX model". Named here,
        # in file order before any sort (Model Explorer's order), so the outline shows the names the document has.
        self.generated: Generated = name_unnamed_nodes(proto)


def read_checked(path: str | os.PathLike[str]) -> CheckedProto:
    """Parse an .onnx file and refuse unsafe or broken files (the fast half of opening: no ir objects yet)."""
    file = pathlib.Path(path)
    proto, may_be_external, mapped = _read_proto(file)
    _check_versions(file, proto)
    _check_external(file, proto, may_be_external)
    return CheckedProto(file, proto, may_be_external, _check_structure(file, proto.graph), mapped)


def build(checked: CheckedProto) -> ir.Model:
    """The ir model of a checked file (the slow half of opening: about 40 µs per node)."""
    file = checked.file
    sparse = sparse_initializers.densify(checked.proto)  # onnx-ir reads none: dense while edited
    try:
        model = ir.serde.deserialize_model(checked.proto)
    except Exception as exc:
        cause: BaseException = exc
        while cause.__cause__ is not None:  # onnx-ir wraps the real reason ("999 is not a valid DataType")
            cause = cause.__cause__
        why = str(exc) if cause is exc else f"{exc}: {cause}"
        raise _fail(file, f"the model cannot be read ({why}).", "Run onnx.checker on it to find the cause.") from exc
    sparse_initializers.remember(model, sparse)
    _remember_generated(model, checked.generated)
    if checked.mapped is not None:
        lazy_weights.attach(model, checked.mapped)
    if not checked.sorted:
        model.graph.sort()  # ONNX requires it; edits keep the order topological from here on
    if checked.may_be_external:  # each tensor keeps the folder it is read from, whatever the document's path becomes
        for tensor in external_tensors(model):
            tensor.base_dir = str(file.parent.absolute())  # a later chdir changes nothing
    return model


def _remember_generated(model: ir.Model, generated: Generated) -> None:
    """Mark the nodes opening named (node.meta: the name given), in the order of the pass's walk: until a save writes
    the names, Model Explorer (explorer_ids.py) sees them unnamed in the file."""
    if not generated.names:
        return
    model.meta[GENERATED_NAMES_KEY] = generated
    for tree, positions in generated.positions.items():
        graph = model.graph if tree is None else model.functions.get(tree)
        wanted = set(positions)
        for position, node in enumerate(ir.traversal.RecursiveGraphIterator(graph) if graph is not None else ()):
            if position in wanted:
                node.meta[GENERATED_META] = node.name


def names_written(model: ir.Model) -> None:
    """A save wrote the names opening gave: they are the file's own now."""
    if model.meta.pop(GENERATED_NAMES_KEY, None) is not None:
        for node in model.graph.all_nodes():
            node.meta.pop(GENERATED_META, None)
        for function in model.functions.values():
            for node in function.all_nodes():
                node.meta.pop(GENERATED_META, None)


def load(path: str | os.PathLike[str]) -> ir.Model:
    """Open an .onnx file without reading external data; refuse unsafe or broken files."""
    return build(read_checked(path))


# ---------------------------------------------------------------- saving


def _external_dirs(model: ir.Model) -> set[pathlib.Path]:
    dirs: set[pathlib.Path] = set()
    for graph in model.graphs():
        for value in graph.initializers.values():
            tensor = value.const_value
            if isinstance(tensor, ir.ExternalTensor):
                dirs.add(pathlib.Path(tensor.base_dir).resolve())
    return dirs


@contextlib.contextmanager
def _saved_form(model: ir.Model, metadata: Mapping[str, str | None]) -> Iterator[None]:
    """Temporarily give the model our metadata keys and the IR version to write."""
    props = model.metadata_props
    old_props = {key: props.get(key) for key in metadata}
    old_ir = model.ir_version
    for key, value in metadata.items():
        if value is None:
            props.pop(key, None)
        else:
            props[key] = value
    model.ir_version = target_ir_version(old_ir, model.opset_imports)
    try:
        yield
    finally:
        model.ir_version = old_ir
        for key, value in old_props.items():
            if value is None:
                props.pop(key, None)
            else:
                props[key] = value


@contextlib.contextmanager
def _foreign_attributes_embedded(model: ir.Model, folder: pathlib.Path, what: str) -> Iterator[None]:
    """Temporarily give tensor attributes whose external data lies outside ``folder`` their bytes: the saved file
    keeps only relative locations, which would name files in ``folder`` (another model's weights), and onnx-ir's
    save moves initializers only. The in-memory model gets its own attributes back."""
    swapped: list[tuple[ir.Node, ir.Attr]] = []

    def foreign(tensor: object) -> bool:
        return isinstance(tensor, ir.ExternalTensor) and pathlib.Path(tensor.base_dir).resolve() != folder

    try:
        for node, attr in list(tensor_attributes(model)):
            if attr.type == ir.AttributeType.TENSOR and foreign(attr.value):
                node.attributes[attr.name] = ir.AttrTensor(attr.name, in_memory(attr.value, what))
            elif attr.type == ir.AttributeType.TENSORS and any(foreign(t) for t in attr.value):
                loaded = [in_memory(t, what) if foreign(t) else t for t in attr.value]
                node.attributes[attr.name] = ir.AttrTensors(attr.name, loaded)
            else:
                continue
            swapped.append((node, attr))
        yield
    finally:
        for node, attr in reversed(swapped):
            node.attributes[attr.name] = attr


def save(model: ir.Model, path: str | os.PathLike[str], metadata: Mapping[str, str | None]) -> None:
    """Write ``model`` to ``path`` atomically (see atomic_save). The in-memory model is left as it was."""
    file = pathlib.Path(path).absolute()
    if not file.parent.is_dir():
        raise DocumentError(f"Save {file.name}", f"the folder {str(file.parent)!r} does not exist.", "Create it.")
    external = _external_dirs(model)
    legacy = atomic_save.superseded_legacy(file)
    try:
        folder = file.parent.resolve()
        with _saved_form(model, metadata), _foreign_attributes_embedded(model, folder, f"Save {file.name}"):
            if external and external != {folder}:
                atomic_save.write_with_external(model, file)
            else:
                proto = ir.serde.serialize_model(model)
                sparse_initializers.sparsify(model, proto)  # those that were sparse when opened
                atomic_write_bytes(file, proto.SerializeToString())
    except OSError as exc:
        raise DocumentError(f"Save {file.name}", f"writing failed ({exc}).", "Check space and permissions.") from exc
    except ir.serde.SerdeError as exc:
        raise DocumentError(
            f"Save {file.name}", f"the model cannot be written ({exc}).", "Undo the last edit and save again."
        ) from exc
    atomic_save.clean_leftovers(file, atomic_save.in_memory_files(model), legacy)
