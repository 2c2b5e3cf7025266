/**
 * The Channel Inspector's drawing, apart from the DOM (Python half of the decisions: widgets/analysis/channel_tiles.py).
 *
 * The colour map (seed 001 §4.5.1, red/green): t = clamp((v + shift) × scale, −1, 1); t < 0 is red of intensity −t,
 * t > 0 green of intensity t, 0 black; NaN and ±Inf are blue, so they are never read as a value. Values arrive as
 * float32, or as uint8 codes (value = offset + code × step, 255 non-finite): uint8 tiles paint through a 256-entry
 * lookup table built once per shift/scale, which is what keeps 512 tiles of 28×28 under a frame's budget.
 */

export interface Encoding {
  dtype: "float32" | "uint8";
  offset: number;
  step: number;
}

export interface Layout {
  kind: "tiles" | "strips";
  n: number;
  c: number;
  h: number;
  w: number;
}

export type Values = Float32Array | Uint8Array;

const NON_FINITE = 255;
const NON_FINITE_RGB: [number, number, number] = [40, 90, 255];

/** The typed view of the kernel's buffer (a DataView from anywidget, or an ArrayBuffer). */
export function valuesOf(buffer: DataView | ArrayBuffer | null | undefined, encoding: Encoding): Values {
  if (!buffer) return new Float32Array(0);
  const bytes = buffer instanceof DataView ? buffer : new DataView(buffer);
  if (encoding.dtype === "uint8") return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The value at flat index `i` (NaN for a non-finite uint8 code). */
export function valueAt(values: Values, encoding: Encoding, i: number): number {
  const stored = values[i];
  if (encoding.dtype === "float32") return stored;
  return stored === NON_FINITE ? NaN : encoding.offset + stored * encoding.step;
}

/** The colour of value `v` under `shift` and `scale`. */
export function colourOf(v: number, shift: number, scale: number): [number, number, number] {
  if (!Number.isFinite(v)) return NON_FINITE_RGB;
  const t = Math.max(-1, Math.min(1, (v + shift) * scale));
  const level = Math.round(Math.abs(t) * 255);
  return t < 0 ? [level, 0, 0] : [0, level, 0];
}

/** For uint8 values: RGBA of each code as one 32-bit word (little-endian, as ImageData's bytes are read). */
export function lookupTable(encoding: Encoding, shift: number, scale: number): Uint32Array {
  const table = new Uint32Array(256);
  for (let code = 0; code < 256; code++) {
    const [r, g, b] = colourOf(valueAt(Uint8Array.of(code), encoding, 0), shift, scale);
    table[code] = (255 << 24) | (b << 16) | (g << 8) | r;
  }
  return table;
}

/** Paint `count` values starting at `start` into `pixels` (RGBA, `count` × 4 bytes). */
export function paintInto(
  pixels: Uint8ClampedArray, values: Values, encoding: Encoding, start: number, count: number,
  shift: number, scale: number, table?: Uint32Array,
): void {
  if (encoding.dtype === "uint8") {
    const words = new Uint32Array(pixels.buffer, pixels.byteOffset, count);
    const lut = table ?? lookupTable(encoding, shift, scale);
    for (let i = 0; i < count; i++) words[i] = lut[values[start + i]];
    return;
  }
  for (let i = 0; i < count; i++) {
    const [r, g, b] = colourOf(values[start + i], shift, scale);
    const p = i * 4;
    pixels[p] = r;
    pixels[p + 1] = g;
    pixels[p + 2] = b;
    pixels[p + 3] = 255;
  }
}

/** The CSS size of one tile: small maps enlarged (docked: at most ×4, up to 96 px wide; `large`, the pop-out: at
 *  most ×8, up to 224 px), large ones at 1:1, strips as wide as the view and 14 px high (28 px large). */
export function tileBox(layout: Layout, viewWidth: number, large = false): { width: number; height: number } {
  if (layout.kind === "strips") return { width: Math.max(64, viewWidth - 8), height: large ? 28 : 14 };
  const [most, room] = large ? [8, 224] : [4, 96];
  const zoom = Math.max(1, Math.min(most, Math.floor(room / Math.max(1, layout.w))));
  return { width: layout.w * zoom, height: layout.h * zoom };
}

/** Which tile (n, c) a tile index is, and the readout text for a pointer at (y, x) of it. */
export function readout(layout: Layout, tile: number, y: number, x: number, value: number, quantised: boolean): string {
  const shown = Number.isFinite(value) ? formatValue(value) : String(value);
  const approx = quantised && Number.isFinite(value) ? "≈ " : "";
  if (layout.kind === "strips") return `row ${tile} · index ${x} · ${approx}${shown}`;
  const n = Math.floor(tile / layout.c);
  const c = tile % layout.c;
  return `n ${n}, c ${c} · y ${y}, x ${x} · ${approx}${shown}`;
}

export function formatValue(v: number): string {
  if (v === 0) return "0";
  const a = Math.abs(v);
  return a >= 1e5 || a < 1e-3 ? v.toExponential(3) : Number(v.toPrecision(5)).toString();
}
