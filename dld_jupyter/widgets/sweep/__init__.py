"""The sweep viewer of the notebook (`dld.sweep`, `dld.sweep_report`)."""
