/** The Dashboard tab's data as dld_jupyter/reports/dashboard/data.py sends it (same names). */
export type Cell = string | number | boolean | null;
export interface TableData { name: string; columns: string[]; rows: Cell[][] }
export interface Share { label: string; ms: number; percent: number }
export interface IterationData {
  index: number; duration_ms: number | null; in_range: boolean; median: boolean;
  kernels: number | null; tc_kernels: number | null; gpu_ms: number | null; tc_gpu_ms: number | null;
}
export interface RecommendationData { id: string; severity: string; problem: string; advice: string; layers: number[] }
export interface DashboardData {
  title: string; range: [number, number]; passes: number; median_pass: number; warmup_passes: number;
  has_kernels: boolean; summary: [string, string][]; system: [string, string][];
  utilization: Share[]; utilization_source: string; breakdown: Share[]; kernel_time: Share[];
  tc_efficiency: number | null;
  idle: { host_ms: number; gpu_ms: number; host_gaps: number; gpu_gaps: number };
  iterations: IterationData[]; top_ops: TableData | null; top_ops_time: string;
  recommendations: RecommendationData[]; guidance: string[]; absent: Record<string, string>;
  tables: { op_types: TableData; ops: TableData; kernels: TableData };
  kernel_rows: TableData;
}
/** A comparison's dashboard: one column per report, and the GPUs view. */
export interface CompareDashboardData { compare: TableData; gpus: TableData }
export type TabData = DashboardData | CompareDashboardData | Record<string, never>;

export const isCompare = (d: TabData): d is CompareDashboardData => "compare" in d;
export const isSingle = (d: TabData): d is DashboardData => "tables" in d;

/** A cell as text, the way reports/dashboard/tables.py cell_text writes it (CSV matches the kernel's). */
export function cellText(value: Cell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(4);
  return String(value);
}

/** A cell as the table shows it: a flag reads "yes"/"no" on screen (the CSV keeps 1/0, like the kernel's). */
export function shownText(value: Cell): string {
  return typeof value === "boolean" ? (value ? "yes" : "no") : cellText(value);
}

const FORMULA = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Python's csv.writer (QUOTE_MINIMAL) of reports/export.csv_cell: formula-looking names made inert. */
export function tableCsv(columns: string[], rows: Cell[][]): string {
  const cell = (text: string) => {
    const safe = FORMULA.test(text) && !NUMBER.test(text) ? `'${text}` : text;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return [columns, ...rows.map((r) => r.map(cellText))].map((r) => r.map(cell).join(",")).join("\n") + "\n";
}
