/**
 * A new element with a class and text: the one helper the views share to build DOM (text is data, never markup:
 * names from a model file go in as textContent).
 */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls = "", text = ""): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text) node.textContent = text;
  return node;
}
