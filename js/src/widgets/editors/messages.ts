// Shapes of the editor panels' synced state and intents (Python half: dld_jupyter/widgets/editors/*.py).

export interface FieldError { message: string; excerpt: string; caret: number }

export interface AttributeRow {
  name: string; type: string; required: boolean; set: boolean; mixed: boolean; text: string;
  default_text: string; editable: boolean; list: boolean; doc: string; choices: [string, string][] | null;
  /** GRAPH / GRAPHS attributes: their subgraphs (index null for a GRAPH). */
  subgraphs?: { index: number | null; name: string; node_count: number }[];
  /** Every subgraph of the node, by its position in subgraph_slots (what "duplicate of" names). */
  duplicates?: { slot: number; label: string }[];
  /** In a local function document: the function parameter it references, and [parameter, compatible] pairs. */
  ref?: string | null; ref_choices?: [string, boolean][];
  /** While analysing: an analysis override holds this value (the running session only, never saved). */
  override?: boolean;
}

/** view["function"] (dld_jupyter/widgets/editors/function_view.py): the function document's parameters, or for a
 * selected instance the values it passes. */
export interface FunctionParam { name: string; type: string; default_text: string; set: boolean; text?: string }
export interface FunctionInfo { title?: string; instance_of?: string; parameters: FunctionParam[] }

export interface ModelInfo {
  ir_version: number; opsets: { domain: string; version: number }[]; producer_name: string;
  producer_version: string; domain: string; model_version: number; doc_string: string; graph_name: string;
  graph_doc_string: string; metadata: { key: string; value: string }[];
}

export type ParamsState = (
  | { mode: "model"; model: ModelInfo }
  | {
      mode: "nodes"; ids: string[]; name: string | null; title: string; op_type: string | null; domain: string;
      since_version: number | null; doc: string; attributes: AttributeRow[]; defaults: AttributeRow[];
    }
  /** A graph input or output (dld_jupyter/widgets/editors/io_types.py): its name, element type and shape text. */
  | { mode: "io"; ids: string[]; kind: "input" | "output"; name: string; dtype: string; shape: string; dtypes: string[] }
) & {
  function?: FunctionInfo | null; in_function?: boolean; // in_function: a local function document
  /** The model view of a subgraph / function document: what it is, the outer values it reads. */
  child?: { kind: string; title: string; outer: string[]; confirm: string };
};

export interface InitItem {
  id: string; name: string; dtype: string; shape: number[]; size: number; external: boolean;
  location: string | null; users: number;
}

export interface Terminal {
  index: number; name: string; state: string; value_id: string | null; value_name: string | null; optional: boolean;
}

export interface InitsState {
  items: InitItem[];
  node: { id: string; name: string; op_type: string; terminals: Terminal[] } | null;
  dtypes: string[]; generators: Record<string, string[]>; generator_labels: Record<string, string>;
  model_dir: string | null; previews?: Record<string, string>;
}

export interface TensorState {
  open: boolean; target?: { value_id: string | null; node_id: string | null; attribute: string | null };
  name?: string; dtype?: string; shape?: number[]; size?: number; editable?: boolean;
  external?: { location: string; offset: number; length: number | null } | null; text?: string;
  sparse?: { values: string; indices: string; dense_shape: string } | null; targets?: string[];
  is_initializer?: boolean;
  /** While analysing: the values shown are an analysis override (the running session only, never saved). */
  override?: boolean;
}

export interface CheckItem {
  severity: "error" | "warning" | "info"; message: string; node_id: string | null; node_name: string;
  fix_hint: string; source: string;
}

export interface ChecksState {
  running: boolean; lint_running: boolean; automatic: boolean; checked: boolean; stale: boolean; items: CheckItem[];
}

export interface Notice { kind?: "info" | "warning" | "error"; text?: string }

/** Everything the browser sends (as the action and args of an envelope request, PanelContext.send); `key` names
 * the field whose inline error the answer sets or clears. */
export type Intent = { kind: string; key?: string; [field: string]: unknown };
