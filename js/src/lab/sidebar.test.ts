import type { Widget as LuminoWidget } from "@lumino/widgets";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";

import type { FromKernel } from "./messages";
import type { DesignerSidebar as Sidebar } from "./sidebar";

// JupyterLab's clipboard, dialogs and icons load web components jsdom cannot run; the sidebar's drawing needs none
vi.mock("@jupyterlab/apputils", () => ({ Clipboard: { copyToSystem: () => undefined }, Dialog: {}, showDialog: () => undefined }));
vi.mock("@jupyterlab/ui-components", () => ({ LabIcon: class { constructor(readonly options: unknown) {} } }));

let DesignerSidebar: typeof Sidebar;
let Widget: typeof LuminoWidget;
type DesignerSidebar = Sidebar;

beforeAll(async () => {
  // jsdom has no DragEvent, which JupyterLab's drag and drop (imported by the sidebar's clipboard) extends
  const scope = globalThis as unknown as { DragEvent?: unknown };
  scope.DragEvent ??= class extends MouseEvent {};
  ({ Widget } = await import("@lumino/widgets"));
  ({ DesignerSidebar } = await import("./sidebar"));
});

const STATE: FromKernel = {
  kind: "state", model_id: "m1", title: "resnet", path: "resnet.onnx", opsets: { "": 17 },
  palette: [{ name: "Conv", domain: "", category: "Convolution", since_version: 11, summary: "", function: false }],
  layers: { ids: ["n1", "n2"], names: ["conv", "relu"], types: ["Conv", "Relu"], domains: ["", ""],
    precisions: ["", ""], constants: [false, false] },
  selection: [], breakpoints: [],
};

function receive(sidebar: DesignerSidebar, message: FromKernel): void {
  (sidebar as unknown as { onMessage(m: FromKernel): void }).onMessage(message);
}

const count = (sidebar: DesignerSidebar) => sidebar.node.querySelector(".dld-Explorer-count")?.textContent ?? "";
const paletteItems = (sidebar: DesignerSidebar) => sidebar.node.querySelectorAll(".dld-Palette-item").length;

describe("sidebar drawing", () => {
  afterEach(() => document.body.replaceChildren());

  it("draws a designer's layers and palette only once it is shown, with the latest data", () => {
    const sidebar = new DesignerSidebar();
    Widget.attach(sidebar, document.body);
    sidebar.hide();
    receive(sidebar, STATE);
    expect(sidebar.isBound).toBe(true); // bound at once: commands reach the designer while the panel is hidden
    expect(count(sidebar)).toBe("");
    expect(paletteItems(sidebar)).toBe(0);
    receive(sidebar, { kind: "layers_patch", removed: [], upsert: { ids: ["n3"], names: ["add"], types: ["Add"],
      domains: [""], precisions: [""], constants: [false] } });
    expect(count(sidebar)).toBe("");
    sidebar.show();
    expect(count(sidebar)).toBe("3 of 3 layers");
    expect(paletteItems(sidebar)).toBe(1);
    sidebar.dispose();
  });

  it("draws at once while shown", () => {
    const sidebar = new DesignerSidebar();
    Widget.attach(sidebar, document.body);
    receive(sidebar, STATE);
    expect(count(sidebar)).toBe("2 of 2 layers");
    expect(paletteItems(sidebar)).toBe(1);
    sidebar.dispose();
  });
});
