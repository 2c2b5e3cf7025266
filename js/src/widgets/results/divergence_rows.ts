/**
 * A divergence run's rows as both of its views show them (the canvas overlay's tooltips, canvas/overlays/
 * divergence.ts; the table in its own tab, divergence_table.ts): their shape, columns, number format and sort. Kept
 * apart so the table's bundle does not carry the canvas.
 */
export type Num = number | string; // non-finite numbers travel as text ("inf", "nan")

export interface DivergenceRow {
  id: string | null;
  node: string;
  op: string;
  order: number;
  output: number;
  max_abs: Num;
  max_rel: Num;
  cosine: Num;
  sqnr: Num;
  nan: number;
  inf: number;
  over: boolean;
  value: Num;
  error: string | null;
  worst: boolean;
}


export const COLUMNS: Array<[keyof DivergenceRow, string]> = [
  ["order", "#"], ["node", "Node"], ["op", "Op"], ["max_abs", "Max abs"], ["max_rel", "Max rel"],
  ["cosine", "Cosine"], ["sqnr", "SQNR dB"], ["nan", "NaN"], ["inf", "Inf"],
];

const num = (v: Num): number => (typeof v === "number" ? v : v === "inf" ? Infinity : v === "-inf" ? -Infinity : NaN);

export function formatCell(v: Num | string | number | boolean | null): string {
  if (typeof v !== "number") return v === null ? "" : String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v); // counts, orders
  return v !== 0 && (Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3) ? v.toExponential(2) : v.toPrecision(4);
}

/** Rows sorted by `key` (numbers numerically, NaN last; text by locale), `ascending` or not. */
export function sortRows(rows: DivergenceRow[], key: keyof DivergenceRow, ascending: boolean): DivergenceRow[] {
  const sign = ascending ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (typeof x === "string" && typeof y === "string" && key !== "max_abs" && key !== "max_rel" && key !== "cosine" && key !== "sqnr") {
      return sign * x.localeCompare(y);
    }
    const p = num(x as Num);
    const q = num(y as Num);
    if (Number.isNaN(p) || Number.isNaN(q)) return Number.isNaN(p) ? (Number.isNaN(q) ? 0 : 1) : -1;
    return sign * (p - q);
  });
}
