"""Paste the clipboard's nodes into a document, centred on a point, as one undo step.

Cases handled, in order:
1. every copied node is added with its op type and domain at `at` + its offset from the copied selection's centre;
2. its attributes are set, except reference attributes (`@name`), which only mean something inside their function;
3. pasted into the document it was copied from, its initializer inputs are bound again to the same initializers;
4. the links between copied nodes are connected between the new nodes (links to outside nodes were not copied).
An empty clipboard is refused with a fix; any refused step undoes the whole paste.
"""

from __future__ import annotations

from typing import Any, ClassVar

from dld_jupyter.document import Document
from dld_jupyter.document.edits import property_edits as v
from dld_jupyter.document.edits import structure_edits as g
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.transforms.clipboard import Clip, current_clip
from dld_jupyter.transforms.transform import Do, EditPlan, Requirement, Transform


class Paste(Transform):
    name: ClassVar[str] = "paste"
    label: ClassVar[str] = "Paste"
    requires = frozenset({Requirement.CLIPBOARD})

    def plan(self, doc: Document, **args: Any) -> EditPlan[list[str]]:
        """`at=(x, y)`: where the centre of the pasted nodes goes (default the origin)."""
        self.check(doc, **args)
        clip = current_clip()
        assert clip is not None  # check() refused an empty clipboard
        x, y = args.get("at", (0.0, 0.0))
        at = (float(x), float(y))
        same_document = clip.source == id(doc)
        count = len(clip.items)
        label = f"Paste {count} node{'s' if count != 1 else ''}"
        return EditPlan(label, lambda ctx, do: _paste(ctx, do, clip, at, same_document))


def _paste(ctx: Context, do: Do, clip: Clip, at: tuple[float, float], same_document: bool) -> list[str]:
    new: list[str] = []
    for item in clip.items:
        position = (at[0] + item.offset[0], at[1] + item.offset[1])
        nid = g.add_node(ctx, do, item.op_type, item.domain, None, position)
        new.append(nid)
        for name, value in item.attributes.items():
            if isinstance(value, str) and value.startswith("@"):
                continue  # a reference attribute only means something inside its function
            v.set_attribute(ctx, do, nid, name, value)
        if same_document:
            for index, value_id in item.initializers.items():
                v.connect_initializer(ctx, do, value_id, nid, index)
    for src, out, dst, inp in clip.links:
        g.connect(ctx, do, new[src], out, new[dst], inp)
    return new
