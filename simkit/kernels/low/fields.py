"""Declare a flat array layout once, as named fields with sizes; derive every index from it.

Plain Python (no numba): the layout modules (game_layout, combat_layout) build a
:class:`Layout` at import time and export its offsets as module constants, which the
kernels read as compile-time integers exactly as if they were written by hand.

    >>> lay = Layout("demo", [("A_X", 1, "first"), ("A_ROW", 3), ("_A_SPARE", 2), ("A_Y", 1)],
    ...              size_name="A_SIZE")
    >>> lay.constants()
    {'A_X': 0, 'A_ROW': 1, 'A_Y': 6, 'A_SIZE': 7}
    >>> lay.slot_names()[:5]
    ('A_X', 'A_ROW+0', 'A_ROW+1', 'A_ROW+2', '_A_SPARE+0')
    >>> lay.describe([5, 1, 2, 3, 0, 0, 9])
    {'A_X': 5, 'A_ROW': [1, 2, 3], 'A_Y': 9}

A field whose name starts with ``_`` is a reserved gap: it takes its slots (so the fields
after it keep their offsets) but exports no constant and is left out of ``describe``.
"""

from __future__ import annotations

from typing import NamedTuple


class Field(NamedTuple):
    name: str  # the index constant, e.g. "G_SUPPLY"
    offset: int  # first slot
    size: int  # number of slots
    doc: str = ""
    labels: tuple[str, ...] | None = None  # optional name per slot (summary columns)

    @property
    def reserved(self) -> bool:
        return self.name.startswith("_")

    @property
    def stop(self) -> int:
        return self.offset + self.size


class Layout:
    """Fields packed in declaration order from ``start``; ``size`` is one past the last slot.

    Each entry is ``(name, size)``, ``(name, size, doc)`` or ``(name, size, doc, labels)``.
    """

    def __init__(self, title: str, entries, size_name: str | None = None, start: int = 0):
        self.title = title
        self.size_name = size_name
        fields: list[Field] = []
        offset = start
        for entry in entries:
            name, size, *rest = entry
            doc = rest[0] if rest else ""
            labels = tuple(rest[1]) if len(rest) > 1 and rest[1] is not None else None
            if not isinstance(size, int) or size < 1:
                raise ValueError(f"{title}: field {name} has size {size!r} (expected an int >= 1)")
            if labels is not None and len(labels) != size:
                raise ValueError(f"{title}: field {name} has {len(labels)} labels for {size} slots")
            fields.append(Field(name, offset, size, doc, labels))
            offset += size
        names = [f.name for f in fields]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"{title}: duplicate field names {sorted(dup)}")
        self.fields: tuple[Field, ...] = tuple(fields)
        self.start = start
        self.size = offset

    def __iter__(self):
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def constants(self) -> dict[str, int]:
        """Every exported index constant (offsets of non-reserved fields, then the size)."""
        out = {f.name: f.offset for f in self.fields if not f.reserved}
        if self.size_name:
            out[self.size_name] = self.size
        return out

    def slot_names(self) -> tuple[str, ...]:
        """A name per slot ``start .. size-1``: the field name, ``+k`` within a sized field."""
        out = []
        for f in self.fields:
            if f.size == 1:
                out.append(f.name)
            else:
                out.extend(f"{f.name}+{k}" for k in range(f.size))
        return tuple(out)

    def labels(self, prefix: str = "") -> tuple[str, ...]:
        """A label per slot: the field's labels, else its name without ``prefix``, lower case
        (``S_OO_VP`` -> ``oo_vp`` with prefix ``S_``), with ``_k`` within a sized field."""
        out = []
        for f in self.fields:
            if f.labels is not None:
                out.extend(f.labels)
                continue
            name = f.name.lstrip("_")
            base = (name[len(prefix) :] if prefix and name.startswith(prefix) else name).lower()
            out.extend([base] if f.size == 1 else [f"{base}_{k}" for k in range(f.size)])
        return tuple(out)

    def describe(self, vec, skip_zero: bool = False) -> dict:
        """``{field name: value (size 1) or list of values}`` of one vector of this layout."""
        out = {}
        for f in self.fields:
            if f.reserved:
                continue
            vals = [v.item() if hasattr(v, "item") else v for v in vec[f.offset : f.stop]]
            if skip_zero and not any(vals):
                continue
            out[f.name] = vals[0] if f.size == 1 else vals
        return out
