"""Reading and writing .onnx files: the only module of the document layer that serializes.

Opening refuses unsafe or broken files first (opening_checks.py: every check, in order, each a DocumentError saying
what and how to fix). Unnamed nodes get a unique name as Model Explorer names them (formats/node_names.py; the ir
model's meta keeps which, under GENERATED_NAMES_KEY). External tensors stay lazy (memory-mapped on use), and so do
big embedded initializers (lazy_weights.py: opening costs the nodes, not the weight bytes).
A graph whose nodes are not in topological order (but acyclic) is sorted: edits keep that order.

Saving is atomic even with external data (atomic_save: a fresh data generation, then one rename of the .onnx),
sets an IR version onnxruntime 1.31 loads when the opsets allow it (versions.py), keeps external data consistent
(same folder: references kept; another folder: tensors written to ``<name>.<generation>.data`` beside the new file,
and tensor attributes whose data lies in another folder embedded), and writes our ``dld*`` metadata keys.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Iterator, Mapping

import onnx
import onnx_ir as ir

from dld_jupyter.document.files import atomic_save, lazy_weights, sparse_initializers
from dld_jupyter.document.files.opening_checks import check_external, check_structure, check_versions, fail, read_proto
from dld_jupyter.document.files.self_contained import external_tensors, in_memory, tensor_attributes
from dld_jupyter.document.files.versions import target_ir_version
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.formats.atomic_write import atomic_write_bytes
from dld_jupyter.formats.node_names import GENERATED_META, Generated, name_unnamed_nodes

GENERATED_NAMES_KEY = "dld_generated_names"  # model.meta: the Generated names of opening (document/files/io.py)


# ---------------------------------------------------------------- opening

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
    proto, may_be_external, mapped = read_proto(file)
    check_versions(file, proto)
    check_external(file, proto, may_be_external)
    return CheckedProto(file, proto, may_be_external, check_structure(file, proto.graph), mapped)


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
        raise fail(file, f"the model cannot be read ({why}).", "Run onnx.checker on it to find the cause.") from exc
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
