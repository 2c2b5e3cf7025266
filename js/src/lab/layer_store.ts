/**
 * The layer explorer's data: columnar rows of the bound designer, patched in place, plus the view query
 * (organize by, sort, filter, advanced filters) turned into the flat list of visible rows.
 * Pure logic with no DOM, so it is unit-tested and fast on 50,000 layers.
 */
import { LayerColumns } from "./messages";

export type Organize = "type" | "name";

export interface LayerQuery {
  organize: Organize;
  descending: boolean;
  filter: string; // case-insensitive substring of the name
  hideConstants: boolean;
  types: Set<string>; // advanced: only these layer types (empty = all)
  precisions: Set<string>; // advanced: only these TRT precisions ("" = no constraint; empty set = all)
  constrainedOnly: boolean; // advanced: only layers with a precision constraint
  attribute: string; // advanced: an attribute filter ("group=1, kernel_shape=[3, 3]"), evaluated by the kernel
  attrIds: Set<string> | null; // the layer ids it kept (null: no attribute filter)
  collapsed: Set<string>; // type groups folded when organizing by type
}

export type Row =
  | { kind: "group"; type: string; count: number; collapsed: boolean }
  | { kind: "layer"; index: number };

export function defaultQuery(): LayerQuery {
  return {
    organize: "type",
    descending: false,
    filter: "",
    hideConstants: true,
    types: new Set(),
    precisions: new Set(),
    constrainedOnly: false,
    attribute: "",
    attrIds: null,
    collapsed: new Set(),
  };
}

/** Number of active advanced filters: the red badge over the gear. */
export function activeAdvancedFilters(query: LayerQuery): number {
  return (query.types.size > 0 ? 1 : 0) + (query.precisions.size > 0 ? 1 : 0) + (query.constrainedOnly ? 1 : 0) +
    (query.attrIds ? 1 : 0);
}

export class LayerStore {
  ids: string[] = [];
  names: string[] = [];
  types: string[] = [];
  precisions: string[] = [];
  constants: boolean[] = [];
  private lowerNames: string[] = [];
  private indexById = new Map<string, number>();
  private order: Int32Array | null = null;

  load(columns: LayerColumns): void {
    this.ids = columns.ids.slice();
    this.names = columns.names.slice();
    this.types = columns.types.slice();
    this.precisions = columns.precisions.slice();
    this.constants = columns.constants.slice();
    this.reindex();
  }

  patch(removed: string[], upsert: LayerColumns): void {
    if (removed.length > 0) {
      const gone = new Set(removed);
      const keep = this.ids.map((id, i) => (gone.has(id) ? -1 : i)).filter((i) => i >= 0);
      this.ids = keep.map((i) => this.ids[i]);
      this.names = keep.map((i) => this.names[i]);
      this.types = keep.map((i) => this.types[i]);
      this.precisions = keep.map((i) => this.precisions[i]);
      this.constants = keep.map((i) => this.constants[i]);
      this.reindex();
    }
    const moved: number[] = []; // layers whose place in the name order may have changed
    upsert.ids.forEach((id, k) => {
      let i = this.indexById.get(id);
      if (i === undefined) {
        i = this.ids.length;
        this.ids.push(id);
        this.indexById.set(id, i);
        moved.push(i);
      } else if (this.names[i] !== upsert.names[k]) {
        moved.push(i);
      }
      this.names[i] = upsert.names[k];
      this.lowerNames[i] = upsert.names[k].toLowerCase();
      this.types[i] = upsert.types[k];
      this.precisions[i] = upsert.precisions[k];
      this.constants[i] = upsert.constants[k];
    });
    if (this.order && moved.length > 0) this.order = this.reorder(this.order, moved);
  }

  get size(): number {
    return this.ids.length;
  }

  indexOf(id: string): number | undefined {
    return this.indexById.get(id);
  }

  /** Layer types present (for the advanced filter list), sorted. */
  typeNames(): string[] {
    return [...new Set(this.types)].sort();
  }

  precisionNames(): string[] {
    return [...new Set(this.precisions)].sort();
  }

  /** The rows to show for a query, in display order. A keystroke is one linear scan: no sort. */
  rows(query: LayerQuery): Row[] {
    const needle = query.filter.trim().toLowerCase();
    const order = this.nameOrder();
    const matches: number[] = [];
    const n = order.length;
    for (let k = 0; k < n; k++) {
      const i = order[query.descending ? n - 1 - k : k];
      if (query.hideConstants && this.constants[i]) continue;
      if (needle && !this.lowerNames[i].includes(needle)) continue;
      if (query.types.size > 0 && !query.types.has(this.types[i])) continue;
      if (query.constrainedOnly && !this.precisions[i]) continue;
      if (query.attrIds && !query.attrIds.has(this.ids[i])) continue;
      if (query.precisions.size > 0 && !query.precisions.has(this.precisions[i])) continue;
      matches.push(i);
    }
    if (query.organize === "name") {
      return matches.map((index) => ({ kind: "layer", index }));
    }
    // Buckets keep the name order of `matches`; only the few type names are sorted.
    const groups = new Map<string, number[]>();
    for (const i of matches) {
      const list = groups.get(this.types[i]);
      if (list) list.push(i);
      else groups.set(this.types[i], [i]);
    }
    const sign = query.descending ? -1 : 1;
    const rows: Row[] = [];
    for (const type of [...groups.keys()].sort((a, b) => sign * compareText(a, b))) {
      const members = groups.get(type) as number[];
      const collapsed = query.collapsed.has(type);
      rows.push({ kind: "group", type, count: members.length, collapsed });
      if (!collapsed) {
        for (const index of members) rows.push({ kind: "layer", index });
      }
    }
    return rows;
  }

  /** Indices sorted by name (natural order), computed once per data change. */
  private nameOrder(): Int32Array {
    if (!this.order) {
      const order = Int32Array.from(this.ids.keys());
      const keys = this.names.map((name) => sortKey(name));
      order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b));
      this.order = order;
    }
    return this.order;
  }

  /**
   * The name order after a few layers were renamed or added: those are taken out and put back by binary search,
   * so an edit costs a linear copy, not a sort of 50,000 names. Many at once (a paste, a transform): sort again.
   */
  private reorder(order: Int32Array, moved: number[]): Int32Array | null {
    if (moved.length > 64) return null;
    const gone = new Set(moved);
    const out = Array.from(order).filter((i) => !gone.has(i));
    const before = (a: number, b: number) => {
      const ka = sortKey(this.names[a]);
      const kb = sortKey(this.names[b]);
      return ka < kb || (ka === kb && a < b);
    };
    for (const i of moved) {
      let lo = 0;
      let hi = out.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (before(out[mid], i)) lo = mid + 1;
        else hi = mid;
      }
      out.splice(lo, 0, i);
    }
    return Int32Array.from(out);
  }

  private reindex(): void {
    this.order = null;
    this.indexById = new Map(this.ids.map((id, i) => [id, i]));
    this.lowerNames = this.names.map((name) => name.toLowerCase());
  }
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

function compareText(a: string, b: string): number {
  return collator.compare(a, b);
}

/** A key whose plain string order is the natural order: case-folded, digit runs zero-padded ("n2" < "n10"). */
function sortKey(name: string): string {
  return name.toLowerCase().replace(/\d+/g, (digits) => digits.padStart(12, "0"));
}
