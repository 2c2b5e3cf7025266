import { describe, expect, it } from "vitest";

import { activeAdvancedFilters, defaultQuery, LayerStore, Row } from "./layer_store";
import { LayerColumns } from "./messages";

function columns(rows: Array<[string, string, string, string?, boolean?]>): LayerColumns {
  return {
    ids: rows.map((r) => r[0]),
    names: rows.map((r) => r[1]),
    types: rows.map((r) => r[2]),
    domains: rows.map(() => "ai.onnx"),
    precisions: rows.map((r) => r[3] ?? ""),
    constants: rows.map((r) => r[4] ?? false),
  };
}

const names = (store: LayerStore, rows: Row[]): string[] =>
  rows.map((row) => (row.kind === "group" ? `[${row.type}:${row.count}]` : store.names[row.index]));

function sample(): LayerStore {
  const store = new LayerStore();
  store.load(
    columns([
      ["n1", "conv10", "Conv", "fp16"],
      ["n2", "conv2", "Conv"],
      ["n3", "Relu_1", "Relu"],
      ["n4", "const", "Constant", "", true],
      ["n5", "relu_0", "Relu", "fp32"],
    ]),
  );
  return store;
}

describe("LayerStore", () => {
  it("groups by type in natural name order and hides constants by default", () => {
    const store = sample();
    expect(names(store, store.rows(defaultQuery()))).toEqual([
      "[Conv:2]", "conv2", "conv10", "[Relu:2]", "relu_0", "Relu_1",
    ]);
  });

  it("filters by case-insensitive substring and sorts descending by name", () => {
    const store = sample();
    const rows = store.rows({ ...defaultQuery(), organize: "name", filter: "RELU", descending: true });
    expect(names(store, rows)).toEqual(["Relu_1", "relu_0"]);
  });

  it("applies advanced filters and counts them for the badge", () => {
    const store = sample();
    const query = { ...defaultQuery(), organize: "name" as const, constrainedOnly: true, types: new Set(["Conv"]) };
    expect(names(store, store.rows(query))).toEqual(["conv10"]);
    expect(activeAdvancedFilters(query)).toBe(2);
    expect(activeAdvancedFilters(defaultQuery())).toBe(0);
  });

  it("keeps only the layers an attribute filter matched (the kernel's ids) and counts it", () => {
    const store = sample();
    const query = { ...defaultQuery(), organize: "name" as const, attribute: "group=1", attrIds: new Set(["n2", "n5"]) };
    expect(names(store, store.rows(query))).toEqual(["conv2", "relu_0"]);
    expect(activeAdvancedFilters(query)).toBe(1);
  });

  it("shows constants on request and folds collapsed groups", () => {
    const store = sample();
    const rows = store.rows({ ...defaultQuery(), hideConstants: false, collapsed: new Set(["Conv", "Relu"]) });
    expect(names(store, rows)).toEqual(["[Constant:1]", "const", "[Conv:2]", "[Relu:2]"]);
  });

  it("patches rows in place: removed, renamed and added layers", () => {
    const store = sample();
    store.patch(["n2"], columns([["n3", "a_relu", "Relu"], ["n9", "gemm", "Gemm", "int8"]]));
    const rows = store.rows({ ...defaultQuery(), organize: "name" });
    expect(names(store, rows)).toEqual(["a_relu", "conv10", "gemm", "relu_0"]);
    expect(store.indexOf("n2")).toBeUndefined();
    expect(store.precisionNames()).toEqual(["", "fp16", "fp32", "int8"]);
  });

  it("filters 50,000 layers (the speed is measured by benchmarks/sidebar_bench.py)", () => {
    const store = new LayerStore();
    const n = 50_000;
    store.load(columns(Array.from({ length: n }, (_, i) => [`n${i}`, `/block${i % 500}/Relu_${i}`, i % 2 ? "Relu" : "Add"])));
    store.rows(defaultQuery()); // first call sorts once
    const rows = store.rows({ ...defaultQuery(), filter: "block42/" });
    expect(rows.filter((r) => r.kind === "layer")).toHaveLength(100);
    expect(rows[0]).toEqual({ kind: "group", type: "Add", count: 100, collapsed: false });
  });

  it("keeps the name order right when a patch renames or adds a few layers (no full sort)", () => {
    const store = new LayerStore();
    const rows: Array<[string, string, string]> = [];
    for (let i = 0; i < 300; i++) rows.push([`n${i}`, `layer${(i * 7919) % 300}`, i % 2 ? "Relu" : "Conv"]);
    store.load(columns(rows));
    const query = { ...defaultQuery(), organize: "name" as const };
    store.rows(query); // the order is built once here; patches below must keep it right
    store.patch([], columns([["n5", "aaa_first", "Relu"], ["n9", "zzz_last", "Conv"], ["new1", "layer150b", "Add"]]));
    const fresh = new LayerStore();
    fresh.load({
      ids: store.ids, names: store.names, types: store.types,
      domains: store.ids.map(() => "ai.onnx"), precisions: store.precisions, constants: store.constants,
    });
    expect(names(store, store.rows(query))).toEqual(names(fresh, fresh.rows(query)));
    expect(names(store, store.rows(query))[0]).toBe("aaa_first");
    expect(names(store, store.rows(query)).at(-1)).toBe("zzz_last");
  });
});
