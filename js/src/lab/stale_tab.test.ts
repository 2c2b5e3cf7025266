import { describe, expect, it } from "vitest";

import { causeOfStatus, STALE_BANNER_CLASS, staleOverlay, staleText } from "./stale_tab";

const DIRTY = { name: "model.onnx", file: "work/model.onnx", dirty: true, document: true };

describe("stale designer tab", () => {
  it("takes a dead, restarting or auto-restarting kernel for a stale view, nothing else", () => {
    expect(causeOfStatus("dead")).toBe("died");
    expect(causeOfStatus("restarting")).toBe("restarted");
    expect(causeOfStatus("autorestarting")).toBe("restarted");
    for (const status of ["idle", "busy", "starting", "unknown", "terminating"]) expect(causeOfStatus(status)).toBeNull();
  });

  it("says the unsaved edits are lost and the file on disk is unchanged", () => {
    const text = staleText("shut-down", DIRTY);
    expect(text.title).toBe("The kernel of this tab was shut down");
    expect(text.detail).toContain("the edits made since the last save are lost");
    expect(text.detail).toContain("can no longer be edited or saved");
    expect(text.detail).toContain("model.onnx on disk is unchanged");
    expect(text.caption).toContain("The unsaved edits are lost.");
    expect(text.save).toBe(
      "The kernel of this tab was shut down, and the model shown here lived in it: its unsaved edits are lost. " +
        "model.onnx on disk is unchanged (as last saved): Reopen opens it on a new kernel.",
    );
    expect(text.reopen).toBe("Reopen model.onnx");
  });

  it("says nothing was lost for a clean model, and tells a never-saved model from a report", () => {
    const clean = staleText("restarted", { ...DIRTY, dirty: false });
    expect(clean.detail).toContain("Nothing was lost");
    expect(clean.caption).not.toContain("lost.");
    const untitled = staleText("died", { name: "untitled.onnx", file: "", dirty: true, document: true });
    expect(untitled.detail).toContain("was never saved: its edits are lost");
    expect(untitled.detail).not.toContain("on disk");
    expect(untitled.reopen).toBe("New Model");
    const report = staleText("replaced", { name: "r.json", file: "r.json", dirty: false, document: false });
    expect(report.detail).toContain("no longer responds");
    expect(report.detail).not.toContain("edited or saved");
  });

  it("shows a hostile file name as text, and its buttons act", () => {
    const name = "<img src=x onerror=alert(1)>.onnx";
    const acted: string[] = [];
    const veil = staleOverlay(staleText("died", { ...DIRTY, name, file: name }), {
      reopen: () => acted.push("reopen"),
      close: () => acted.push("close"),
    });
    document.body.append(veil);
    expect(veil.querySelector("img")).toBeNull();
    const banner = veil.querySelector(`.${STALE_BANNER_CLASS}`);
    expect(banner?.getAttribute("role")).toBe("alert");
    expect(banner?.textContent).toContain(`${name} on disk is unchanged`);
    const buttons = [...veil.querySelectorAll("button")];
    expect(buttons.map((b) => b.textContent)).toEqual([`Reopen ${name}`, "Close"]);
    buttons.forEach((b) => b.click());
    expect(acted).toEqual(["reopen", "close"]);
    expect(veil.tabIndex).toBe(-1); // focusable: Ctrl+S pressed over the stale view reaches the tab
    veil.remove();
  });
});
