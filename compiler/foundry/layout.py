"""The module's fixed shape: its id, its packs, and the fields every packed document shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MODULE_ID = "arbiter"
CORE_GENERATION = "12"
"""The oldest Foundry generation whose document shapes we emit (V13/V14 migrate them forward)."""
CORE_VERSION = "12.331"
"""``_stats.coreVersion`` of packed documents: the V12 build whose shapes they follow."""
DEFAULT_OWNERSHIP = {"PLAYER": "OBSERVER", "ASSISTANT": "OWNER"}
SORT_STEP = 100_000
"""Foundry's sort density (``CONST.SORT_INTEGER_DENSITY``): room to reorder by hand."""


@dataclass(frozen=True)
class PackSpec:
    """One compendium pack of the module."""

    name: str
    """Pack name: also its folder under ``packs/``; no periods (Foundry's id rule)."""
    label_key: str
    """Key of its display label in ``lang/en.json``."""
    type: str
    """Foundry document type it holds."""
    collection: str
    """LevelDB key collection of its primary documents (``!<collection>!<id>``)."""

    @property
    def path(self) -> str:
        return f"packs/{self.name}"


TABLES = PackSpec("tables", "ARBITER.Pack.Tables", "RollTable", "tables")
REFERENCE = PackSpec("reference", "ARBITER.Pack.Reference", "JournalEntry", "journal")
MACROS = PackSpec("macros", "ARBITER.Pack.Macros", "Macro", "macros")
PACKS: tuple[PackSpec, ...] = (TABLES, REFERENCE, MACROS)

EMBEDDED: dict[str, dict[str, str]] = {
    "tables": {"results": "results"},
    "journal": {"pages": "pages", "categories": "categories"},
}
"""Embedded collections stored under their own keys (the official CLI's ``HIERARCHY``)."""


def stats() -> dict[str, Any]:
    """A document's ``_stats`` as the official CLI and Foundry expect them, with no volatile data.

    Times and users stay null so that the same sources give the same bytes.
    """
    return {
        "coreVersion": CORE_VERSION,
        "systemId": None,
        "systemVersion": None,
        "createdTime": None,
        "modifiedTime": None,
        "lastModifiedBy": None,
        "compendiumSource": None,
        "duplicateSource": None,
    }


def uuid(pack: PackSpec, document_id: str) -> str:
    """The Foundry UUID of a primary document in one of our packs."""
    return f"Compendium.{MODULE_ID}.{pack.name}.{pack.type}.{document_id}"
