/**
 * The Channel Inspector's text about a tensor (pure): the statistics line under its bar.
 */
import { formatValue } from "./paint";
import type { Meta } from "./types";

/** A statistic, or a dash when there is none (no finite value). */
export function valueText(v: number | null): string {
  return v === null ? "—" : formatValue(v);
}

/** The tensor's shape, type and statistics, and what is not shown: tiles past the first `meta.shown`, histograms
 *  past the first `histograms` (the pop-out's; the kernel bins the first 1024 tiles). */
export function statsLine(meta: Meta, histograms?: number): string {
  const s = meta.stats;
  const shape = meta.shape.length ? meta.shape.join("×") : "scalar";
  const odd = s.nan || s.inf ? ` · NaN ${s.nan}, Inf ${s.inf}` : "";
  const part = meta.shown < meta.tiles ? ` · showing the first ${meta.shown} of ${meta.tiles} tiles` : "";
  const binned = histograms !== undefined && histograms < meta.shown ? ` · histograms of the first ${histograms}` : "";
  return `${shape} ${meta.dtype} · min ${valueText(s.minimum)} · max ${valueText(s.maximum)} · mean ${valueText(s.mean)} · std ${valueText(s.std)}${odd}${part}${binned}`;
}
