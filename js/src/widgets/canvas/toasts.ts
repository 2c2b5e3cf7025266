/** Short messages over the canvas (errors from the kernel, notices); click to dismiss. */
export class Toasts {
  readonly el: HTMLDivElement;

  constructor(parent: HTMLElement) {
    this.el = document.createElement("div");
    this.el.className = "dld-toasts";
    parent.appendChild(this.el);
  }

  show(text: string, level: "error" | "warning" | "info" = "info", ms = level === "error" ? 8000 : 3000): void {
    const toast = document.createElement("div");
    toast.className = `dld-toast dld-toast-${level}`;
    toast.textContent = text;
    toast.onclick = () => toast.remove(); // element-owned: removed with the toast
    this.el.appendChild(toast);
    setTimeout(() => toast.remove(), ms);
    while (this.el.children.length > 4) this.el.firstElementChild?.remove();
  }

  dispose(): void {
    this.el.remove();
  }
}
