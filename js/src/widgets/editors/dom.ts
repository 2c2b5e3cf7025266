// Small DOM helpers: element builder and a listener registry whose clear() removes every listener it added.

export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, props: Record<string, string | number | boolean | undefined> = {}, ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === false) continue;
    if (k === "class") el.className = String(v);
    else if (k === "text") el.textContent = String(v);
    else if (k === "value") (el as HTMLInputElement).value = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

export class Listeners {
  private entries: [EventTarget, string, EventListener][] = [];
  on<E extends Event>(target: EventTarget, type: string, fn: (e: E) => void): void {
    const listener = fn as EventListener;
    target.addEventListener(type, listener);
    this.entries.push([target, type, listener]);
  }
  private children = new Map<string, Listeners>();
  /** A named sub-registry, cleared on its own (a part re-rendered alone) and whenever this one is cleared. */
  child(name: string): Listeners {
    let found = this.children.get(name);
    if (!found) this.children.set(name, (found = new Listeners()));
    return found;
  }
  clear(): void {
    for (const [t, type, fn] of this.entries) t.removeEventListener(type, fn);
    this.entries = [];
    for (const c of this.children.values()) c.clear();
  }
  get size(): number { let n = this.entries.length; for (const c of this.children.values()) n += c.size; return n; }
}
