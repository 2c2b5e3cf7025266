/** The dashboard's category colours: Tensor Core kernels, other kernels, memory, host, idle (every panel alike). */
// Okabe-Ito, as everywhere in the viewer; one colour per category on every panel (DLProf: colours match).
export const CATEGORY = { tc: "#009E73", kernels: "#56B4E9", memory: "#0072B2", host: "#E69F00", idle: "#CC79A7" };

export function colourFor(label: string): string {
  const l = label.toLowerCase();
  if (l.includes("tensor core")) return CATEGORY.tc;
  if (l.includes("memory")) return CATEGORY.memory;
  if (l.includes("host") || l.includes("cpu")) return CATEGORY.host;
  if (l.includes("idle") || l.includes("other (outside")) return CATEGORY.idle;
  return CATEGORY.kernels; // other kernels, Using GPU
}
