"""The one escaping helper (formats/html_text.py): text is escaped wherever it goes, markup made here is kept, and
no front door escapes by hand beside it (a second way is where the next unescaped name slips in)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dld_jupyter.formats.html_text import Html, bold, code, fill, join, small, tag, text

PAYLOAD = '"><img src=x onerror=alert(1)>&lt;b&gt;'
ESCAPED = "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;lt;b&amp;gt;"
PACKAGE = Path(__file__).resolve().parents[2] / "dld_jupyter"


def test_text_escapes_markup_characters_and_keeps_markup_made_here() -> None:
    assert text(PAYLOAD) == ESCAPED
    assert text(Path("/m") / PAYLOAD) == "/m/" + ESCAPED
    assert text(ValueError(PAYLOAD)) == ESCAPED
    made = bold(PAYLOAD)
    assert isinstance(made, Html) and text(made) is made  # not escaped twice


def test_elements_escape_their_content_and_attribute_values() -> None:
    assert small(PAYLOAD, " — ", 3) == f"<small>{ESCAPED} — 3</small>"
    assert code(bold("a<b")) == "<code><b>a&lt;b</b></code>"
    html = tag("div", PAYLOAD, class_="dld-x", data_output=PAYLOAD, title=None, open=True)
    assert html == f'<div class="dld-x" data-output="{ESCAPED}" open>{ESCAPED}</div>'
    assert tag("br") == "<br>"  # a void element: `<br></br>` would be read as two line breaks


def test_join_and_fill_escape_every_piece_but_the_template() -> None:
    assert join([PAYLOAD, bold("x")], " <> ") == f"{ESCAPED} &lt;&gt; <b>x</b>"
    assert fill("<b>{}</b> {n:,} {t:.1f} {name}", PAYLOAD, n=12345, t=2.25, name=small("k")) == (
        f"<b>{ESCAPED}</b> 12,345 2.2 <small>k</small>"
    )


@pytest.mark.parametrize("bad", ["scr ipt", "a>", "", "B"])
def test_tag_and_attribute_names_are_checked(bad: str) -> None:
    with pytest.raises(ValueError, match="not an HTML"):
        tag(bad)
    with pytest.raises(ValueError, match="not an HTML attribute"):
        tag("div", **{f"{bad} x": "1"})
    with pytest.raises(ValueError, match="has no content"):
        tag("br", "x")


def test_front_doors_build_html_through_the_helper_only() -> None:
    """`html.escape` (or an `import html`) outside the helper is a second way to build HTML from text."""
    by_hand = re.compile(r"^\s*(import html\b|from html import)", re.MULTILINE)
    offenders = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                 if p.name != "html_text.py" and by_hand.search(p.read_text())]
    assert offenders == [], f"escape through dld_jupyter.formats.html_text instead: {offenders}"
