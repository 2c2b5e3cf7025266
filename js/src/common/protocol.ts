/**
 * Messages between the kernel (dld_jupyter/widgets/canvas/protocol.py, same names) and the browser views.
 *
 * The kernel owns the graph: views send intents and apply the patches the kernel answers with.
 * Positions travel as a binary Float32 buffer (x0, y0, x1, y1, ... in the order of the ids listed).
 */

import { Reply, Request } from "./envelope";

export type NodeKind = "op" | "input" | "output" | "group" | "outer"; // outer: a value of the enclosing scope
export type TerminalState = "free" | "linked" | "initializer" | "constant" | "placeholder";
export type Severity = "error" | "warning" | "info";

export interface TerminalData {
  index: number;
  name: string;
  optional: boolean;
  variadic: boolean;
  state: TerminalState;
  value: string | null; // value (tensor) name bound to it
}

export interface NodeData {
  id: string;
  name: string;
  kind: NodeKind;
  op_type: string;
  domain: string;
  category: string;
  composite: boolean;
  function: string | null; // the local function an instance calls (double-click expands its body in place)
  inputs: TerminalData[];
  outputs: TerminalData[];
  parent: string | null; // id of the expanded group (name scope / local function) it is drawn in
  collapsed: boolean; // groups only
  child_count: number; // groups only: nodes inside, recursively
  diagnostic: Severity | null; // worst diagnostic bound to the node
  precision: string | null; // TensorRT layer precision constraint
  hidden_constant: boolean; // a Constant drawn as a mini constant on its consumer's terminal
  subtitle?: string; // the node's name when it says more than its op type, else ""
  detail?: string; // main weight shape and key attributes ("W 64×3×7×7 · k7×7 s2"), else ""
  width: number;
  height: number;
  subgraphs?: string[]; // subgraph attributes of a Loop/If/Scan: "body", "then_branch", "branches[1]"
}

export interface EdgeData {
  id: string;
  source: string;
  source_index: number; // -1: attached to the node's center (groups)
  target: string;
  target_index: number;
  value: string; // tensor name
  label: string | null; // inferred shape, after a successful check
}

export interface GraphSnapshot {
  nodes: NodeData[];
  edges: EdgeData[];
}

/**
 * Kernel -> browser. Buffers: snapshot and add_nodes/move carry the Float32 positions of their nodes / ids.
 * seq: the kernel's sequence number (messages come over the comm and the fast channel; the view applies them in
 * this order).
 */
export type KernelMessage = KernelMessageBody & { seq?: number };

type KernelMessageBody =
  /** loading: the graph is the outline of a big model whose document is still being built in the kernel. */
  | { kind: "snapshot"; version: number; graph: GraphSnapshot; title: string; loading?: boolean }
  | { kind: "loaded"; seconds: number | null }
  | { kind: "load_failed"; message: string }
  | { kind: "patch"; version: number; ops: PatchOp[] }
  | ({
      kind: "reply";
      view?: string | null; // the view that sent the intent
      /** Patches the intent caused, applied before the reply settles; buffer i belongs to patch i. */
      patches?: { kind: "patch"; version: number; ops: PatchOp[] }[];
    } & Reply)
  | { kind: "focus"; ids: string[]; reveal?: boolean }
  | { kind: "ops"; ops: PaletteOp[] }
  | { kind: "export_request"; request: number; format: ExportFormat; background: string; grid: boolean; grid_colour?: string }
  | { kind: "notice"; level: Severity; text: string }
  | OverlayMessage; // an overlay drawn over the graph (widgets/canvas/overlays/)

export type ExportFormat = "png" | "jpg" | "svg";

/** One patch carries at most one positions buffer: the positions of add_nodes (in order) then of move ids. */
export type PatchOp =
  | { op: "add_nodes"; nodes: NodeData[] }
  | { op: "remove_nodes"; ids: string[] }
  | { op: "update_nodes"; nodes: NodeData[] }
  | { op: "add_edges"; edges: EdgeData[] }
  | { op: "remove_edges"; ids: string[] }
  | { op: "update_edges"; edges: EdgeData[] }
  | { op: "move"; ids: string[] };

export interface PaletteOp {
  name: string;
  domain: string;
  category: string;
  summary: string;
}

/** Browser -> kernel. */
export type ViewMessage =
  | { kind: "hello"; view: string; lost?: boolean } // lost: this view's fast channel dropped
  | ({ kind: "intent"; view: string } & Request<IntentAction>)
  | { kind: "attach"; view: string } // over the fast channel: send this view everything from now on over it
  | { kind: "bye"; view: string } // the view was closed
  | { kind: "export_result"; request: number; format: string; data: string } // base64 (png/jpg) or SVG text
  | { kind: "js_error"; message: string }
  | { kind: "hover"; id: string | null } // a read-only canvas's hovered node (its record panel follows it)
  | OverlayMessage; // what the user did on an overlay (the heat legend's close, its metric switch)

/**
 * Both ways: one canvas overlay's message (widgets/canvas/overlays/). `overlay` names the overlay, `action` says what
 * happens ("set" its state, "clear" it; from the browser, what the user did on it); the overlay's own payload comes
 * beside them (e.g. overlays/heat_scale.ts's HeatSetMessage).
 */
export interface OverlayMessage {
  kind: "overlay";
  overlay: string;
  action: string;
  [payload: string]: unknown;
}

export type IntentAction =
  | "add_node"
  | "delete"
  | "connect"
  | "disconnect"
  | "add_graph_input"
  | "add_graph_output"
  | "move" // args.ids; positions in the buffer
  | "rename"
  | "set_attr"
  | "undo"
  | "redo"
  | "save"
  | "arrange"
  | "copy"
  | "cut"
  | "paste"
  | "expand"
  | "collapse"
  | "toggle_constant"
  | "extract"
  | "check"
  | "doc"
  | "ping" // no edit: the comm round trip alone
  | "set_precision" // TensorRT layer precision of args.nodes (null: No Constraint)
  | "trt_inputs" // what the optimization-profile dialog shows
  | "set_trt_profile" // store / clear an optimization profile or use the inferred batch size
  | "subgraph_slots" // args.node: its subgraphs {attribute, index, name, node_count}
  | "open_subgraph" // args.node, attribute, index: opens it in a child designer (the designer's document tabs)
  | "open_function" // args.node: the local function an instance calls, opened in a child designer
  | "create_function_from_selection" // args.nodes, name, domain
  | "inline_function" // args.node: an instance replaced by its function's body
  | "add_analysis_layer"; // args.kind, node, other: an analysis layer after the node, while analysing only

/** The MIME type a palette drags: JSON {name, domain}. */
export const OP_DRAG_MIME = "application/x-dld-op";

/** The palette's Analysis category (analysis layers, dld_jupyter/activities/analysis/layers.py PALETTE_DOMAIN): a
 * drop on a node inserts one after it while analysing, never a node of the model. */
export const ANALYSIS_DOMAIN = "dld.analysis";

/** The DOM event a canvas dispatches (bubbling) when a report's name link focuses it: the JupyterLab designer tab
 * holding it activates itself (js/src/lab/document_tab.ts). */
export const REVEAL_EVENT = "dld-reveal";
