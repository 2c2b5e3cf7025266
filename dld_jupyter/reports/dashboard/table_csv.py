"""A dashboard table as CSV, cells guarded against formula injection like every CSV the product writes.

Why apart from tables.py: the guard lives in reports/export.py, which imports the HTML page that shows the tables.
"""

from __future__ import annotations

import csv
import io

from dld_jupyter.reports.dashboard.tables import Table, cell_text
from dld_jupyter.reports.export import csv_cell


def table_csv(table: Table) -> str:
    """Header and rows; cells as cell_text writes them (floats with 4 decimals, booleans 1/0, empty for none)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([csv_cell(c) for c in table.columns])
    writer.writerows([csv_cell(cell_text(cell)) for cell in row] for row in table.rows)
    return out.getvalue()
