"""Messages between the kernel and the browser views (js/src/common/protocol.ts, same names).

The kernel owns the graph: views send intents and apply the patches the kernel answers with. Positions travel as
a binary Float32 buffer (x0, y0, x1, y1, ... in the order of the ids listed), never as JSON lists of numbers.
Every kernel message also carries ``seq``, the canvas's sequence number: messages come over the comm and the fast
channel (widgets/canvas/channel_socket.py), and a view applies them in this order.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from dld_jupyter.formats.envelope import Reply, Request

NodeKind = Literal["op", "input", "output", "group", "outer"]  # outer: a value of the enclosing scope
TerminalState = Literal["free", "linked", "initializer", "constant", "placeholder"]
Severity = Literal["error", "warning", "info"]


class TerminalData(TypedDict):
    index: int
    name: str
    optional: bool
    variadic: bool
    state: TerminalState
    value: str | None


class _NodeExtras(TypedDict, total=False):
    subgraphs: list[str]  # the subgraph attributes of a Loop/If/Scan ("body", "branches[1]"); absent when none


class NodeData(_NodeExtras):
    id: str
    name: str
    kind: NodeKind
    op_type: str
    domain: str
    category: str
    composite: bool
    function: str | None  # the local function an instance calls (it can be expanded to show the body)
    inputs: list[TerminalData]
    outputs: list[TerminalData]
    parent: str | None
    collapsed: bool
    child_count: int
    diagnostic: Severity | None
    precision: str | None
    hidden_constant: bool
    subtitle: str  # the node's name when it says more than its op type (glyph_text.py), else ""
    detail: str  # main weight shape and key attributes ("W 64×3×7×7 · k7×7 s2"), else ""
    width: float
    height: float


class EdgeData(TypedDict):
    id: str
    source: str
    source_index: int
    target: str
    target_index: int
    value: str
    label: str | None


class GraphSnapshot(TypedDict):
    nodes: list[NodeData]
    edges: list[EdgeData]


class PaletteOp(TypedDict):
    name: str
    domain: str
    category: str
    summary: str


class SnapshotMessage(TypedDict):
    kind: Literal["snapshot"]
    version: int
    graph: GraphSnapshot
    title: str


class PatchMessage(TypedDict):
    """ops: add_nodes{nodes} | remove_nodes{ids} | update_nodes{nodes} | add_edges{edges} | remove_edges{ids} |
    update_edges{edges} | move{ids}; one Float32 buffer: positions of add_nodes (in order), then of move ids."""

    kind: Literal["patch"]
    version: int
    ops: list[dict[str, object]]


class ReplyMessage(Reply):
    """The answer to one intent (the shared envelope, formats/envelope.py). `patches` are the patches the intent
    caused (buffer i belongs to patch i): they travel in the reply's own message, so the browser applies them and
    settles the intent in one step."""

    kind: Literal["reply"]
    view: str | None  # the view that sent the intent
    patches: list[PatchMessage]


class FocusMessage(TypedDict):
    kind: Literal["focus"]
    ids: list[str]


class OpsMessage(TypedDict):
    kind: Literal["ops"]
    ops: list[PaletteOp]


ExportFormat = Literal["png", "jpg", "svg"]


class ExportRequestMessage(TypedDict):
    kind: Literal["export_request"]
    request: int
    format: ExportFormat
    background: str
    grid: bool


class NoticeMessage(TypedDict):
    kind: Literal["notice"]
    level: Severity
    text: str


class OverlayMessage(TypedDict):
    """Both ways: one canvas overlay's message (widgets/canvas/overlays/). `overlay` names the overlay, `action`
    says what happens ("set" its state, "clear" it; from the browser, what the user did on it); the overlay's own
    payload comes beside them (e.g. overlays/heat_payload.py's HeatSetMessage)."""

    kind: Literal["overlay"]
    overlay: str
    action: str


KernelMessage = (
    SnapshotMessage | PatchMessage | ReplyMessage | FocusMessage | OpsMessage | ExportRequestMessage | NoticeMessage
    | OverlayMessage
)

IntentAction = Literal[
    "add_node", "delete", "connect", "disconnect", "add_graph_input", "add_graph_output", "move", "rename",
    "set_attr", "undo", "redo", "save", "arrange", "copy", "cut", "paste", "expand", "collapse",
    "toggle_constant", "extract", "check", "doc", "ping", "set_precision", "trt_inputs", "set_trt_profile",
    "subgraph_slots", "open_subgraph", "open_function", "create_function_from_selection", "inline_function",
    "add_analysis_layer",
]


class _Hello(TypedDict):
    kind: Literal["hello"]
    view: str


class HelloMessage(_Hello, total=False):
    """A view asks for a snapshot (over the comm)."""

    lost: bool  # this view's fast channel dropped


class AttachMessage(TypedDict):
    """Over the fast channel: send this view everything from now on over it (answered by ``attached``)."""

    kind: Literal["attach"]
    view: str


class ByeMessage(TypedDict):
    """A view was closed."""

    kind: Literal["bye"]
    view: str


class IntentMessage(Request):
    """One gesture as a request of the shared envelope (formats/envelope.py); `action` is an IntentAction."""

    kind: Literal["intent"]
    view: str


class ExportResultMessage(TypedDict):
    kind: Literal["export_result"]
    request: int
    format: str
    data: str  # base64 (png/jpg) or SVG text


class JsErrorMessage(TypedDict):
    kind: Literal["js_error"]
    message: str


OP_DRAG_MIME = "application/x-dld-op"
