"""The dashboard over a report, a sweep or a comparison (seed 004, DLProf Viewer), computed as plain data.

Why a package of its own: the panels (GPU utilization, resource breakdown, kernel time and Tensor Core efficiency,
iterations, top ops, system, recommendations), the tables (op types, ops, kernels, kernels by op) and the views over
many runs are read by every front door — the report viewer's Dashboard tab, `dld report dashboard`, the HTML export —
so they are computed once here, with no Jupyter import. A panel that does not apply to a report is absent with the
reason in words (`Dashboard.absent`); no GPU figure is ever made up for a run that has none.

Modules: `kernels` (the report's kernel records as rows, Tensor Core use), `iterations` (passes, the aggregation
range, idle gaps split into host-bound and GPU-bound), `panels` (`dashboard(report, start, stop)`), `tables`,
`many` (sweep and comparison columns, the GPUs view), `text` (the CLI), `html` (the HTML export).
"""
