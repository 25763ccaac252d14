"""Spirit-combat test helpers: a mortal shaman, a ghost (a spirit), and request shorthands."""

from __future__ import annotations

from typing import Any

from tests.bridge.engine.combat_styles.helpers import Table, fighter


def shaman(**over: Any) -> dict[str, Any]:
    """A mortal: spirit combat 65 (Spirit Damage 1d8), 14 Magic Points (POW 14)."""
    block = fighter("shaman", spirit_combat=65)
    block["characteristics"] = {**block["characteristics"], "pow": 14}
    return {**block, **over}


def ghost(**over: Any) -> dict[str, Any]:
    """A spirit: Spectral Combat 50 (Spirit Damage 1d6), 12 Magic Points."""
    return {**fighter("ghost", spirit_combat=50, magic_points=12, spirit=True), **over}


def engage(table: Table, dice: list[int], **body: Any) -> dict[str, Any]:
    """The shaman engages the ghost in spirit combat (``body`` adds or overrides fields)."""
    return table("spirit_combat", {"attacker": "shaman", "defender": "ghost", **body}, dice)


def choose(
    table: Table, token: str, ids: list[str], dice: tuple[int, ...] | list[int] = ()
) -> dict[str, Any]:
    """The winner of the parked exchange ``token`` chooses the spirit effects ``ids``."""
    return table("choose_effects", {"token": token, "effects": [{"id": i} for i in ids]}, dice)


def offered(out: dict[str, Any]) -> set[str]:
    return {e["id"] for e in out["eligible"]}


def encounter(table: Table, *blocks: dict[str, Any], first: str = "shaman") -> None:
    """An encounter in turns; ``first`` acts first (initiative dice 10 against 1)."""
    table("start_encounter", {"combatants": list(blocks)})
    ids = [b["id"] for b in blocks]
    table("initiative", {}, [10 if i == first else 1 for i in ids])
    assert table.state is not None and table.state["order"][0] == first
