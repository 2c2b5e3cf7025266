import { describe, expect, it } from "vitest";

// jsdom has no DragEvent, which @lumino/dragdrop (imported by @lumino/widgets) subclasses when it loads.
(globalThis as unknown as { DragEvent: unknown }).DragEvent ??= class extends MouseEvent {};

describe("subgraph and local-function commands", () => {
  it("name kernel operations", async () => {
    const { CHILD_COMMANDS, ChildCommandIds } = await import("./child_commands");
    expect(CHILD_COMMANDS.map(([id]) => id)).toEqual(Object.values(ChildCommandIds));
    expect(CHILD_COMMANDS.map(([id, name]) => [id, name])).toContainEqual(["dld:local-functions", "local_functions"]);
    expect(CHILD_COMMANDS.map(([, name]) => name)).toEqual(
      ["local_functions", "function_settings", "extract_model_subgraph", "confirm_edits", "close_child"],
    );
  }, 60_000); // the first import of @jupyterlab/* modules takes seconds on a loaded machine
});
