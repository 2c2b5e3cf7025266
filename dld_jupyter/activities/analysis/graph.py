"""The main graph of an analysed model as the debugger sees it: its execution order, who produces each value, and
the prefix model that computes a set of values.

Why prefixes: marking every tensor as a graph output keeps them all alive to the end of the pass (the out-of-memory
reports of Polygraphy `--onnx-outputs mark all` on transformers). A prefix holds only the nodes the wanted values
depend on (subgraph bodies' outer references included), with only those values as outputs, so a stop costs the
memory of the values it shows. The weights stay in one external file of the private folder, shared by every prefix.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence

import onnx

from dld_jupyter.formats.node_names import name_unnamed_in


def _subgraph_names(node: onnx.NodeProto) -> set[str]:
    """Every name a node's subgraph bodies read (a superset of their outer references is enough for ordering)."""
    names: set[str] = set()
    for attribute in node.attribute:
        graphs = list(attribute.graphs) + ([attribute.g] if attribute.HasField("g") else [])
        for graph in graphs:
            for inner in graph.node:
                names.update(name for name in inner.input if name)
                names |= _subgraph_names(inner)
    return names


class MainGraph:
    """The nodes of `graph` by index (file order), their execution order and the producer of each value."""

    def __init__(self, graph: onnx.GraphProto) -> None:
        self.graph = graph
        name_unnamed_in(graph.node)  # as the designer names them on opening: a breakpoint on `node_3` is that node
        self.nodes = list(graph.node)
        self.producer: dict[str, int] = {}
        for index, node in enumerate(self.nodes):
            for name in node.output:
                if name:
                    self.producer[name] = index
        self.reads: list[set[str]] = [
            {name for name in node.input if name} | _subgraph_names(node) for node in self.nodes
        ]
        self.order = self._topological()
        self.step_of = {index: step for step, index in enumerate(self.order)}
        names = [node.name for node in self.nodes]
        self.keys = [name if name and names.count(name) == 1 else f"#{i}" for i, name in enumerate(names)]
        self._index = {key: i for i, key in enumerate(self.keys)}
        self._last_read: dict[str, int] | None = None

    def _topological(self) -> list[int]:
        """Kahn's order, the earliest node in the file first: the file's own order when it is already sorted."""
        depends = [{self.producer[n] for n in reads if n in self.producer} - {i} for i, reads in enumerate(self.reads)]
        users: list[list[int]] = [[] for _ in self.nodes]
        for index, sources in enumerate(depends):
            for source in sources:
                users[source].append(index)
        waiting = [len(sources) for sources in depends]
        ready = [i for i, count in enumerate(waiting) if count == 0]
        heapq.heapify(ready)
        order: list[int] = []
        while ready:
            index = heapq.heappop(ready)
            order.append(index)
            for user in users[index]:
                waiting[user] -= 1
                if waiting[user] == 0:
                    heapq.heappush(ready, user)
        if len(order) != len(self.nodes):
            raise ValueError("the main graph has a cycle; check the model (dld check MODEL) first")
        return order

    def index(self, node: str | int) -> int:
        """The file index of a node given by key (its unique name, or `#<index>`) or index; KeyError naming keys."""
        if isinstance(node, int) and not isinstance(node, bool) and 0 <= node < len(self.nodes):
            return node
        if isinstance(node, str) and node in self._index:
            return self._index[node]
        if isinstance(node, str) and node.startswith("#") and node[1:].isdigit() and int(node[1:]) < len(self.nodes):
            return int(node[1:])
        sample = ", ".join(repr(k) for k in self.keys[:5])
        raise KeyError(f"{node!r} is no node of the model; give a node name or '#<index>' (e.g. {sample})")

    def needed(self, values: Iterable[str]) -> list[int]:
        """The nodes the values depend on, in file order."""
        seen: set[int] = set()
        stack = [self.producer[name] for name in values if name in self.producer]
        while stack:
            index = stack.pop()
            if index in seen:
                continue
            seen.add(index)
            stack.extend(self.producer[n] for n in self.reads[index] if n in self.producer)
        return sorted(seen)

    def frontier(self, step: int) -> list[str]:
        """The values produced before `step` (in execution order) that a node at `step` or later reads: what a
        segment starting at `step` takes as inputs (the live activation set there)."""
        if self._last_read is None:
            last: dict[str, int] = {}
            for index, reads in enumerate(self.reads):
                for name in reads:
                    if name in self.producer:
                        last[name] = max(last.get(name, -1), self.step_of[index])
            self._last_read = last
        return [
            name for name, last_step in self._last_read.items() if self.step_of[self.producer[name]] < step <= last_step
        ]

    def prefix(self, values: Sequence[str]) -> onnx.ModelProto:
        """A model (this graph's inputs, the initializers it reads) that computes only `values` as outputs."""
        return self._model(self.needed(values), values, {})

    def segment(self, steps: range, values: Sequence[str], given: dict[str, int]) -> onnx.ModelProto:
        """A model of the nodes at `steps` alone, taking the values they read from earlier nodes as inputs
        (`given`: value name -> ONNX element type) and computing `values`: the model cut at the stop point."""
        return self._model(sorted(self.order[s] for s in steps), values, given)

    def _model(self, kept: list[int], values: Sequence[str], given: dict[str, int]) -> onnx.ModelProto:
        model = onnx.ModelProto()
        model.CopyFrom(self._shell)
        graph = model.graph
        graph.node.extend(self.nodes[i] for i in kept)
        read = set().union(*(self.reads[i] for i in kept)) if kept else set()
        graph.initializer.extend(t for t in self.graph.initializer if t.name in read)
        graph.sparse_initializer.extend(t for t in self.graph.sparse_initializer if t.values.name in read)
        graph.input.extend(self.graph.input)
        graph.input.extend(
            onnx.helper.make_tensor_value_info(name, kind, None) for name, kind in given.items() if name in read
        )
        graph.output.extend(onnx.helper.make_empty_tensor_value_info(name) for name in values)
        return model

    def attach_shell(self, model: onnx.ModelProto) -> None:
        """The model around the graph (opsets, functions, metadata) that every prefix copies."""
        shell = onnx.ModelProto()
        shell.CopyFrom(model)
        for field in ("node", "initializer", "sparse_initializer", "input", "output", "value_info"):
            shell.graph.ClearField(field)
        self._shell = shell
