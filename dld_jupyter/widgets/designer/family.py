"""The document tabs of a designer (seed 000: subgraphs and local functions open "in separate document tabs").

The root Designer (a model) hosts every child designer opened from it or from its children (a Loop body, an If
branch inside it, a local function): a strip of tabs with a breadcrumb above the canvas ("model ▸ Loop_12 ▸ body"),
one tab per open document, the shown one highlighted; a child's tab has × (which asks about unconfirmed edits).
Only one document is shown at a time; the others stay rendered but hidden, so switching back keeps the viewport.
The same strip works in a notebook cell and in a DL Designer document tab (both show the root Designer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import ipywidgets as w

from dld_jupyter.formats.html_text import join, small, tag
from dld_jupyter.widgets.closing import replace_children


class Member(Protocol):
    """What the family needs of a designer."""

    parent_designer: Any
    layout: Any

    @property
    def document(self) -> Any: ...

    def own_parts(self) -> list[w.Widget]: ...

    def refresh_banner(self) -> None: ...

    def request_close(self) -> None: ...

    def close(self) -> None: ...


def _title(designer: Member) -> str:
    doc = designer.document
    title = getattr(doc, "title", None) or doc.name
    dirty = " •" if doc.dirty else ""
    return f"{title}{dirty}"


def _crumb(designer: Member) -> str:
    """A child's title past its parent's ("Loop_12 ▸ body" of "model / Loop_12 / body"), or the model's name."""
    title = str(getattr(designer.document, "title", "") or designer.document.name)
    parent = designer.parent_designer
    if parent is None:
        return title
    above = str(getattr(parent.document, "title", "") or parent.document.name)
    rest = title[len(above) + 3 :] if title.startswith(above + " / ") else title
    return rest.replace(" / ", " ▸ ")


class Family:
    """The root designer's open documents: the root first, then children in opening order."""

    def __init__(self, root: Member, relayout: Callable[[], None]) -> None:
        self.root = root
        self.members: list[Member] = [root]
        self.active: Member = root
        self._relayout = relayout
        self._listeners: list[Callable[[Member], None]] = []
        self.bar = w.VBox(layout=w.Layout(width="100%", display="none"))
        self.bar.add_class("dld-doc-tabs")
        self._shown: list[Member] = []  # the members the strip's buttons were made for, in order
        self._buttons: list[w.Button] = []
        self._crumbs: w.HTML | None = None

    # ------------------------------------------------------------ membership
    def add(self, child: Member) -> None:
        self.members.append(child)
        self.show(child)

    def remove(self, child: Member) -> None:
        """Forget `child` and its descendants; the nearest open ancestor is shown when it was."""
        gone = [m for m in self.members if m is child or self._descends(m, child)]
        self.members = [m for m in self.members if m not in gone]
        if self.active in gone:
            parent = child.parent_designer
            self.active = parent if parent in self.members else self.root
        self._relayout()
        self.refresh()
        self._notify()

    def children_of(self, parent: Member) -> list[Member]:
        return [m for m in self.members if m.parent_designer is parent]

    @staticmethod
    def _descends(member: Member, ancestor: Member) -> bool:
        up = member.parent_designer
        while up is not None:
            if up is ancestor:
                return True
            up = up.parent_designer
        return False

    # ------------------------------------------------------------ showing
    def show(self, member: Member) -> None:
        self.active = member
        self._relayout()
        self.refresh()
        self._notify()

    def on_active(self, callback: Callable[[Member], None]) -> Callable[[], None]:
        """Call `callback(designer)` whenever another document is shown; returns the unsubscribe."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _notify(self) -> None:
        for callback in list(self._listeners):
            callback(self.active)

    def refresh(self) -> None:
        """Redraw the tabs and breadcrumb (titles carry the dirty mark) and every member's read-only banner.

        Called on every edit: while the same documents are open, the tab buttons are updated in place. Rebuilding
        them closed the buttons under the pointer, and a click that reached a closed button's comm was lost.
        """
        for member in self.members:
            member.refresh_banner()
        if len(self.members) == 1:
            self.bar.layout.display = "none"
            replace_children(self.bar, [])
            self._shown = []
            return
        self.bar.layout.display = ""
        chain: list[Member] = []
        up: Member | None = self.active
        while up is not None:
            chain.insert(0, up)
            up = up.parent_designer
        crumbs = tag("div", small(join((_crumb(m) for m in chain), " ▸ ")), class_="dld-breadcrumb")
        if self._shown == self.members and self._crumbs is not None:
            self._crumbs.value = crumbs
            for member, show in zip(self.members, self._buttons, strict=True):
                self._dress(show, member)
            return
        self._crumbs = w.HTML(crumbs)
        self._buttons = []
        tabs = [self._tab(m) for m in self.members]
        self._shown = list(self.members)
        replace_children(self.bar, [  # the previous strip's widgets are closed
            self._crumbs,
            w.HBox(tabs, layout=w.Layout(flex_flow="row wrap")),
        ])

    def _dress(self, show: w.Button, member: Member) -> None:
        """A tab button's title, tooltip and highlight for `member` as it is now."""
        active = member is self.active
        show.description = _title(member)
        show.tooltip = str(getattr(member.document, "title", "") or "")
        show.button_style = "info" if active else ""
        if active:
            show.add_class("dld-doc-tab-active")
        else:
            show.remove_class("dld-doc-tab-active")

    def _tab(self, member: Member) -> w.Widget:
        show = w.Button(layout=w.Layout(width="auto"))
        show.add_class("dld-doc-tab")
        self._dress(show, member)
        self._buttons.append(show)
        show.on_click(lambda _b: self.show(member))
        if member is self.root:
            return show
        close = w.Button(
            description="×", tooltip="Close this document (asks about unconfirmed edits)", layout=w.Layout(width="36px")
        )
        close.add_class("dld-doc-tab-close")
        close.on_click(lambda _b: member.request_close())
        return w.HBox([show, close], layout=w.Layout(margin="0 6px 0 0"))
