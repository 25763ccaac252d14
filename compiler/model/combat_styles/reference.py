"""Reference tables for the GM's journal: one readable table per concern."""

from __future__ import annotations

from typing import TYPE_CHECKING

from compiler.model.common import ReferenceTable, collection_reference

if TYPE_CHECKING:
    from compiler.model.combat_styles.model import CombatStylesRules


def reference_tables(rules: CombatStylesRules) -> list[ReferenceTable]:
    """Every reference table of the ruleset, in reading order."""
    tables: list[ReferenceTable] = []
    for name, value in rules:
        if isinstance(value, list) and value:
            tables.append(collection_reference(name, value))
    return tables
