"""Where text becomes HTML: the one place a name, a path or a message is escaped before a widget shows it as markup.

Why: ipywidgets' `HTML` widget (and anything else that sets `innerHTML`) runs what it is given. A model saved as
`<img src=x onerror=alert(1)>.onnx`, or inside a folder named so, ran script in the Jupyter origin (where script can
drive the user's kernels) because the designer's status line, the Profile and Export panels put file names and paths
into their markup as they were (issue 31). Each widget escaping by hand missed some; here markup is built from
pieces, and only pieces built here stay markup: everything else (str, Path, numbers, exceptions) is escaped.

    status.value = small(doc.name, " — ", str(doc.path))        # <small>&lt;img …&gt;.onnx — /x/&lt;img …</small>
    error.value = tag("div", message, class_="dld-error", style="color:#b91c1c")
    banner.value = fill("<b>{name}</b> is read-only: {why}", name=title, why=reason)

Standard library only (the `formats` layer), so the notebook widgets, the JupyterLab tabs and the report's HTML
export share it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape

__all__ = ["Html", "bold", "code", "fill", "join", "small", "tag", "text"]

_TAG_NAME = re.compile(r"[a-z][a-z0-9]*\Z")
_ATTRIBUTE_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")
_VOID = frozenset({"br", "hr", "wbr"})  # elements without content or end tag (`</br>` would be a second <br>)


class Html(str):
    """Markup made by this module (its text already escaped): kept as is when it is put into more markup."""

    __slots__ = ()


def text(value: object) -> Html:
    """`value` as HTML text: `<`, `>`, `&` and quotes escaped; markup made here (an `Html`) is kept as it is."""
    if isinstance(value, Html):
        return value
    return Html(escape(str(value), quote=True))


def join(parts: Iterable[object], separator: object = "") -> Html:
    """The parts one after the other, each escaped unless made here, with `separator` (text too) between them."""
    return Html(text(separator).join(text(part) for part in parts))


def tag(name: str, *content: object, **attributes: object) -> Html:
    """`<name attributes>content</name>`; content and attribute values are text (escaped) unless made here.

    Attribute names are Python keywords: `class_="x"` writes `class="x"`, `data_output="y"` writes
    `data-output="y"`; a value of None or False leaves the attribute out, True writes it bare (`open`)."""
    if not _TAG_NAME.match(name):
        raise ValueError(f"not an HTML tag name: {name!r} (lower-case letters and digits)")
    opening = name + "".join(_attribute(key, value) for key, value in attributes.items())
    if name in _VOID:
        if content:
            raise ValueError(f"<{name}> has no content")
        return Html(f"<{opening}>")
    return Html(f"<{opening}>{join(content)}</{name}>")


def _attribute(key: str, value: object) -> str:
    name = key.rstrip("_").replace("_", "-")
    if not _ATTRIBUTE_NAME.match(name):
        raise ValueError(f"not an HTML attribute name: {key!r}")
    if value is None or value is False:
        return ""
    if value is True:
        return f" {name}"
    return f' {name}="{text(value)}"'


def bold(*content: object) -> Html:
    """`<b>…</b>` around the content (text escaped)."""
    return tag("b", *content)


def small(*content: object) -> Html:
    """`<small>…</small>` around the content (text escaped)."""
    return tag("small", *content)


def code(*content: object) -> Html:
    """`<code>…</code>` around the content (text escaped)."""
    return tag("code", *content)


def fill(template: str, /, *args: object, **kwargs: object) -> Html:
    """`template.format(...)` with every argument escaped unless made here; numbers keep their format spec
    (`{count:,}`). The template is markup written in this package's code, never a name or a message."""
    return Html(template.format(*(_value(a) for a in args), **{k: _value(v) for k, v in kwargs.items()}))


def _value(value: object) -> object:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value  # a number is text without markup characters; kept so `{:,}` and `{:.1f}` still apply
    return text(value)
