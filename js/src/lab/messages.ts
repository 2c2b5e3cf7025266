/** Messages of the sidebar comm (kernel side: dld_jupyter/lab/kernel_sidebar.py, same names). A command is a
 * request of the shared envelope (common/envelope.ts) naming a registered operation (dld_jupyter/frontdoor/
 * operations.py); the kernel answers it with a reply. */

import { Reply, Request } from "../common/envelope";

export const SIDEBAR_TARGET = "dld_jupyter.sidebar";
/** The DL Designer side bar's widget id (sidebar.ts), which layouts name as the left side bar's panel. */
export const SIDEBAR_ID = "dld-jupyter-sidebar";

export interface LayerColumns {
  ids: string[];
  names: string[];
  types: string[];
  domains: string[];
  precisions: string[];
  constants: boolean[];
}

export interface PaletteEntry {
  name: string;
  domain: string;
  category: string;
  since_version: number;
  summary: string;
  function: boolean;
}

export interface DesignerItem {
  model_id: string;
  title: string;
  path: string;
}

export type SidebarCommand =
  | "save"
  | "undo"
  | "redo"
  | "arrange"
  | "check"
  | "profile"
  | "export_image"
  | "show_node_data"
  | "clear_overlays"
  | "show_grid"
  | "show_constants"
  | "save_as"
  | "global_modifications"
  | "convert_fp16"
  | "sanitize"
  | "convert_tensors"
  | "custom_tools"
  | "run_user_tool"
  | "trt_dialog" // args {dialog: "precision" | "profile", nodes}: the designer's canvas opens that dialog
  | "export_engine" // the Designer's Export TensorRT Engine panel
  | "local_functions" // the Model Local Functions window
  | "function_settings" // Local Function Settings of the function being edited
  | "extract_model_subgraph" // the Extract Model Subgraph dialog
  | "confirm_edits" // Confirm Subgraph / Local Function Edits of the document shown
  | "close_child" // close the subgraph / function document shown
  | "compare_with" // args {path}: the structural diff of that model against the designer's, on its canvas
  | "check_against_original" // the divergence of the edited model against its saved file, on its canvas
  | "manage_connections" // the Manage Remote Connections panel in the designer's dock
  | "sweep" // the Sweep form for the designer's saved model, in its dock
  | "launch_analysis" // Launch Analysis: the designer's Analysis panel, the model read-only until Stop
  | "stop_analysis" // Stop Analysis: back to editing
  | "add_breakpoint" // args {nodes}: as the canvas menu's Add Breakpoint (launches the analysis if needed)
  | "remove_breakpoint" // args {nodes}: as the canvas menu's Remove Breakpoint
  | "add_analysis_layer" // args {kind, nodes?}: an analysis layer after the node(s) (none: the selection), analysing only
  | "save_layout" // args {name, shell}: the dock's arrangement (and JupyterLab's side bars) kept under a name
  | "apply_layout" // args {name}: the dock arranged as that saved layout
  | "reset_layout" // the default arrangement of the dock
  | "delete_layout" // args {name}: forget that saved layout
  | "dock_side"; // args {side: "right" | "bottom"}: the dock beside or below the canvas

/** One run of the Runs section (dld_jupyter/frontdoor/run_rows.py `RunRow.to_json`): names and paths are text. */
export interface RunRow {
  id: string;
  kind: string;
  model: string;
  runtime: string;
  target: string;
  device: string;
  state: string;
  fraction: number | null;
  phase: string;
  median_ms: number | null;
  started: number | null; // seconds since the epoch
  duration_s: number | null;
  error: string | null;
  artifacts: Record<string, string>; // name (report, engine, layer_info, model, tensors, folder) -> path
  command: string; // the shell command that reproduces the run ("" when none does)
  unsaid: string[]; // what the run did that the command does not say
  live: boolean;
  points: RunRow[]; // a sweep's points
}

export type ToKernel =
  | { kind: "hello"; candidates: string[] }
  | { kind: "bind"; model_id: string }
  | { kind: "unbind" }
  | { kind: "select"; ids: string[] }
  | { kind: "focus"; id: string }
  | ({ kind: "command" } & Request<SidebarCommand>)
  | { kind: "settings"; color_scheme: string; hide_constants: boolean; auto_check_threshold: number }
  | { kind: "add_node"; op: string; domain: string }
  | { kind: "attr_filter"; request: number; expression: string }
  // send the runs now and whenever they change (dld_jupyter/lab/runs_feed.py); root: PageConfig's serverRoot
  | { kind: "runs_watch"; root: string }
  | { kind: "run_cancel"; id: string }
  | { kind: "run_open"; id: string; name: string; point: string | null };

export type FromKernel =
  | { kind: "designers"; items: DesignerItem[] }
  | {
      kind: "state";
      model_id: string;
      title: string;
      path: string;
      opsets: Record<string, number>;
      palette: PaletteEntry[];
      layers: LayerColumns;
      selection: string[];
      breakpoints: string[]; // the analysis's breakpoints (badged rows), none when not analysing
    }
  | { kind: "loading"; model_id: string; title: string; path: string } // bound once its model has loaded: state follows
  | { kind: "layers_patch"; removed: string[]; upsert: LayerColumns }
  | { kind: "selection"; ids: string[] }
  | { kind: "breakpoints"; ids: string[] } // the analysis's breakpoints (none when not analysing): badged rows
  | ({ kind: "reply" } & Reply)
  | { kind: "error"; message: string }
  | { kind: "runs"; rows: RunRow[] }
  // an artifact to open in its own tab (a folder: in the file browser), by its path relative to the server's root
  // kernel_dir: the kernel's working folder under the server's root (a tab on the kernel reads paths from there)
  | { kind: "open_file"; artifact: string; file: string; kernel_dir: string };

/** MIME type of a palette drag; the canvas adds the operator at the drop point. */
export const OP_DRAG_MIME = "application/x-dld-op";
