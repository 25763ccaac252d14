"""The whole karmic ruleset: its parts, the references between them and its journal tables."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, get_args

from arbiter.compiler.model.common import (
    Problem,
    ReferenceTable,
    RulesetBase,
    collection_reference,
)
from arbiter.compiler.model.karmic.entries import (
    Armor,
    CalledShot,
    Card,
    Charge,
    CombatModifier,
    DamageMultiplier,
    DamageRules,
    Draws,
    FoeSizes,
    Hands,
    LastingEffect,
    LastingEffectId,
    Maneuver,
    Odds,
    RangeRules,
    SpecialRange,
    Surprise,
    Weapon,
)
from arbiter.compiler.model.karmic.limits import StatBlockLimits
from arbiter.compiler.model.karmic.reference import called_shot_table, deck_table, maneuver_table


class KarmicRules(RulesetBase):
    """The whole karmic ruleset."""

    ruleset_id = "karmic"
    combatant_gear: ClassVar[dict[str, tuple[str, ...]]] = {
        "main": ("weapons",),
        "off": ("weapons",),
        "armor": ("armor",),
    }

    cards: list[Card]
    maneuvers: list[Maneuver]
    called_shots: list[CalledShot]
    foe_sizes: FoeSizes
    range_rules: RangeRules
    special_ranges: list[SpecialRange]
    weapons: list[Weapon]
    armor: list[Armor]
    combat_modifiers: list[CombatModifier]
    damage: DamageRules
    damage_multipliers: list[DamageMultiplier]
    draws: Draws
    charge: Charge
    surprise: Surprise
    hands: Hands
    lasting_effects: list[LastingEffect]
    odds: Odds
    stat_block_limits: StatBlockLimits

    def cross_check(self) -> Iterator[Problem]:
        yield from super().cross_check()
        if not self.cards:
            yield Problem(path=("cards",), message="the deck needs at least one card")
        maneuvers = {m.id: m for m in self.maneuvers}
        locations = {c.id for c in self.called_shots}
        kinds = {w.kind for w in self.weapons}
        for i, m in enumerate(self.maneuvers):
            for j, d in enumerate(m.defended_by):
                if d not in maneuvers:
                    yield Problem(
                        path=("maneuvers", i, "defended_by", j), message=f"unknown maneuver {d!r}"
                    )
                elif maneuvers[d].kind != "defense":
                    yield Problem(
                        path=("maneuvers", i, "defended_by", j),
                        message=f"maneuver {d!r} is a {maneuvers[d].kind}, not a defense",
                    )
            if m.declared_as is not None and m.declared_as not in maneuvers:
                yield Problem(
                    path=("maneuvers", i, "declared_as"),
                    message=f"unknown maneuver {m.declared_as!r}",
                )
            if m.forced_location is not None and m.forced_location not in locations:
                yield Problem(
                    path=("maneuvers", i, "forced_location"),
                    message=f"unknown hit location {m.forced_location!r} (see called_shots)",
                )
            if m.weapon_kind is not None and m.weapon_kind not in kinds:
                yield Problem(
                    path=("maneuvers", i, "weapon_kind"),
                    message=f"no weapon is of kind {m.weapon_kind!r}",
                )
        yield from _surprise_maneuver(maneuvers, self.surprise.maneuver)
        yield from _assumed_defense(maneuvers, self.odds.assumed_defense)
        for i, dm in enumerate(self.damage_multipliers):
            if dm.location not in locations:
                yield Problem(
                    path=("damage_multipliers", i, "location"),
                    message=f"unknown hit location {dm.location!r} (see called_shots)",
                )
        covered = {dm.location for dm in self.damage_multipliers}
        for i, c in enumerate(self.called_shots):
            if c.id not in covered:
                yield Problem(
                    path=("called_shots", i, "id"),
                    message=f"location {c.id!r} has no damage multiplier (see damage_multipliers)",
                )
        if "none" not in {a.id for a in self.armor}:
            yield Problem(path=("armor",), message="an armor 'none' (no armor) is required")
        if self.hands.bare_hands not in {w.id for w in self.weapons}:
            yield Problem(
                path=("hands", "bare_hands"),
                message=f"unknown weapon {self.hands.bare_hands!r} (see weapons)",
            )
        lasting = {e.id for e in self.lasting_effects}
        for needed in get_args(LastingEffectId):
            if needed not in lasting:
                yield Problem(
                    path=("lasting_effects",), message=f"lasting effect {needed!r} is required"
                )
        range_ids = {r.id for r in self.special_ranges}
        for needed in ("close", "wrestling"):
            if needed not in range_ids:
                yield Problem(
                    path=("special_ranges",), message=f"special range {needed!r} is required"
                )

    def reference_tables(self) -> list[ReferenceTable]:
        """Journal tables: the deck, maneuvers, the three called-shot tables, weapons, the rest."""
        return [
            deck_table(self.cards),
            maneuver_table(self.maneuvers),
            *(called_shot_table(self.called_shots, size) for size in ("normal", "large", "small")),
            collection_reference("weapons", self.weapons, "Weapons"),
            collection_reference("armor", self.armor, "Armor"),
            collection_reference("special_ranges", self.special_ranges, "Special ranges"),
            collection_reference("combat_modifiers", self.combat_modifiers, "Combat modifiers"),
            collection_reference(
                "damage_multipliers", self.damage_multipliers, "Damage by hit location"
            ),
            collection_reference("lasting_effects", self.lasting_effects, "Lasting effects"),
        ]


def _surprise_maneuver(maneuvers: dict[str, Maneuver], wanted: str) -> Iterator[Problem]:
    """A surprise attack is an offense made with a weapon against one foe, freeing nobody."""
    path = ("surprise", "maneuver")
    m = maneuvers.get(wanted)
    if m is None:
        yield Problem(path=path, message=f"unknown maneuver {wanted!r} (see maneuvers)")
    elif m.kind != "offense":
        yield Problem(path=path, message=f"maneuver {wanted!r} is {_a(m.kind)}, not an offense")
    elif not m.needs_weapon or m.effect == "free":
        yield Problem(
            path=path,
            message=f"maneuver {wanted!r} cannot be a surprise attack: it must be made with a "
            "weapon and free nobody",
        )


def _assumed_defense(maneuvers: dict[str, Maneuver], wanted: str) -> Iterator[Problem]:
    """The odds count a defense of fixed difficulty (they know no target to take it from)."""
    path = ("odds", "assumed_defense")
    m = maneuvers.get(wanted)
    if m is None:
        yield Problem(path=path, message=f"unknown maneuver {wanted!r} (see maneuvers)")
    elif m.kind != "defense":
        yield Problem(path=path, message=f"maneuver {wanted!r} is {_a(m.kind)}, not a defense")
    elif m.difficulty_from != "fixed":
        yield Problem(
            path=path, message=f"maneuver {wanted!r} needs a fixed difficulty to count odds with"
        )


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
