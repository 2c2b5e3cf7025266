"""The base of our anywidgets: the front-end bundle named once, and unknown keyword arguments refused once.

Why: each widget class found its bundle its own way (the report viewer with a second ``static/`` path of its own),
and a misspelt keyword was refused by three hand-written checks (canvas, editor panels, report viewer) with three
different messages, while the log view, the dock splitter and the engine canvas handed ``heigth=`` on to traitlets,
which ignores it with a DeprecationWarning nobody sees. lonboard's habit, taken here: a class names its bundle
(``class LogView(DldWidget, bundle="log_view")``) and the keywords it takes beyond its ``__init__`` parameters
(``keywords = ("height", "layout")``); the base refuses anything else before the widget is built, with the closest
name as a hint. ``check_keywords`` is the same check for the functions and containers that take ``**options``.

Our ipywidgets containers (dialogs, panels, the designer) inherit ``DldVBox`` or ``DldHBox``: ipywidgets ships no type
information, so mypy sees ``w.VBox`` as ``Any`` and each subclass needed its own ignore comment; here the two bases
carry it once. A container names its CSS classes on the class (``class RunPanel(DldVBox, css="dld-run-panel")``,
inherited classes first), and the base adds them when it is built, as ``bundle=`` does for the anywidgets.
``action_button`` is the panels' button: a label, an icon, a tooltip, a CSS class to find it by, and its action.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import anywidget
import ipywidgets as w
from typing_extensions import Self

from dld_jupyter.widgets import bundles, subshell_routes

subshell_routes.install()  # our widgets' clicks reach the kernel after the sidebar's subshell is gone


def action_button(label: str, icon: str, tip: str, action: Callable[[], object], css: str) -> w.Button:
    button = w.Button(description=label, icon=icon, tooltip=tip, layout=w.Layout(width="auto"))
    button.add_class(css)
    button.on_click(lambda _b: action())
    return button


def check_keywords(owner: str, given: Iterable[str], accepted: Sequence[str]) -> None:
    """Raise TypeError naming the first of ``given`` that ``owner`` does not take, the closest name and the list."""
    for key in given:
        if key not in accepted:
            close = difflib.get_close_matches(key, accepted, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else "."
            raise TypeError(f"{owner} got an unknown argument {key!r}{hint} It takes: {', '.join(accepted)}.")


def _parameters(cls: type[Any]) -> list[str]:
    """The named parameters of ``cls.__init__`` (not ``self``, ``*args`` or ``**kwargs``)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return [p.name for p in parameters if p.kind in kinds]


class DldWidget(anywidget.AnyWidget):
    """An anywidget whose class names its bundle and whose constructor refuses keywords it does not take."""

    keywords: ClassVar[tuple[str, ...]] = ()  # synced traits a caller may set by keyword, beyond __init__'s names
    _accepted: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, bundle: str = "", **kwargs: Any) -> None:
        if bundle:  # before anywidget's hook, which reads the class's own _esm and _css
            cls._esm = bundles.bundle(f"{bundle}.js")
            cls._css = bundles.bundle(f"{bundle}.css") if (bundles.STATIC / f"{bundle}.css").is_file() else ""
        super().__init_subclass__(**kwargs)
        cls._accepted = tuple(dict.fromkeys([*_parameters(cls), *cls.keywords]))

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        check_keywords(cls.__name__, kwargs, cls._accepted)  # what the caller passed, before __init__ adds its own
        widget: Self = super().__new__(cls, *args, **kwargs)
        return widget


class _Classes:
    """The CSS classes a container class names (``css="a b"``), after those of its bases: its DOM classes at start."""

    css_classes: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, css: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.css_classes = tuple(dict.fromkeys([*cls.css_classes, *css.split()]))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in self.css_classes:
            self.add_class(name)

    if TYPE_CHECKING:  # ipywidgets' DOMWidget.add_class, which follows this class in a container's MRO

        def add_class(self, className: str) -> Any: ...


class DldVBox(_Classes, w.VBox):  # type: ignore[misc]  # ipywidgets ships no type information: the one ignore here
    """A column of widgets: our dialogs, panels and the designer."""


class DldHBox(_Classes, w.HBox):  # type: ignore[misc]  # as DldVBox
    """A row of widgets (the run progress bar)."""
