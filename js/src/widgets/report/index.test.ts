// Mounts the report viewer in jsdom on a real payload (fixtures/selection_case.json, written by the Python test),
// exercises filter, selection, timeline zoom and menus, unmounts it, and checks that every listener is gone.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel as TestModel, installCanvasStandIns, installListenerCensus, ListenerCensus } from "../../common/testing";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import widget from "./index";

const fixture = JSON.parse(readFileSync(join(__dirname, "fixtures", "selection_case.json"), "utf8"));
const bytes = Uint8Array.from(Buffer.from(fixture.data, "base64"));

class FakeModel extends TestModel {
  state: Record<string, unknown> = {
    payload: fixture.payload, data: new DataView(bytes.buffer), height: "auto", heat: true, full_pass: false,
    filter: "", selection: [], baseline: 0, error: "",
  };
}


describe("report viewer lifecycle", () => {
  let census: ListenerCensus;
  beforeEach(() => {
    census = installListenerCensus();
    installCanvasStandIns();
  });
  afterEach(() => vi.restoreAllMocks());

  it("renders, filters, selects, zooms, and removes every listener on cleanup", async () => {
    const model = new FakeModel();
    const el = document.createElement("div");
    document.body.appendChild(el);
    const before = census.total();
    const cleanup = widget.render({ model, el } as never) as () => void;
    const root = el.querySelector(".dld-report") as HTMLElement;
    expect(root.dataset.ready).toBe("1");
    expect(model.sent.filter((m) => m.kind === "js_error")).toEqual([]);
    const rows = () => [...el.querySelectorAll<HTMLElement>(".dld-vt-row")].filter((r) => r.style.display !== "none");
    expect(rows().length).toBe(16);
    const input = el.querySelector<HTMLInputElement>(".dld-r-filter")!;
    input.value = "RELU";
    input.dispatchEvent(new Event("input"));
    expect(rows().every((r) => r.textContent!.toLowerCase().includes("relu"))).toBe(true);
    expect(rows().length).toBe(3);
    input.value = "";
    input.dispatchEvent(new Event("input"));
    const click = (pos: number, init: MouseEventInit = {}) =>
      rows().find((r) => r.dataset.pos === String(pos))!.querySelector(".dld-vt-td")!.dispatchEvent(new MouseEvent("click", { bubbles: true, ...init }));
    click(1);
    click(4, { shiftKey: true });
    click(3, { ctrlKey: true });
    expect(el.querySelector<HTMLElement>(".dld-r-selsum")!.dataset.count).toBe("3");
    rows().find((r) => r.dataset.pos === "5")!.dispatchEvent(new MouseEvent("dblclick", { bubbles: true }));
    const tl = el.querySelector<HTMLElement>(".dld-r-timeline")!;
    expect(tl.dataset.focus).toBe("5");
    // Hover on the GPU metric row (below the stream row) shows the real value of the nearest sample.
    const canvas = el.querySelector(".dld-r-tl-canvas")!;
    canvas.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: 120 + 340, clientY: 22 + 26 + 10 }));
    expect(el.querySelector(".dld-r-tip")!.textContent).toMatch(/^SM Utilization: 80 %/);
    el.querySelector(".dld-r-tl-canvas")!.dispatchEvent(new MouseEvent("contextmenu", { bubbles: true, clientX: 200, clientY: 30 }));
    expect(el.querySelector(".dld-r-menu")).not.toBeNull();
    el.querySelector<HTMLElement>(".dld-r-link")!.click();
    expect(model.sent.some((m) => m.kind === "open_nodes")).toBe(true);
    model.emit("msg:custom", { kind: "notice", level: "error", text: "no model" });
    expect(el.querySelector(".dld-r-notice.error")!.textContent).toBe("no model");
    model.emit("change:payload"); // a rebuild disposes the old parts' listeners
    await new Promise((r) => setTimeout(r, 20));
    expect(census.total()).toBeGreaterThan(before);
    cleanup();
    expect(model.count()).toBe(0);
    expect(census.leftovers()).toEqual([]);
    expect(el.children.length).toBe(0);
  });

  it("shows the kernel's error instead of a report", () => {
    const model = new FakeModel();
    model.state.payload = { version: 1, reports: [], compare: null };
    model.state.error = "Cannot open the report: '/no/such.json' does not exist";
    const el = document.createElement("div");
    const cleanup = widget.render({ model, el } as never) as () => void;
    expect(el.querySelector(".dld-r-error")!.textContent).toContain("does not exist");
    expect(el.querySelector(".dld-report")!.getAttribute("data-ready")).toBe("1");
    cleanup();
    expect(model.count()).toBe(0);
  });
});
