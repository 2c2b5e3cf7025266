import { beforeAll, describe, expect, it } from "vitest";

import { renderDoc } from "./doc_markdown";
import type { OperatorEntry } from "./operator_docs";

// jsdom has no DragEvent, which @lumino/dragdrop (imported by @lumino/widgets) subclasses when it loads.
(globalThis as unknown as { DragEvent: unknown }).DragEvent ??= class extends MouseEvent {};
let od: typeof import("./operator_docs");
beforeAll(async () => {
  od = await import("./operator_docs");
});

const entry = (name: string, domain = "ai.onnx", category = "Math"): OperatorEntry => ({
  name, domain, since_version: 1, category, deprecated: false, summary: "",
});

const HOSTILE = '<img src=x onerror="window.owned=1"><script>window.owned=2</script>';

describe("operator documentation", () => {
  it("finds exact names first, then prefixes, then the rest", () => {
    const entries = [entry("ConvTranspose"), entry("QLinearConv"), entry("Conv", "com.microsoft.nchwc"), entry("Conv"), entry("Relu")];
    expect(od.filterOperators(entries, "conv").map((e) => `${e.domain}/${e.name}`)).toEqual([
      "com.microsoft.nchwc/Conv", "ai.onnx/Conv", "ai.onnx/ConvTranspose", "ai.onnx/QLinearConv",
    ]);
    expect(od.filterOperators(entries, "nchwc").map((e) => e.name)).toEqual(["Conv"]);
    expect(od.filterOperators(entries, " ")).toHaveLength(5);
  });

  it("renders the schemas' Markdown with text nodes only", () => {
    const host = document.createElement("div");
    host.append(renderDoc(`Intro with \`code\` and **bold**, [onnx](https://onnx.ai/) and [bad](javascript:alert(1)).<br>Next
\`\`\`
y = x * 2 <b>
\`\`\`
* one ${HOSTILE}
* two
  continued

${HOSTILE}`));
    expect(host.querySelector("code")?.textContent).toBe("code");
    expect(host.querySelector("strong")?.textContent).toBe("bold");
    const links = [...host.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://onnx.ai/"]);
    expect(links[0].rel).toBe("noopener noreferrer");
    expect(host.querySelector("p")?.textContent).toContain("[bad](javascript:alert(1))");
    expect(host.querySelectorAll("br")).toHaveLength(1);
    expect(host.querySelector("pre")?.textContent).toBe("y = x * 2 <b>");
    expect([...host.querySelectorAll("li")].map((li) => li.textContent)).toEqual([`one ${HOSTILE}`, "two continued"]);
    expect(host.querySelectorAll("img, script, b")).toHaveLength(0);
    expect(host.textContent).toContain(HOSTILE);
  });

  it("shows an operator's attributes, inputs and type constraints, and a hostile schema as text", async () => {
    const version = {
      since_version: 11, deprecated: false, doc: "Convolves.",
      inputs: [{ name: "X", type: "T", types: ["tensor(float)"], optional: false, variadic: false, doc: "data" }],
      outputs: [{ name: HOSTILE, type: "T", types: [], optional: true, variadic: false, doc: HOSTILE }],
      attributes: [
        { name: "kernel_shape", type: "INTS", required: false, default: null, doc: "The shape." },
        { name: "group", type: "INT", required: false, default: "1", doc: "Groups." },
      ],
      type_constraints: [{ name: "T", types: ["tensor(float)", "tensor(double)"], doc: "Float tensors." }],
      inputs_range: [1, 1] as [number, number], outputs_range: [0, 2147483647] as [number, number],
    };
    const view = od.renderVersion(version);
    const terms = [...view.querySelectorAll("dt")].map((dt) => dt.textContent);
    expect(terms).toContain("kernel_shape : ints (optional)");
    expect(terms).toContain("group : int (default 1)");
    expect(terms).toContain("X : T");
    expect(terms).toContain(`${HOSTILE} : T (optional)`);
    expect(terms).toContain("T : tensor(float), tensor(double)");
    expect(view.textContent).toContain("Outputs (0 or more)");
    expect(view.querySelectorAll("img, script")).toHaveLength(0);

    const asked: unknown[] = [];
    const panel = new od.OperatorDocsPanel(async (query) => {
      asked.push(query);
      return query ? { name: "Conv", domain: "ai.onnx", category: "Convolution", versions: [version, { ...version, since_version: 1 }] } : [entry("Conv"), entry("Relu")];
    });
    await panel.ready;
    expect(panel.node.querySelectorAll(".dld-docs-item")).toHaveLength(2);
    await panel.showOperator("Conv");
    expect(asked[1]).toEqual({ name: "Conv", domain: "ai.onnx" });
    expect(panel.node.querySelector(".dld-docs-title")?.textContent).toBe("Conv");
    expect([...panel.node.querySelectorAll(".dld-docs-version-button")].map((b) => b.textContent)).toEqual(["11", "1"]);
    expect(panel.node.querySelector(".dld-docs-current")?.getAttribute("data-name")).toBe("Conv");

    // the keyboard alone: into the list, down to Relu, Enter shows it
    document.body.append(panel.node);
    const key = (target: Element, k: string) => target.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
    key(panel.node.querySelector(".dld-docs-search") as Element, "ArrowDown");
    expect((document.activeElement as HTMLElement).dataset.name).toBe("Conv");
    key(document.activeElement as Element, "ArrowDown");
    expect((document.activeElement as HTMLElement).dataset.name).toBe("Relu");
    key(document.activeElement as Element, "Enter");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(asked[asked.length - 1]).toEqual({ name: "Relu", domain: "ai.onnx" });
    expect(panel.node.querySelector(".dld-docs-current")?.getAttribute("aria-selected")).toBe("true");
    key(document.activeElement as Element, "ArrowUp");
    key(document.activeElement as Element, "ArrowUp");
    expect(document.activeElement?.classList.contains("dld-docs-search")).toBe(true);
    panel.node.remove();
  });
});
