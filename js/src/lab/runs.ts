/**
 * The sidebar's Runs section (seed 001's Inference Run Logger): this kernel's live and past runs of every kind,
 * newest first, each with its kind, model, where it ran, state and progress, the report's median, when it started
 * and how long it took, Cancel while it is live, buttons opening its artifacts, and the `dld` command line that
 * reproduces it, shown and copyable. A sweep lists its points under it.
 *
 * State Python knows: the rows (dld_jupyter/lab/runs_feed.py sends them whole; this view never edits them).
 * State Python never sees: which sweeps are unfolded. Names, paths, errors and commands are put in as text
 * (textContent), never markup. A row whose data did not change keeps its element, so a command being selected
 * stays selected while another run's progress moves.
 */
import { RunRow } from "./messages";

export interface RunsCallbacks {
  cancel(id: string): void;
  open(id: string, name: string, point: string | null): void;
  copy(text: string): void;
}

const OPEN_LABELS: Record<string, string> = {
  report: "Open report",
  layer_info: "Open engine graph",
  model: "Open model",
  folder: "Show folder",
};

export function basename(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return "";
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

export function formatMedian(ms: number | null): string {
  return ms === null ? "" : `median ${ms < 10 ? ms.toFixed(3) : ms.toFixed(1)} ms`;
}

export function formatStarted(epochSeconds: number | null): string {
  return epochSeconds === null ? "" : new Date(epochSeconds * 1000).toLocaleTimeString();
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(label: string, title: string, onClick: () => void): HTMLButtonElement {
  const node = el("button", "dld-Explorer-button dld-Runs-action", label);
  node.title = title;
  node.onclick = (event) => {
    event.stopPropagation();
    onClick();
  };
  return node;
}

export class RunsList {
  readonly node: HTMLDivElement;
  private readonly list: HTMLDivElement;
  private readonly note: HTMLDivElement;
  private readonly shown = new Map<string, { data: string; node: HTMLElement }>();
  private readonly unfolded = new Set<string>();

  constructor(private readonly callbacks: RunsCallbacks) {
    this.node = el("div", "dld-Runs");
    this.note = el("div", "dld-Runs-note");
    this.list = el("div", "dld-Runs-list");
    this.node.append(this.note, this.list);
  }

  /** No kernel to ask (no tab, or a kernel without dld_jupyter): say so and show nothing. */
  setUnavailable(text: string): void {
    this.shown.clear();
    this.list.replaceChildren();
    this.note.textContent = text;
    this.note.hidden = false;
  }

  setRows(rows: RunRow[]): void {
    this.note.hidden = rows.length > 0;
    this.note.textContent = "No runs yet: profile, export, sweep, diverge or analyse a model and it shows here.";
    const kept = new Map<string, { data: string; node: HTMLElement }>();
    const nodes = rows.map((row) => {
      const data = JSON.stringify(row) + (this.unfolded.has(row.id) ? "+" : "");
      const old = this.shown.get(row.id);
      const entry = old && old.data === data ? old : { data, node: this.renderRow(row) };
      kept.set(row.id, entry);
      return entry.node;
    });
    this.shown.clear();
    kept.forEach((value, key) => this.shown.set(key, value));
    this.list.replaceChildren(...nodes);
  }

  private renderRow(row: RunRow, sweep: RunRow | null = null): HTMLElement {
    const node = el("div", `dld-Runs-row dld-mod-${row.state.replace(/\s+/g, "-")}`);
    node.dataset.run = row.id;
    node.dataset.kind = row.kind;
    const head = el("div", "dld-Runs-head");
    head.append(el("span", "dld-Runs-kind", row.kind), el("span", "dld-Runs-state", this.stateText(row)));
    node.append(head);
    if (row.model) {
      const title = el("div", "dld-Runs-model", basename(row.model));
      title.title = row.model;
      node.append(title);
    }
    const where = [row.runtime, row.target, row.device].filter(Boolean).join(" · ");
    const when = [formatStarted(row.started), formatDuration(row.duration_s), formatMedian(row.median_ms)];
    node.append(el("div", "dld-Runs-meta", [where, ...when].filter(Boolean).join(" · ")));
    if (row.live && row.fraction !== null) node.append(this.progress(row));
    // why it failed in red; why it was cancelled in grey, and not at all when that only repeats the state
    if (row.error && row.state !== "succeeded" && row.error !== row.state) {
      node.append(el("div", row.state === "failed" ? "dld-Runs-error" : "dld-Runs-unsaid", row.error));
    }
    if (row.command) node.append(el("code", "dld-Runs-commandText", row.command));
    for (const note of row.unsaid) node.append(el("div", "dld-Runs-unsaid", note));
    const actions = el("div", "dld-Runs-actions");
    if (row.command) actions.append(this.copy(row.command));
    if (row.live && !sweep) actions.append(button("Cancel", "Cancel this run", () => this.callbacks.cancel(row.id)));
    for (const [name, path] of Object.entries(row.artifacts)) {
      const label = OPEN_LABELS[name];
      if (!label) continue;
      actions.append(
        button(label, path, () => this.callbacks.open(sweep ? sweep.id : row.id, name, sweep ? row.id : null)),
      );
    }
    if (row.points.length) actions.append(this.unfold(row));
    if (actions.childElementCount) node.append(actions);
    for (const [name, path] of Object.entries(row.artifacts)) {
      if (!OPEN_LABELS[name]) node.append(el("div", "dld-Runs-path", `${name}: ${path}`));
    }
    if (row.points.length && this.unfolded.has(row.id)) {
      const points = el("div", "dld-Runs-points");
      points.append(...row.points.map((point) => this.renderRow(point, row)));
      node.append(points);
    }
    return node;
  }

  private progress(row: RunRow): HTMLElement {
    const bar = el("div", "dld-Runs-progress");
    const fill = el("div", "dld-Runs-progressFill");
    fill.style.width = `${Math.round(100 * (row.fraction ?? 0))}%`;
    bar.append(fill);
    bar.title = `${Math.round(100 * (row.fraction ?? 0))}% ${row.phase}`;
    return bar;
  }

  private copy(text: string): HTMLButtonElement {
    const copy = button("Copy command", "Copy the command line that runs this again from a terminal", () => {
      this.callbacks.copy(text);
      copy.textContent = "Copied";
      window.setTimeout(() => (copy.textContent = "Copy command"), 1500);
    });
    copy.classList.add("dld-Runs-copy");
    return copy;
  }

  private stateText(row: RunRow): string {
    return row.live && row.fraction !== null ? `${row.state} ${Math.round(100 * row.fraction)}%` : row.state;
  }

  private unfold(row: RunRow): HTMLButtonElement {
    const open = this.unfolded.has(row.id);
    return button(open ? "Hide points" : `Points (${row.points.length})`, "Show or hide the sweep's points", () => {
      if (open) this.unfolded.delete(row.id);
      else this.unfolded.add(row.id);
      this.rerender(row);
    });
  }

  private rerender(row: RunRow): void {
    const entry = this.shown.get(row.id);
    if (!entry) return;
    const node = this.renderRow(row);
    entry.node.replaceWith(node);
    this.shown.set(row.id, { data: JSON.stringify(row) + (this.unfolded.has(row.id) ? "+" : ""), node });
  }
}
