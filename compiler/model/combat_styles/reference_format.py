"""Cell formatting shared by the combat-styles journal tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arbiter.compiler.model.common import ReferenceTable


def table(
    ident: str,
    name: str,
    columns: Iterable[str],
    rows: Iterable[Iterable[Any]],
    description: str = "",
    notes: Iterable[str] = (),
) -> ReferenceTable:
    """A ReferenceTable with every cell turned into text."""
    return ReferenceTable(
        id=ident,
        name=name,
        columns=tuple(columns),
        rows=tuple(tuple(cell(c) for c in row) for row in rows),
        description=description,
        notes=tuple(notes),
    )


def cell(value: Any) -> str:
    """Plain text for a cell: yes/no for booleans, signed numbers, '–' for nothing."""
    if value is None or value == "" or (isinstance(value, (list, tuple)) and not value):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(v) for v in value)
    return str(value)


def signed(value: int) -> str:
    """+n / −n / 0."""
    if value > 0:
        return f"+{value}"
    if value < 0:
        return f"−{-value}"
    return "0"


def assumed_notes(items: Iterable[Any], label: str = "name") -> list[str]:
    """'Name, Name: assumed — note' for the assumed items, grouping those with the same note."""
    grouped: dict[str, list[str]] = {}
    for item in items:
        if getattr(item, "assumed", False):
            name = str(getattr(item, label, None) or item.id)
            grouped.setdefault(item.note, []).append(name)
    return [f"{', '.join(names)}: assumed — {note}" for note, names in grouped.items()]
