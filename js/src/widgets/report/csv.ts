/**
 * The layer table as CSV, cell for cell what dld_jupyter/reports/export.to_csv writes (columns of reports/table.py,
 * times in Python's repr so they read back to the report's numbers), and its download from the browser.
 */
import { ReportData, text } from "./data";
import { pyFloat } from "./format";
import { percentOf } from "./stats";

export const showsProvider = (r: ReportData): boolean => r.summary.backend !== "tensorrt";

export function columns(r: ReportData): string[] {
  const middle = showsProvider(r) ? ["Execution Provider", "Precision"] : ["Precision"];
  return ["#", "Name", "Type", "Input Dimensions", "Output Dimensions", ...middle, "Inference Time (%)", "Inference Time (ms)"];
}

function quote(cell: string): string {
  // Python csv.QUOTE_MINIMAL with the default dialect: quote on delimiter, quote char, CR or LF.
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

export function toCsv(r: ReportData, positions: number[], fullPass: boolean): string {
  const L = r.layers;
  const lines = [columns(r).map(quote).join(",")];
  for (const p of positions) {
    const cells = [String(L.index[p]), L.name[p], text(L.type, p), text(L.inputDims, p), text(L.outputDims, p)];
    if (showsProvider(r)) cells.push(text(L.provider, p));
    cells.push(text(L.precision, p), pyFloat(percentOf(r, p, fullPass)), pyFloat(L.median[p]));
    lines.push(cells.map(quote).join(","));
  }
  return lines.join("\n") + "\n";
}

export function download(filename: string, content: string, type = "text/csv"): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
