/** Number formatting: readable times for the UI, and Python's repr(float) for CSV cells (so they match the kernel's). */

/** Python's repr of a float: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expText] = x.toExponential().split("e"); // toExponential() without digits: shortest round trip
  const exp = Number(expText);
  const sign = mant.startsWith("-") ? "-" : "";
  const digits = mant.replace("-", "").replace(".", "");
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** A time in ms with about 4 significant digits, in the unit that reads best (ns, µs, ms, s). */
export function ms(value: number): string {
  const a = Math.abs(value);
  if (a === 0) return "0 ms";
  if (a < 1e-3) return `${(value * 1e6).toPrecision(3)} ns`;
  if (a < 1) return `${(value * 1e3).toPrecision(4)} µs`;
  if (a < 1000) return `${value.toPrecision(4)} ms`;
  return `${(value / 1000).toPrecision(4)} s`;
}

/** A fixed-unit table cell: ms with 4 decimals. */
export const msCell = (value: number): string => value.toFixed(4);
export const pctCell = (value: number): string => value.toFixed(2);

export function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${u ? v.toFixed(1) : v} ${units[u]}`;
}

export { el } from "../../common/dom";
