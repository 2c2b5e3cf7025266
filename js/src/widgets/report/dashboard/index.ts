/**
 * The Dashboard tab of the report viewer (Python: dld_jupyter/widgets/report/report_dashboard.py, computed by
 * dld_jupyter/reports/dashboard/): views Overview, Op Type Summary, Ops and Kernels, Kernels by Op, Iterations; for
 * a comparison, one column per report and the GPUs view. Moving the aggregation range sets the `dashboard_range`
 * trait and the kernel sends the panels again (`dashboard`); the open view stays.
 */
import { ViewContext } from "../context";
import { el } from "../format";
import { Cell, DashboardData, isCompare, isSingle, TabData, TableData } from "./data";
import { iterationBars } from "./iterations";
import { overview } from "./panels";
import { DataTable } from "./table";

const VIEWS = ["Overview", "Op Type Summary", "Ops and Kernels", "Kernels by Op", "Iterations"] as const;
const KERNEL_COLUMNS = ["Kernel Name", "Uses TC", "Memory", "Pass", "Start ms", "GPU ms", "Grid", "Block"];

/** Per-kernel rows of kernel_rows (layer, name, pass, start, duration, tc, memory, grid, block) as a table. */
function kernelRows(data: DashboardData, keep: (row: Cell[]) => boolean, name: string): TableData {
  const rows = data.kernel_rows.rows.filter(keep).map((r) => [r[1], r[5], r[6], r[2], r[3], r[4], r[7], r[8]]);
  return { name, columns: KERNEL_COLUMNS, rows };
}

export class DashboardView {
  readonly root = el("div", "dld-d");
  private view: string;
  private body = el("div", "dld-d-body");

  constructor(host: HTMLElement, private readonly ctx: ViewContext, private data: TabData, view = "Overview") {
    this.view = view;
    host.append(this.root);
    this.render();
  }

  get current(): string {
    return this.view;
  }

  private setRange = (start: number, stop: number): void => {
    this.ctx.model.set("dashboard_range", [start, stop]);
    this.ctx.model.save_changes();
  };

  private render(): void {
    const data = this.data;
    this.root.replaceChildren();
    if (isCompare(data)) {
      this.root.append(el("div", "dld-d-title", "Dashboard per report"));
      this.root.append(new DataTable(this.ctx.listeners, data.compare).root);
      this.root.append(el("div", "dld-d-title", "GPUs"));
      if (data.gpus.rows.length) this.root.append(new DataTable(this.ctx.listeners, data.gpus).root);
      else this.root.append(el("div", "dld-d-absent", "Not shown: none of these runs used a GPU."));
      return;
    }
    if (!isSingle(data)) {
      this.root.append(el("div", "dld-r-empty", "No dashboard."));
      return;
    }
    const nav = el("div", "dld-d-nav");
    for (const name of VIEWS) {
      const b = el("button", name === this.view ? "dld-d-view active" : "dld-d-view", name);
      b.type = "button";
      b.dataset.view = name;
      this.ctx.listeners.dom(b, "click", () => { this.view = name; this.render(); });
      nav.append(b);
    }
    this.root.append(nav, this.body);
    this.body.replaceChildren(this.content(data));
  }

  private content(data: DashboardData): HTMLElement {
    const box = el("div", "dld-d-view-body");
    box.dataset.view = this.view;
    const L = this.ctx.listeners;
    const noKernels = data.has_kernels ? null : el("div", "dld-d-absent",
      `Not shown: ${data.absent.kernel_time ?? data.absent.utilization ?? "no kernel records"}`);
    if (this.view === "Overview") box.append(overview(data, this.setRange));
    else if (this.view === "Op Type Summary") box.append(new DataTable(L, data.tables.op_types).root);
    else if (this.view === "Ops and Kernels") {
      const below = el("div", "dld-d-below");
      const ops = new DataTable(L, data.tables.ops, (row) => {
        const layer = Number(row[0]);
        below.replaceChildren(el("div", "dld-d-title", `Kernels of ${String(row[1])}`),
          new DataTable(L, kernelRows(data, (k) => k[0] === layer, "kernels_of_op")).root);
      });
      box.append(ops.root, below);
      if (noKernels) box.append(noKernels);
      else box.append(el("div", "dld-d-title", "All kernels"), new DataTable(L, data.tables.kernels).root);
    } else if (this.view === "Kernels by Op") {
      if (noKernels) box.append(noKernels);
      const opsBox = el("div", "dld-d-below");
      const kernelsBox = el("div", "dld-d-below");
      const iterations: TableData = {
        name: "iterations", columns: ["Iteration", "Duration ms", "Total Kernels", "TC Kernels", "GPU ms", "TC GPU ms", "Counted"],
        rows: data.iterations.map((i) => [i.index, i.duration_ms, i.kernels, i.tc_kernels, i.gpu_ms, i.tc_gpu_ms, i.in_range]),
      };
      box.append(new DataTable(L, iterations, (row) => {
        const pass = Number(row[0]);
        const inPass = data.kernel_rows.rows.filter((k) => k[2] === pass);
        const layers = [...new Set(inPass.map((k) => Number(k[0])))];
        const opRows = layers.map((layer) => {
          const op = data.tables.ops.rows.find((r) => r[0] === layer);
          const own = inPass.filter((k) => k[0] === layer && !k[6]); // kernels: memcpy/memset listed below, not counted
          const gpu = own.reduce((s, k) => s + Number(k[4]), 0);
          const tc = own.filter((k) => k[5]).reduce((s, k) => s + Number(k[4]), 0);
          return [layer, op ? op[1] : "(no op)", op ? op[2] : "", own.length, own.filter((k) => k[5]).length, gpu, tc] as Cell[];
        });
        opsBox.replaceChildren(el("div", "dld-d-title", `Ops in iteration ${pass}`), new DataTable(L, {
          name: "ops_in_iteration", columns: ["#", "Op Name", "Op Type", "Total Kernels", "TC Kernels", "GPU ms", "TC GPU ms"], rows: opRows,
        }, (op) => {
          const layer = Number(op[0]);
          kernelsBox.replaceChildren(el("div", "dld-d-title", `Kernels of ${String(op[1])} in iteration ${pass}`),
            new DataTable(L, kernelRows(data, (k) => k[2] === pass && k[0] === layer, "kernels_in_op")).root);
        }).root);
        kernelsBox.replaceChildren();
      }).root, opsBox, kernelsBox);
    } else {
      box.append(iterationBars(data, this.setRange, 900, 220));
      const below = el("div", "dld-d-below");
      const rows: TableData = {
        name: "iterations", columns: ["Iteration", "Duration ms", "Total Kernels", "TC Kernels", "GPU ms", "TC GPU ms", "Counted", "Median pass"],
        rows: data.iterations.map((i) => [i.index, i.duration_ms, i.kernels, i.tc_kernels, i.gpu_ms, i.tc_gpu_ms, i.in_range, i.median]),
      };
      box.append(new DataTable(L, rows, (row) => {
        const pass = Number(row[0]);
        below.replaceChildren(el("div", "dld-d-title", `Kernels in iteration ${pass}`),
          new DataTable(L, kernelRows(data, (k) => k[2] === pass, "kernels_in_iteration")).root);
      }).root, below);
      if (noKernels) box.append(noKernels);
    }
    return box;
  }

  update(data: TabData): void {
    this.data = data;
    this.render();
  }
}
