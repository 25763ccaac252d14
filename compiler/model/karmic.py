"""Rule data of the karmic card duels (``compiler/rules/karmic/``).

The deck, the maneuvers and their conditions, called-shot modifiers, ranges, weapons, armor,
combat modifiers, damage rules, draws and special situations. The engine
(``bridge.engine.karmic``) reads all of it; no number of the rules lives in code.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pydantic import Field

from compiler.model.common import (
    Assumable,
    Entry,
    Id,
    Problem,
    ReferenceTable,
    RuleModel,
    RulesetBase,
    collection_reference,
)

ManeuverKind = Literal["offense", "defense", "action"]
Step = Literal["forward", "back", "none"]
FoeSize = Literal["any", "equal", "large", "small"]
DifficultyFrom = Literal["fixed", "target_finesse", "target_count", "limb_vitality"]
Effect = Literal["none", "disarm", "flank", "cling", "free", "push", "buck", "change_weapon"]


class Card(Entry):
    """A card face of the deck; ``copies`` identical cards of it are shuffled in."""

    value: int
    hit: bool = False
    copies: int = Field(default=1, ge=1, le=20)


class Maneuver(Entry):
    """A maneuver played with a card in a register, with its difficulty and conditions."""

    name: str
    kind: ManeuverKind
    difficulty: int = 0
    difficulty_from: DifficultyFrom = "fixed"
    requires_initiative: bool = False
    foe_size: FoeSize = "any"
    step: Step = "none"
    may_skip_step: bool = False
    defended_by: tuple[Id, ...] = ()
    deals_damage: bool = False
    damage_factor: int = Field(default=1, ge=1)
    effect: Effect = "none"
    called_shots: bool = False
    declared_as: Id | None = None
    needs_weapon: bool = True
    weapon_kind: Id | None = None
    at_range: int | None = None
    once_per_round: bool = False
    forced_location: Id | None = None
    no_location_benefit: bool = False
    shield_cannot_parry: bool = False
    seizes_initiative: bool = False
    ends_actions: bool = False
    surrenders_initiative: bool = False
    resolve_immediately: bool = False
    multiple_targets: bool = False
    needs_clinger: bool = False
    barred_by_flank: bool = False
    """Not playable against a foe who has flanked the player (the flank's lasting effect)."""
    text: str = ""


class CalledShot(Entry):
    """A hit location's attack modifier against equal, large and small foes (None: forbidden)."""

    name: str
    normal: int
    large: int | None = None
    small: int | None = None

    def modifier(self, foe_size: str) -> int | None:
        """The modifier against a foe of ``foe_size`` (normal, large, small); None if forbidden."""
        return {"normal": self.normal, "large": self.large, "small": self.small}[foe_size]


class FoeSizes(RuleModel):
    """When a foe counts as large or small relative to the attacker."""

    large_factor: int = Field(ge=1)
    small_factor: int = Field(ge=1)
    text: str = ""


class RangeRules(Assumable):
    """Stepping rules: the no-step modifier and how steps change the range."""

    no_step_modifier: int
    feet_per_yard: int = Field(ge=1)
    follow_lone_step_back: bool = True
    attack_without_step_back_closes: bool = True
    text: str = ""


class SpecialRange(Entry):
    """A named range (close, wrestling) and its value in the range bookkeeping."""

    name: str
    value: int
    text: str = ""


class Weapon(Entry):
    """A weapon: range in yards, maximum maneuvers per round, maximum damage, kind."""

    name: str
    range: int = Field(ge=0)
    max_maneuvers: int = Field(ge=1)
    max_damage: int = Field(ge=0)
    kind: Id
    can_bash: bool = False
    can_parry: bool = True


class Armor(Entry):
    """Armor: its modifier joins the combat modifiers; protection is subtracted from damage."""

    name: str
    modifier: int
    protection: int = Field(ge=0)


class CombatModifier(Entry):
    """One part of the combat modifiers every total adds."""

    name: str
    source: Literal["combatant", "armor"]


class DamageRules(Assumable):
    """Damage rules the text leaves open (RULES-NOTES)."""

    minimum_on_success: int = Field(ge=0)
    out_at_vitality: int


class DamageMultiplier(Assumable):
    """How a called-shot location multiplies damage."""

    location: Id
    multiplier: int = Field(ge=0)


class Draws(Assumable):
    """Which skills give how many cards."""

    default_skill: int = Field(ge=1)
    initiative_skill: Id
    showdown_skill: Id
    weapon_change_skill: Id
    max_initiative_redraws: int = Field(ge=1)
    text: str = ""


class Charge(Assumable):
    """The charge: its damage bonus and the maneuvers each side makes that turn."""

    max_damage_bonus: int
    maneuvers_each: int = Field(ge=1)
    text: str = ""


class Surprise(Assumable):
    """Surprise: the skill a target draws to avoid it."""

    check_skill: Id
    text: str = ""


class KarmicRules(RulesetBase):
    """The whole karmic ruleset."""

    ruleset_id = "karmic"

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
        if "parry" not in maneuvers or maneuvers["parry"].kind != "defense":
            yield Problem(path=("maneuvers",), message="a 'parry' defense maneuver is required")
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
        if "unarmed" not in {w.id for w in self.weapons}:
            yield Problem(path=("weapons",), message="a weapon 'unarmed' (bare hands) is required")
        range_ids = {r.id for r in self.special_ranges}
        for needed in ("close", "wrestling"):
            if needed not in range_ids:
                yield Problem(
                    path=("special_ranges",), message=f"special range {needed!r} is required"
                )

    def reference_tables(self) -> list[ReferenceTable]:
        """Journal tables: the deck, maneuvers, the three called-shot tables, weapons, the rest."""
        return [
            self._deck_table(),
            self._maneuver_table(),
            *(self._called_shot_table(size) for size in ("normal", "large", "small")),
            collection_reference("weapons", self.weapons, "Weapons"),
            collection_reference("armor", self.armor, "Armor"),
            collection_reference("special_ranges", self.special_ranges, "Special ranges"),
            collection_reference("combat_modifiers", self.combat_modifiers, "Combat modifiers"),
            collection_reference(
                "damage_multipliers", self.damage_multipliers, "Damage by hit location"
            ),
        ]

    def _deck_table(self) -> ReferenceTable:
        rows = tuple(
            (f"{c.value:+d}", "hit" if c.hit else "", str(c.copies))
            for c in sorted(self.cards, key=lambda c: (c.value, c.hit))
        )
        total = sum(c.copies for c in self.cards)
        notes = tuple(sorted({c.note for c in self.cards if c.assumed}))
        return ReferenceTable(
            id="deck",
            name="The deck",
            columns=("value", "hit", "copies"),
            rows=rows,
            description=f"{total} cards.",
            notes=tuple(f"assumed — {n}" for n in notes),
        )

    def _maneuver_table(self) -> ReferenceTable:
        rows = []
        notes = []
        for m in self.maneuvers:
            difficulty = {
                "fixed": f"{m.difficulty:+d}",
                "target_finesse": "− target's finesse",
                "target_count": "− number of targets",
                "limb_vitality": "− limb's vitality",
            }[m.difficulty_from]
            conditions = [
                label
                for flag, label in (
                    (m.requires_initiative, "needs the initiative"),
                    (m.foe_size != "any", f"{m.foe_size} foes only"),
                    (m.weapon_kind is not None, f"{m.weapon_kind} weapon"),
                    (m.at_range is not None, f"at range {m.at_range}"),
                    (m.once_per_round, "once per round"),
                    (m.resolve_immediately, "resolved at once"),
                    (m.ends_actions, "no other action this round"),
                )
                if flag
            ]
            rows.append((m.name, difficulty, m.kind, "; ".join(conditions), m.text))
            if m.assumed:
                notes.append(f"{m.name}: assumed — {m.note}")
        return ReferenceTable(
            id="maneuvers",
            name="Maneuvers",
            columns=("maneuver", "difficulty", "kind", "conditions", "effect"),
            rows=tuple(rows),
            notes=tuple(notes),
        )

    def _called_shot_table(self, size: str) -> ReferenceTable:
        title = {"normal": "Called shots", "large": "Large creature to-hit modifiers"}.get(
            size, "Small creature to-hit modifiers"
        )
        rows = []
        for c in self.called_shots:
            mod = c.modifier(size)
            rows.append((c.name, "N/A" if mod is None else f"{mod:+d}"))
        return ReferenceTable(
            id=f"called-shots-{size}",
            name=title,
            columns=("hit location", "attack modifier"),
            rows=tuple(rows),
        )


RULESET_MODEL = KarmicRules
