"""What is computed from a report: importers (`trtexec`, `ort_trace`, `open`), and what the viewer and the CLI show
(`stats`, `table`, `compare`, `recommendations`, `export`). No Jupyter or plotting import anywhere here.

The report format itself (model, io, validation, the builder) is `dld_jupyter.report_format`, a layer below the
activities that write reports; docs/report-format.md describes both.
"""
