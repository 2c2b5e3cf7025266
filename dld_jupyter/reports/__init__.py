"""Profiling reports as data: the format (`model`, `io`, `validation`), importers (`trtexec`, `ort_trace`, `open`),
and what the viewer and the CLI compute from a report (`stats`, `table`, `passes`, `compare`, `recommendations`,
`export`). No Jupyter or plotting import anywhere here; docs/report-format.md describes the format and modules.

Nothing is imported eagerly: the profiler (activities) imports only `model` and `io`, and stays light.
"""
