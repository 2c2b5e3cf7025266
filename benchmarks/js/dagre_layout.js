// Lays out a graph with dagre (the layered layout Netron draws with): reads {nodes: [{id, w, h}], edges: [[a, b]],
// nodesep, ranksep} as JSON on stdin, writes {id: [x, y]} (centres) and the seconds dagre took. Used by
// benchmarks/real_models_bench.py to compare our layout's crossings and edge length with it on the same graphs.
const dagre = require(process.env.DAGRE_MODULE || "@dagrejs/dagre");
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const spec = JSON.parse(input);
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: spec.nodesep, ranksep: spec.ranksep });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of spec.nodes) g.setNode(n.id, { width: n.w, height: n.h });
  for (const [a, b] of spec.edges) g.setEdge(a, b);
  const start = process.hrtime.bigint();
  dagre.layout(g);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const pos = {};
  for (const id of g.nodes()) pos[id] = [g.node(id).x, g.node(id).y];
  process.stdout.write(JSON.stringify({ pos, seconds }));
});
