"""The base of our anywidgets: the front-end bundle named once, and unknown keyword arguments refused once.

Why: each widget class found its bundle its own way (the report viewer with a second ``static/`` path of its own),
and a misspelt keyword was refused by three hand-written checks (canvas, editor panels, report viewer) with three
different messages, while the log view, the dock splitter and the engine canvas handed ``heigth=`` on to traitlets,
which ignores it with a DeprecationWarning nobody sees. lonboard's habit, taken here: a class names its bundle
(``class LogView(DldWidget, bundle="log_view")``) and the keywords it takes beyond its ``__init__`` parameters
(``keywords = ("height", "layout")``); the base refuses anything else before the widget is built, with the closest
name as a hint. ``check_keywords`` is the same check for the functions and containers that take ``**options``.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import anywidget
from typing_extensions import Self

from dld_jupyter.widgets import bundles


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
