/** The recommendations of dld_jupyter/reports/recommendations.py (problem + advice); clicking one selects its layers. */
import { ViewContext } from "./context";
import { RecommendationPayload } from "./data";
import { el } from "./format";

export function recommendationsView(ctx: ViewContext, items: RecommendationPayload[], select: (layers: number[]) => void): HTMLElement {
  const root = el("details", "dld-r-recs");
  root.open = items.some((r) => r.severity === "warning");
  root.append(el("summary", "", `Recommendations (${items.length})`));
  if (!items.length) root.append(el("div", "dld-r-empty", "Nothing to recommend from this report's numbers."));
  for (const r of items) {
    const row = el("div", `dld-r-rec ${r.severity}`);
    row.dataset.id = r.id;
    row.append(el("div", "dld-r-rec-problem", `${r.severity === "warning" ? "⚠" : "ℹ"} ${r.problem}`), el("div", "dld-r-rec-advice", r.advice));
    if (r.layers.length) {
      const b = el("button", "dld-r-rec-select", `Select ${r.layers.length} layer${r.layers.length > 1 ? "s" : ""}`);
      b.type = "button";
      ctx.listeners.dom(b, "click", () => select(r.layers));
      row.append(b);
    }
    root.append(row);
  }
  return root;
}
