"""Fast lookups into the karmic rule data, built once per loaded ruleset."""

from __future__ import annotations

from dataclasses import dataclass

from arbiter.compiler.model.karmic import (
    Armor,
    CalledShot,
    KarmicRules,
    Maneuver,
    Weapon,
)


@dataclass(frozen=True, slots=True)
class CardFace:
    """What a card shows: its value and whether it is marked "hit"."""

    value: int
    hit: bool


@dataclass(frozen=True)
class Rulebook:
    """The rule data indexed by id; card instances are ``<face id>#<copy>``."""

    rules: KarmicRules
    cards: dict[str, CardFace]
    deck: tuple[str, ...]
    maneuvers: dict[str, Maneuver]
    weapons: dict[str, Weapon]
    armor: dict[str, Armor]
    called_shots: dict[str, CalledShot]
    multipliers: dict[str, int]
    combatant_modifiers: tuple[str, ...]
    armor_counts: bool
    wrestling: int
    close: int
    bare_hands: Weapon
    lasting: dict[str, int | None]
    """Rounds each recorded effect lasts after the one it began in (None: until undone)."""


_CACHE: dict[int, Rulebook] = {}


def rulebook(rules: KarmicRules) -> Rulebook:
    """The index of ``rules`` (cached by identity: loaded rulesets are immutable)."""
    book = _CACHE.get(id(rules))
    if book is not None and book.rules is rules:
        return book
    cards: dict[str, CardFace] = {}
    for face in rules.cards:
        for copy in range(1, face.copies + 1):
            cards[f"{face.id}#{copy}"] = CardFace(face.value, face.hit)
    ranges = {r.id: r.value for r in rules.special_ranges}
    book = Rulebook(
        rules=rules,
        cards=cards,
        deck=tuple(cards),
        maneuvers={m.id: m for m in rules.maneuvers},
        weapons={w.id: w for w in rules.weapons},
        armor={a.id: a for a in rules.armor},
        called_shots={c.id: c for c in rules.called_shots},
        multipliers={d.location: d.multiplier for d in rules.damage_multipliers},
        combatant_modifiers=tuple(m.id for m in rules.combat_modifiers if m.source == "combatant"),
        armor_counts=any(m.source == "armor" for m in rules.combat_modifiers),
        wrestling=ranges["wrestling"],
        close=ranges["close"],
        bare_hands={w.id: w for w in rules.weapons}[rules.hands.bare_hands],
        lasting={e.id: e.rounds for e in rules.lasting_effects},
    )
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[id(rules)] = book
    return book
