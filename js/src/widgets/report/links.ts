/**
 * Layer names link to their ONNX nodes (seed 000 "Name" column). Clicking a name asks the kernel to open (or
 * focus) the designer on the source model and select the layer's nodes; the magnifier of a selected row opens a
 * menu of source nodes (known here), producers of its inputs and consumers of its outputs (asked of the kernel,
 * which reads the model file). The kernel answers problems (no model path, model moved) with a notice.
 */
import { Reply } from "../../common/envelope";
import { ViewContext } from "./context";
import { ReportData } from "./data";
import { el } from "./format";
import { Menu, MenuItem } from "./menu";

/** The data of the kernel's reply to a "links" request. */
interface LinksData { sources: string[]; producers: string[]; consumers: string[] }

export class Links {
  constructor(
    private readonly ctx: ViewContext,
    private readonly data: ReportData,
    private readonly reportIndex: number,
    private readonly menu: Menu,
  ) {}

  /** A name is a link when it names ONNX nodes and the report knows its model (imports may not). */
  linked(pos: number): boolean {
    return Boolean(this.data.summary.model_path) && (this.data.layers.onnxNodes[pos]?.length ?? 0) > 0;
  }

  /** Fills a Name cell: a link when the layer names ONNX nodes, and a magnifier (shown on selected rows). */
  cell(pos: number, cell: HTMLElement): void {
    const name = this.data.layers.name[pos];
    let label = cell.firstChild as HTMLElement | null;
    if (!label) {
      label = el("span");
      const mag = el("button", "dld-r-mag");
      // An SVG magnifier: emoji fonts are missing on many Linux hubs.
      mag.innerHTML = '<svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><circle cx="5" cy="5" r="3.6" fill="none" stroke="currentColor" stroke-width="1.5"/><line x1="7.6" y1="7.6" x2="11" y2="11" stroke="currentColor" stroke-width="1.6"/></svg>';
      mag.title = "ONNX nodes of this layer: sources, producers, consumers";
      mag.type = "button";
      cell.append(label, mag);
    }
    label.className = this.linked(pos) ? "dld-r-link" : "dld-r-name";
    label.textContent = name;
  }

  /** A click in the table: true when it was on a link or the magnifier (then it does not change the selection). */
  click(pos: number, target: HTMLElement): boolean {
    if (target.classList.contains("dld-r-link")) {
      this.open(this.data.layers.onnxNodes[pos], pos);
      return true;
    }
    const mag = target.closest<HTMLElement>(".dld-r-mag");
    if (mag) {
      const r = mag.getBoundingClientRect();
      this.showMenu(pos, r.left, r.bottom);
      return true;
    }
    return false;
  }

  open(nodes: string[], layer: number): void {
    if (!nodes.length) {
      this.ctx.notice(`${this.data.layers.name[layer]}: this layer names no ONNX node`, "warning");
      return;
    }
    this.ctx.send({ kind: "open_nodes", report: this.reportIndex, layer, nodes });
  }

  private items(pos: number, reply: Reply<LinksData> | null): MenuItem[] {
    const section = (title: string, nodes: string[] | null): MenuItem[] => [
      { label: title, header: true },
      ...(nodes === null
        ? [{ label: "loading…" }]
        : nodes.length
          ? nodes.map((n) => ({ label: n, title: `Select ${n} in the designer`, action: () => this.open([n], pos) }))
          : [{ label: "none" }]),
    ];
    const items = [
      ...section("Source nodes", reply?.data?.sources ?? this.data.layers.onnxNodes[pos]),
      ...section("Producers of its inputs", reply ? (reply.data?.producers ?? []) : null),
      ...section("Consumers of its outputs", reply ? (reply.data?.consumers ?? []) : null),
    ];
    if (reply && !reply.ok && reply.error) items.push({ label: reply.error, header: true });
    return items;
  }

  showMenu(pos: number, x: number, y: number): void {
    const box = this.menu.open(x, y, this.items(pos, null));
    box.classList.add("dld-r-links-menu");
    this.ctx
      .request<LinksData>("links", { report: this.reportIndex, layer: pos })
      .then((reply) => {
        if (this.menu.element === box) this.menu.setItems(this.items(pos, reply));
      })
      .catch((error) => this.ctx.notice(String(error), "error"));
  }
}
