"""The combat-styles ruleset model: every rule file, cross-checks and lookups for the engine."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from pydantic import Field, PrivateAttr

from arbiter.compiler.model.combat_styles.body import (
    AttributeFormula,
    DamageModifierStep,
    HitLocation,
    HitLocationTable,
    SpiritDamageStep,
    WoundLevel,
)
from arbiter.compiler.model.combat_styles.checks import (
    CheckRules,
    Differential,
    Grade,
    SuccessLevel,
)
from arbiter.compiler.model.combat_styles.combat_rules import CombatRules
from arbiter.compiler.model.combat_styles.cross_checks import cross_check
from arbiter.compiler.model.combat_styles.effects import SpecialEffect
from arbiter.compiler.model.combat_styles.equipment import (
    Armor,
    ArmorMaterial,
    ParryReduction,
    RangedWeapon,
    Reach,
    Shield,
    Size,
    Weapon,
)
from arbiter.compiler.model.combat_styles.limits import StatBlockLimits
from arbiter.compiler.model.combat_styles.reference import reference_tables
from arbiter.compiler.model.combat_styles.rounds import (
    Action,
    ActionPoints,
    CombatStyle,
    Initiative,
)
from arbiter.compiler.model.combat_styles.situations import (
    Charging,
    DistancePenalties,
    FatigueLevel,
    ImpaleRow,
    Knockback,
    SituationalModifier,
    SkillCap,
)
from arbiter.compiler.model.combat_styles.spirit_effects import SpiritEffect
from arbiter.compiler.model.combat_styles.traits import StyleTrait, WeaponTrait
from arbiter.compiler.model.common import Assumable, Problem, ReferenceTable, RulesetBase

INDEXED = (
    "grades",
    "success_levels",
    "special_effects",
    "spirit_effects",
    "sizes",
    "reaches",
    "weapon_traits",
    "weapons",
    "shields",
    "ranged_weapons",
    "armor",
    "armor_materials",
    "hit_locations",
    "hit_location_tables",
    "wound_levels",
    "situational_modifiers",
    "fatigue_levels",
    "actions",
    "style_traits",
    "combat_styles",
)
"""Collections :meth:`CombatStylesRules.lookup_index` indexes by id."""


class Derived(Assumable):
    """Derived attributes the combat rules use."""

    healing_rate: AttributeFormula
    luck_points: AttributeFormula
    magic_points: AttributeFormula | None = None
    """Magic Points of a stat block that gives none (None: stat blocks must give them)."""
    movement_metres: int = Field(gt=0)


class CombatStylesRules(RulesetBase):
    """The combat-styles ruleset (``compiler/rules/combat-styles/``).

    Each field is the top-level key of the rule file of the same name (``grades`` in
    ``grades.toml``). Lookups by id raise KeyError naming the known ids.
    """

    ruleset_id: ClassVar[str] = "combat-styles"
    combatant_gear: ClassVar[dict[str, tuple[str, ...]]] = {
        "weapons": ("weapons", "shields", "ranged_weapons"),
        "armor": ("armor",),
        "traits": ("style_traits",),
    }

    checks: CheckRules
    grades: list[Grade]
    success_levels: list[SuccessLevel]
    differential: Differential
    special_effects: list[SpecialEffect]
    sizes: list[Size]
    reaches: list[Reach]
    parry_reduction: list[ParryReduction]
    weapon_traits: list[WeaponTrait]
    weapons: list[Weapon]
    shields: list[Shield]
    ranged_weapons: list[RangedWeapon]
    armor: list[Armor]
    armor_materials: list[ArmorMaterial]
    hit_points: AttributeFormula
    hit_locations: list[HitLocation]
    hit_location_tables: list[HitLocationTable]
    wound_levels: list[WoundLevel]
    damage_modifiers: list[DamageModifierStep]
    derived: Derived
    situational_modifiers: list[SituationalModifier]
    skill_caps: list[SkillCap]
    impale_effects: list[ImpaleRow]
    distance_penalties: DistancePenalties
    spirit_damage: list[SpiritDamageStep]
    spirit_effects: list[SpiritEffect]
    knockback: Knockback
    charging: Charging
    combat: CombatRules
    fatigue_levels: list[FatigueLevel]
    actions: list[Action]
    action_points: ActionPoints
    initiative: Initiative
    style_traits: list[StyleTrait]
    combat_styles: list[CombatStyle]
    stat_block_limits: StatBlockLimits

    # ------------------------------------------------------------------ lookups

    # Built once after validation. A private attribute, not a cached_property: pydantic
    # iterates the instance __dict__, so a cached value there would show up in walks over the
    # model; built eagerly so that equal rules compare equal.
    _lookup: dict[str, dict[str, Any]] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        """Index the collections by id (pydantic calls this after validation)."""
        self._lookup.update({k: {e.id: e for e in getattr(self, k)} for k in INDEXED})

    def lookup_index(self) -> dict[str, dict[str, Any]]:
        """Entries of every indexed collection, by collection name and id."""
        return self._lookup

    def _get(self, key: str, ident: str) -> Any:
        try:
            return self.lookup_index()[key][ident]
        except KeyError:
            known = ", ".join(self.lookup_index()[key])
            raise KeyError(f"no {key} entry {ident!r} (known: {known})") from None

    def grade(self, ident: str) -> Grade:
        """The difficulty grade ``ident``."""
        return self._get("grades", ident)

    def grade_ladder(self) -> list[Grade]:
        """Grades from easiest to hardest."""
        return sorted(self.grades, key=lambda g: g.step)

    def shift_grade(self, ident: str, steps: int) -> Grade:
        """The grade ``steps`` harder (negative: easier), stopping at either end."""
        ladder = self.grade_ladder()
        i = ladder.index(self.grade(ident)) + steps
        return ladder[max(0, min(len(ladder) - 1, i))]

    def most_severe(self, idents: list[str]) -> Grade:
        """The hardest of several grades (they do not stack); Standard when none."""
        if not idents:
            return self.grade("standard")
        return max((self.grade(i) for i in idents), key=lambda g: g.step)

    def success_level(self, ident: str) -> SuccessLevel:
        """The success level ``ident``."""
        return self._get("success_levels", ident)

    def effect(self, ident: str) -> SpecialEffect:
        """The special effect ``ident``."""
        return self._get("special_effects", ident)

    def spirit_effect(self, ident: str) -> SpiritEffect:
        """The spirit-combat special effect ``ident``."""
        return self._get("spirit_effects", ident)

    def size(self, ident: str) -> Size:
        """The weapon Size ``ident``."""
        return self._get("sizes", ident)

    def size_ladder(self) -> list[Size]:
        """Sizes from smallest to largest."""
        return sorted(self.sizes, key=lambda s: s.rank)

    def shift_size(self, ident: str, steps: int) -> Size:
        """The size ``steps`` larger (negative: smaller), stopping at either end."""
        ladder = self.size_ladder()
        i = ladder.index(self.size(ident)) + steps
        return ladder[max(0, min(len(ladder) - 1, i))]

    def size_steps(self, larger: str, smaller: str) -> int:
        """How many steps ``smaller`` is below ``larger`` (negative if it is above)."""
        ladder = self.size_ladder()
        return ladder.index(self.size(larger)) - ladder.index(self.size(smaller))

    def reach(self, ident: str) -> Reach:
        """The weapon Reach ``ident``."""
        return self._get("reaches", ident)

    def reach_steps(self, longer: str, shorter: str) -> int:
        """How many steps ``shorter`` is below ``longer`` on the Reach ladder."""
        ladder = sorted(self.reaches, key=lambda r: r.rank)
        return ladder.index(self.reach(longer)) - ladder.index(self.reach(shorter))

    def parry_row(self, attacking_size: str, parrying_size: str) -> ParryReduction:
        """The parry-reduction row for a parry with ``parrying_size`` against ``attacking_size``."""
        steps = self.size_steps(attacking_size, parrying_size)
        for row in self.parry_reduction:
            if row.covers(steps):
                return row
        raise KeyError(f"no parry-reduction row covers {steps} steps smaller")

    def weapon(self, ident: str) -> Weapon:
        """The close-combat weapon ``ident``."""
        return self._get("weapons", ident)

    def shield(self, ident: str) -> Shield:
        """The shield ``ident``."""
        return self._get("shields", ident)

    def ranged_weapon(self, ident: str) -> RangedWeapon:
        """The ranged weapon ``ident``."""
        return self._get("ranged_weapons", ident)

    def any_weapon(self, ident: str) -> Weapon | Shield | RangedWeapon:
        """A weapon, shield or ranged weapon by id (ids are unique across the three)."""
        for key in ("weapons", "shields", "ranged_weapons"):
            if ident in self.lookup_index()[key]:
                return self.lookup_index()[key][ident]
        raise KeyError(f"no weapon, shield or ranged weapon {ident!r}")

    def armor_type(self, ident: str) -> Armor:
        """The armour type ``ident``."""
        return self._get("armor", ident)

    def location(self, ident: str) -> HitLocation:
        """The hit location ``ident``."""
        return self._get("hit_locations", ident)

    def location_table(self, ident: str | None = None) -> HitLocationTable:
        """The rollable hit-location table ``ident`` (the default body plan when None)."""
        return self._get("hit_location_tables", ident or self.combat.body_plan)

    def location_hit_points(self, stats: dict[str, int]) -> dict[str, int]:
        """Hit points of every location for a stat block (``con``, ``siz``…)."""
        base = self.hit_points.value(stats)
        return {loc.id: loc.hit_points(base) for loc in self.hit_locations}

    def wound_level(self, remaining: int, starting: int) -> WoundLevel:
        """The most severe wound level a location with ``remaining`` HP has reached."""
        for level in sorted(self.wound_levels, key=lambda w: -w.rank):
            if level.reached(remaining, starting):
                return level
        raise KeyError(f"no wound level for {remaining} of {starting} hit points")

    def damage_modifier_ladder(self) -> list[DamageModifierStep]:
        """Damage-modifier steps in ladder order (lowest STR+SIZ first)."""
        return sorted(self.damage_modifiers, key=lambda s: s.band.min)

    def damage_modifier_index(self, str_plus_siz: int) -> int:
        """The step (index into :meth:`damage_modifier_ladder`) of a STR+SIZ total."""
        ladder = self.damage_modifier_ladder()
        for i, step in enumerate(ladder):
            if step.band.contains(str_plus_siz):
                return i
        if str_plus_siz < ladder[0].band.min:
            return 0
        return len(ladder) - 1

    def damage_modifier(self, str_plus_siz: int, steps: int = 0) -> str:
        """The damage-modifier dice for a STR+SIZ total, moved ``steps`` along the ladder
        (a charge moves it +1 for a biped, +2 for four legs)."""
        ladder = self.damage_modifier_ladder()
        i = self.damage_modifier_index(str_plus_siz) + steps
        return ladder[max(0, min(len(ladder) - 1, i))].dice

    def impale_penalty(self, siz: int, weapon_size: str) -> str:
        """The impale-table result (grade id, ``no_effect`` or ``incapacitated``)."""
        for row in self.impale_effects:
            if row.siz.contains(siz):
                return row.by_weapon_size[weapon_size]
        raise KeyError(f"no impale-effects row for SIZ {siz}")

    def spirit_damage_for(self, skill: int) -> str:
        """Spirit damage dice for a spirit-combat skill value."""
        for step in self.spirit_damage:
            if step.skill.contains(skill):
                return step.damage
        raise KeyError(f"no spirit-damage row for skill {skill}")

    def fatigue_level(self, ident: str) -> FatigueLevel:
        """The fatigue level ``ident``."""
        return self._get("fatigue_levels", ident)

    def action(self, ident: str) -> Action:
        """The combat action ``ident``."""
        return self._get("actions", ident)

    def situation(self, ident: str) -> SituationalModifier:
        """The situational modifier ``ident``."""
        return self._get("situational_modifiers", ident)

    def combat_style(self, ident: str) -> CombatStyle:
        """The sample combat style ``ident``."""
        return self._get("combat_styles", ident)

    # ------------------------------------------------------------------ checks

    def cross_check(self) -> Iterator[Problem]:
        """Generic checks, then the combat-styles references (see :mod:`.cross_checks`)."""
        yield from super().cross_check()
        yield from cross_check(self)

    def reference_tables(self) -> list[ReferenceTable]:
        """One journal table per concern (see :mod:`.reference`)."""
        return reference_tables(self)
