"""Layer -> ONNX node links of the report viewer (seed 000 "Name" column, magnifier menu).

A layer's own `onnx_nodes` are its source nodes. Producers of its inputs and consumers of its outputs come from
the model file (`summary.model_path`), read once per viewer without external weights. Opening a link shows the
designer on the source model and selects the nodes: one designer per model path per viewer, reused; a live
designer already open on that file elsewhere in the kernel is used instead (and not displayed a second time).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.formats.node_names import name_unnamed_nodes
from dld_jupyter.frontdoor.designers import LiveDesigner, loading, registry


class LinkError(Exception):
    """A link that cannot be followed; the message says why and what to do."""


@dataclass
class ModelGraph:
    """Node names with their input/output value names, and which node produces / consumes each value."""

    inputs: dict[str, list[str]] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    producer: dict[str, str] = field(default_factory=dict)
    consumers: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str) -> ModelGraph:
        import onnx  # lazy: only when a user asks for producers/consumers

        model = onnx.load(path, load_external_data=False)
        name_unnamed_nodes(model)  # unnamed nodes: the names opening gives them, as the designer and the report do
        graph = cls()
        for node in model.graph.node:
            name = node.name
            graph.inputs[name] = [v for v in node.input if v]
            graph.outputs[name] = [v for v in node.output if v]
            for value in graph.outputs[name]:
                graph.producer[value] = name
            for value in graph.inputs[name]:
                graph.consumers.setdefault(value, []).append(name)
        return graph

    def producers_of(self, nodes: Sequence[str]) -> list[str]:
        inside = set(nodes)
        found: list[str] = []
        for node in nodes:
            for value in self.inputs.get(node, []):
                source = self.producer.get(value)
                if source and source not in inside and source not in found:
                    found.append(source)
        return found

    def consumers_of(self, nodes: Sequence[str]) -> list[str]:
        inside = set(nodes)
        found: list[str] = []
        for node in nodes:
            for value in self.outputs.get(node, []):
                for user in self.consumers.get(value, []):
                    if user not in inside and user not in found:
                        found.append(user)
        return found


def resolve_model(model_path: str, report_dir: str | None) -> str:
    """The report's model as an existing file: absolute, relative to the report's folder, or to the cwd."""
    if not model_path:
        raise LinkError(
            "this report does not name its ONNX model (summary.model_path is empty): "
            "import it with `dld report import-trtexec ... --model MODEL.onnx` to link layers to nodes"
        )
    candidates = [Path(model_path)]
    if report_dir and not os.path.isabs(model_path):
        candidates.insert(0, Path(report_dir) / model_path)
    for candidate in candidates:
        if candidate.is_file():
            return str(candidate.resolve())
    raise LinkError(f"the report's model {model_path!r} was not found (moved or deleted?)")


class DesignerLinks:
    """Opens (or reuses) designers for a viewer and selects nodes in them."""

    def __init__(self, show: Callable[[LiveDesigner], None]) -> None:
        self._show = show  # displays a newly opened designer under the viewer
        self._designers: dict[str, LiveDesigner] = {}
        self._graphs: dict[str, ModelGraph] = {}
        self._wanted: dict[int, list[str]] = {}  # designer id -> the nodes last asked for

    def graph(self, path: str) -> ModelGraph:
        if path not in self._graphs:
            self._graphs[path] = ModelGraph.load(path)
        return self._graphs[path]

    def menu(self, path: str, nodes: Sequence[str]) -> dict[str, list[str]]:
        """The magnifier menu: source nodes, producers of their inputs, consumers of their outputs."""
        graph = self.graph(path)
        return {"sources": list(nodes), "producers": graph.producers_of(nodes), "consumers": graph.consumers_of(nodes)}

    def live(self, path: str | None, source_document: str | None = None) -> LiveDesigner | None:
        """The designer already open for a report, without opening one: the live designer of the document that was
        profiled (`source_document`: a copy of its unsaved edits ran, its nodes are the document's), else the one
        this viewer opened on the model, else one open on the model elsewhere in the kernel; None when none is."""
        if source_document:
            designer = registry.by_path(source_document)
            if designer is not None:
                return designer
        if path is None:
            return None
        mine = self._designers.get(path)
        if mine is not None and getattr(mine, "comm", True) is not None:  # a closed widget has lost its comm
            return mine
        return registry.by_path(path)

    def open(self, path: str, nodes: Sequence[str], source_document: str | None = None) -> LiveDesigner:
        """Show the designer on `path` and select `nodes` in it; returns the designer. The live designer of the
        profiled document (`source_document`) is preferred: the user's open, maybe edited, model."""
        designer = self.live(path, source_document)  # one this viewer opened and the user closed is not live
        if designer is None:
            try:
                designer = registry.open(path)
            except LookupError as error:
                raise LinkError(str(error)) from error
            self._reselect_when_shown(designer)
            self._show(designer)
            self._designers[path] = designer
        return self.select(designer, nodes, reveal=True)

    def select(self, designer: LiveDesigner, nodes: Sequence[str], reveal: bool = False) -> LiveDesigner:
        """Select `nodes` (ONNX names) in `designer` and bring them into view; returns the designer. `reveal`
        (a name link): the designer itself is brought into view, its JupyterLab tab activated."""
        names = list(nodes)
        document = designer.document if loading(designer) is None else None  # a loading model: no wait here
        if names and document is not None:
            known = {node.name for node in document.nodes()}
            missing = [n for n in names if n not in known]
            if len(missing) == len(names):  # a name that is no node reached the canvas as an id and failed there
                where = document.path or "the designer's model"
                raise LinkError(
                    f"no node named {', '.join(repr(n) for n in missing[:3])}{' …' if len(missing) > 3 else ''} in "
                    f"{where}: the report ran edits that are not in it (unsaved edits of a designer since closed, or "
                    "a model changed since). Profile the model again to link its layers."
                )
            names = [n for n in names if n in known]
        self._wanted[id(designer)] = names
        if names:
            designer.select(names, reveal=reveal)
        return designer

    def _reselect_when_shown(self, designer: LiveDesigner) -> None:
        """A selection sent before the new designer's canvas is drawn is lost in the browser: send it again when
        the canvas view says hello (after the canvas has answered with its snapshot, its handler runs first)."""
        canvas = getattr(designer, "canvas", None)
        on_msg = getattr(canvas, "on_msg", None)
        if not callable(on_msg):
            return

        def hello(_widget: Any, content: dict[str, Any], _buffers: Any) -> None:
            names = self._wanted.get(id(designer))
            if isinstance(content, dict) and content.get("kind") == "hello" and names:
                designer.select(names)

        on_msg(hello)
