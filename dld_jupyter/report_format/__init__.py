"""The dld report format: the layer below the activities that write reports and the reports code that reads them.

`model` (the dataclasses), `io` (load/save with clear errors, atomic writes), `validation` (against the shipped
JSON Schema in `schema/`), `passes` (spread and stability of measured passes) and `builder` (the one assembly of a
Report from passes, per-layer records and timeline events, used by every backend and importer).
It imports nothing else of dld_jupyter, and nothing heavy: a GPU host running only the profiler loads it.
docs/report-format.md describes the format.
"""
