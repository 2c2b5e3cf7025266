"""What a designer's first view makes in ipywidgets, bounded: each widget is a comm opened, its state sent, a model
and a view made in the page before the canvas draws (issue 42: 114 for one designer, 70 now). The toolbar's buttons
share one Layout and one ButtonStyle, and the comparisons' job is made when first used, then shown under the
toolbar; both still work."""

from __future__ import annotations

from pathlib import Path

from ipywidgets.widgets.widget import _instances  # what `ipywidgets.Widget.widgets` returns (deprecated name)

from dld_jupyter.widgets.designer.designer import open_designer

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


def test_a_first_view_makes_at_most_75_widgets_and_the_job_when_first_used() -> None:
    before = set(_instances)
    designer = open_designer(MODEL)
    try:
        made = [widget for key, widget in _instances.items() if key not in before]
        assert len(made) <= 75, sorted(type(widget).__name__ for widget in made)
        assert not any(type(widget).__name__ == "Job" for widget in made)
        buttons = [child for child in designer.toolbar.children if type(child).__name__ == "Button"]
        assert len(buttons) > 10 and len({id(b.layout) for b in buttons}) <= 2  # the Launch Analysis button's own
        # A shared layout and style still lay the buttons out and take a click.
        undo = next(b for b in buttons if b.description == "Undo")
        node = designer.document.nodes()[0]
        designer.document.rename_node(node.id, "renamed")
        undo.click()
        assert designer.document.node(node.id).name != "renamed"

        job = designer.compare_job  # made now, placed under the toolbar, hidden until a check starts
        parts = list(designer.children)
        assert parts.index(job) == parts.index(designer.ask) + 1 and job.error in parts
        assert job.layout.display == "none" and designer.compare_job is job
    finally:
        designer.close()
