"""The widgets base (widgets/widget_base.py): every anywidget of the package names its bundle through it and refuses
a keyword it does not take, with the closest name as a hint, before the widget is built. The log view, the dock
splitter and the engine canvas used to hand a misspelt ``heigth=`` on to traitlets, which only warned."""

from __future__ import annotations

import importlib
import pkgutil

import anywidget
import ipywidgets as w
import pytest

import dld_jupyter.widgets
from dld_jupyter.widgets.widget_base import DldHBox, DldVBox, DldWidget, check_keywords


def _all_subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_all_subclasses(sub)}
    return found


def _package_widgets() -> list[type]:
    for module in pkgutil.walk_packages(dld_jupyter.widgets.__path__, "dld_jupyter.widgets."):
        importlib.import_module(module.name)
    ours = [c for c in _all_subclasses(anywidget.AnyWidget) if c.__module__.startswith("dld_jupyter.")]
    return sorted(ours, key=lambda c: c.__qualname__)


WIDGETS = _package_widgets()


def test_every_anywidget_of_the_package_stands_on_the_base() -> None:
    assert len(WIDGETS) >= 8  # canvas base, graph and engine canvases, editors, report, log view, dock splitter
    assert [c.__name__ for c in WIDGETS if not issubclass(c, DldWidget)] == []
    for cls in WIDGETS:
        if cls is not DldWidget:
            assert "export" in str(cls._esm), f"{cls.__name__} has no front-end bundle"


@pytest.mark.parametrize("cls", [c for c in WIDGETS if c is not DldWidget], ids=lambda c: c.__name__)
def test_a_misspelt_keyword_is_refused_with_a_hint(cls: type[DldWidget]) -> None:
    name = cls.keywords[0]
    hint = f"{cls.__name__} got an unknown argument '{name[:-1]}'; did you mean '{name}'"
    with pytest.raises(TypeError, match=hint):
        cls(**{name[:-1]: 1})


def test_the_refusal_lists_what_the_widget_takes() -> None:
    from dld_jupyter.widgets.tools.log_view import LogView

    with pytest.raises(TypeError, match=r"It takes: limit, interval, height, layout\."):
        LogView(colour="red")
    assert LogView(limit=10, height="50px").height == "50px"


def test_check_keywords_for_functions_that_take_options() -> None:
    check_keywords("f", ["a"], ("a", "b"))
    with pytest.raises(TypeError, match=r"f got an unknown argument 'zz'\. It takes: a, b\."):
        check_keywords("f", ["a", "zz"], ("a", "b"))


def test_every_container_of_the_package_stands_on_the_typed_bases() -> None:
    """Dialogs, panels and the designer inherit DldVBox / DldHBox: the one place that types ipywidgets' boxes."""
    _package_widgets()  # imports every widgets module
    ours = [c for c in _all_subclasses(w.Box) if c.__module__.startswith("dld_jupyter.")]
    assert len(ours) >= 12
    assert [c.__qualname__ for c in ours if not issubclass(c, (DldVBox, DldHBox))] == []


def test_a_container_carries_the_css_classes_its_classes_name() -> None:
    class Dialog(DldVBox, css="dld-dialog"):
        pass

    class Named(Dialog, css="dld-named dld-dialog"):
        def __init__(self) -> None:
            super().__init__([w.HTML("x")], layout=w.Layout(width="100%"))
            self.add_class("dld-late")

    built = Named()
    assert built._dom_classes == ("dld-dialog", "dld-named", "dld-late")
    assert built.layout.width == "100%" and len(built.children) == 1
    assert Dialog()._dom_classes == ("dld-dialog",)

    class Row(DldHBox, css="dld-row"):
        pass

    assert isinstance(Row(), w.HBox) and Row()._dom_classes == ("dld-row",)
