/**
 * What the Channel Inspector's kernel half sends (dld_jupyter/widgets/analysis/channel_inspector.py, channel_tiles.py):
 * the synced traits and the tensor's description. Types only, so every part of the view reads the same names.
 */
import type { HistogramMeta } from "./histograms";
import type { Encoding, Layout } from "./paint";

export interface Stats {
  count: number;
  minimum: number | null;
  maximum: number | null;
  mean: number | null;
  std: number | null;
  nan: number;
  inf: number;
}

/** The tensor shown: its shape, how its tiles are laid out, how its values are encoded, its statistics. */
export interface Meta {
  shape: number[];
  dtype: string;
  layout: Layout;
  encoding: Encoding;
  shown: number;
  tiles: number;
  stats: Stats;
  default_shift: number;
  default_scale: number;
}

/** The synced traits. */
export interface InspectorModel {
  title: string;
  message: string;
  meta: Meta | Record<string, never>;
  data: DataView | null;
  shift: number;
  scale: number;
  height: string;
  /** The pop-out: large tiles, each with its histogram (histograms/histogram_data, sent only then). */
  detail: boolean;
  histograms: HistogramMeta | Record<string, never>;
  histogram_data: DataView | null;
  /** Whether the bar shows Pop out (the kernel has somewhere to open the pop-out). */
  poppable: boolean;
}

/** The meta, when the kernel sent a tensor (an empty dict when it shows a message instead). */
export function metaOf(given: InspectorModel["meta"] | undefined): Meta | null {
  return given && "layout" in given ? (given as Meta) : null;
}
