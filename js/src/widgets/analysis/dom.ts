/**
 * What the analysis widgets' views share: building an element whose text is data (never markup), and redrawing
 * once per burst of synced changes (the kernel sends a widget's traits together; one draw after the last).
 */

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text = ""): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

interface Listenable {
  on(name: string, fn: () => void): void;
  off(name: string, fn: () => void): void;
}

/** Call `draw` now and once after each burst of the model's `events` while `root` is in the page; the returned
 *  function detaches the listeners. */
export function redrawOn(model: Listenable, events: string[], root: HTMLElement, draw: () => void): () => void {
  let queued = false;
  let live = true;
  const queue = (): void => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      if (live) draw();
    });
  };
  events.forEach((name) => model.on(name, queue));
  draw();
  return () => {
    live = false;
    events.forEach((name) => model.off(name, queue));
    root.remove();
  };
}
