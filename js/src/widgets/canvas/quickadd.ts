/** Quick add (Ctrl+Space): a searchable op list; arrows move, Enter adds the op under the pointer, Esc closes. An
 * entry of the Analysis category (analysis layers) goes after the node under the pointer, as a palette drop there. */
import { ANALYSIS_DOMAIN } from "../../common/protocol";
import type { CanvasContext } from "./context";
import { analysisDrop } from "./interactions";

const MAX_ROWS = 12;

export class QuickAdd {
  private panel: HTMLDivElement | null = null;

  constructor(private readonly ctx: CanvasContext) {}

  get isOpen(): boolean {
    return this.panel !== null;
  }

  open(): void {
    this.close();
    const ctx = this.ctx;
    const at = { ...ctx.pointer };
    const panel = document.createElement("div");
    panel.className = "dld-quickadd";
    const input = document.createElement("input");
    input.placeholder = "Add operator…";
    input.className = "dld-quickadd-input";
    const list = document.createElement("div");
    list.className = "dld-quickadd-list";
    panel.append(input, list);
    const rendered = ctx.cy.pan();
    const zoom = ctx.cy.zoom();
    panel.style.left = `${Math.max(4, Math.min(at.x * zoom + rendered.x, ctx.cy.width() - 260))}px`;
    panel.style.top = `${Math.max(4, Math.min(at.y * zoom + rendered.y, ctx.cy.height() - 280))}px`;
    let active = 0;
    let matches = ctx.ops;
    const refresh = () => {
      const q = input.value.trim().toLowerCase();
      matches = ctx.ops.filter((o) => o.name.toLowerCase().includes(q) || o.domain.toLowerCase().includes(q));
      // Exact and prefix matches first: typing "conv" must offer Conv before ConvInteger.
      matches.sort((a, b) => rank(a.name, q) - rank(b.name, q) || a.name.localeCompare(b.name));
      active = Math.min(active, Math.max(matches.length - 1, 0));
      list.replaceChildren(
        ...matches.slice(0, MAX_ROWS).map((o, i) => {
          const row = document.createElement("div");
          row.className = "dld-quickadd-row" + (i === active ? " active" : "");
          row.textContent = o.domain ? `${o.name}  (${o.domain})` : o.name;
          row.title = o.summary;
          row.onmousedown = (e) => {
            e.preventDefault();
            active = i;
            choose();
          };
          return row;
        }),
      );
    };
    const choose = () => {
      const op = matches[active];
      this.close();
      if (op && op.domain === ANALYSIS_DOMAIN) void ctx.channel.intent("add_analysis_layer", { kind: op.name, ...analysisDrop(ctx, at) });
      else if (op) void ctx.channel.intent("add_node", { op_type: op.name, domain: op.domain, x: at.x, y: at.y });
    };
    // Handlers are properties of elements the panel owns: removing the panel removes them.
    input.oninput = () => {
      active = 0;
      refresh();
    };
    input.onkeydown = (e) => {
      if (e.key === "ArrowDown") active = Math.min(active + 1, Math.min(matches.length, MAX_ROWS) - 1);
      else if (e.key === "ArrowUp") active = Math.max(active - 1, 0);
      else if (e.key === "Enter") return choose();
      else if (e.key === "Escape") {
        this.close();
        ctx.root.focus();
        return;
      } else return;
      e.preventDefault();
      refresh();
    };
    input.onblur = () => setTimeout(() => this.close(), 150);
    ctx.root.appendChild(panel);
    this.panel = panel;
    refresh();
    input.focus();
  }

  close(): void {
    this.panel?.remove();
    this.panel = null;
  }
}

function rank(name: string, q: string): number {
  const n = name.toLowerCase();
  return n === q ? 0 : n.startsWith(q) ? 1 : 2;
}
