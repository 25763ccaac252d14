"""The rule data as the engine reads it: frozen dataclasses built once per ruleset model.

:func:`arbiter.bridge.engine.combat_styles.core.rules.view_of` turns the validated pydantic model into a
:class:`RulesView`; nothing here holds a number of its own, every value comes from the rule files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from arbiter.bridge.engine.combat_styles.core.checks import CheckRules, Grade
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.differential import DifferentialTable


@dataclass(frozen=True, slots=True)
class Arm:
    """Anything that strikes or parries: a melee weapon, a shield, a ranged weapon, unarmed."""

    id: str
    name: str
    kind: str
    """``melee``, ``unarmed``, ``shield``, ``ranged``, ``firearm`` or ``siege``."""
    damage: str | None
    size: str | None
    """Size id (for ranged weapons: their Force)."""
    reach: str | None
    effects: frozenset[str]
    traits: frozenset[str]
    ap: int
    hp: int
    damage_modifier: bool = True
    ranges: tuple[int, int, int] | None = None
    load: int | None = None
    impale_size: str | None = None
    passive_block: int = 0
    parries_ranged: bool = False
    is_ranged: bool = field(init=False, compare=False)
    """A ranged, firearm or siege weapon (worked out from ``kind`` once, read constantly)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_ranged", self.kind in ("ranged", "firearm", "siege"))


@dataclass(frozen=True, slots=True)
class Location:
    """A hit location: its roll range, hit-point offset and whether it is a limb."""

    id: str
    name: str
    low: int
    high: int
    limb: bool
    hp_offset: int
    hp_minimum: int
    leg: bool = False
    adjacent: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BodyPlan:
    """A hit-location table: the die rolled and the locations it lands on."""

    id: str
    die: str
    locations: tuple[Location, ...]
    location_at: Mapping[int, Location] = field(init=False, repr=False, compare=False)
    """Die total → the first location whose range covers it (built once, read per blow)."""

    def __post_init__(self) -> None:
        at: dict[int, Location] = {}
        for loc in self.locations:
            for total in range(loc.low, loc.high + 1):
                at.setdefault(total, loc)
        object.__setattr__(self, "location_at", at)


@dataclass(frozen=True, slots=True)
class LuckMitigation:
    """Mitigate Damage: ``points`` Luck Points turn a ``from_level`` wound into ``to_level``."""

    from_level: str
    to_level: str
    points: int


@dataclass(frozen=True, slots=True)
class Fatigue:
    """A fatigue level: the grade it floors skills at, its initiative and action-point change,
    and whether the combatant can still act at all."""

    id: str
    grade: str | None
    initiative: int
    action_points: int
    no_activity: bool


@dataclass(frozen=True, slots=True)
class Knockback:
    """Knockback numbers: damage over SIZ pushes back one metre per ``per_metre`` points."""

    per_metre: int
    avoid_fall: tuple[tuple[str, str], ...]
    """(skill, grade id) checks, any one of which keeps the victim standing."""
    brace_multiplier: Fraction


@dataclass(frozen=True, slots=True)
class WoundOutcome:
    """What a wound level does to a limb or to a vital location."""

    prone: bool
    endurance_test: bool
    on_failure: str | None
    unconscious_minutes_from_damage: bool
    unconscious: bool
    timer: tuple[int, str] | None
    """Dies unless treated within (multiple × Healing Rate, unit)."""


@dataclass(frozen=True, slots=True)
class WoundRule:
    """A wound level: when it is reached and what it does."""

    id: str
    rank: int
    threshold: str
    no_attack_die: str | None
    incapacitated: bool
    limb: WoundOutcome
    vital: WoundOutcome

    def reached(self, remaining: int, starting: int) -> bool:
        if self.threshold == "above_zero":
            return remaining > 0
        if self.threshold == "zero_or_below":
            return remaining <= 0
        return remaining <= -starting


@dataclass(frozen=True, slots=True)
class Charge:
    """Charging: grade steps on the attack, damage-modifier steps, weapon size steps."""

    attack_grade_steps: int
    dm_steps_biped: int
    dm_steps_quadruped: int
    size_steps: int


@dataclass(frozen=True)
class RulesView:
    """Everything the engine needs from the combat-styles rule data."""

    checks: CheckRules
    differential: DifferentialTable
    no_defence_level: str
    effects: Mapping[str, Any]
    """Effect id → the model's SpecialEffect (requirements, resistance, params)."""
    arms: Mapping[str, Arm]
    unarmed_id: str
    sizes: tuple[str, ...]
    reaches: tuple[str, ...]
    parry_reductions: tuple[Fraction, ...]
    """Share of damage *blocked*, by steps smaller (index 0 = equal or larger)."""
    locations: tuple[Location, ...]
    """The default body plan's locations (``combat.body_plan``)."""
    location_die: str
    mounted_location_die: str
    model: Any
    """The validated pydantic model, for formulas (hit points, healing rate, impale table)."""
    wounds: tuple[WoundRule, ...]
    """Wound levels, most severe first."""
    armors: Mapping[str, tuple[int, int]]
    """Armour id → (AP per location, ENC per location)."""
    armor_penalty_divisor: int
    dm_bands: tuple[tuple[int, int | None, str], ...]
    """(STR+SIZ low, high or None, damage modifier) in ladder order."""
    dm_ladder: tuple[str, ...]
    knockback: Knockback
    charge: Charge
    surprise_initiative: int
    surprise_bonus_effects: int
    long_range_damage: Fraction
    long_range_force_steps: int
    pulled_blow_damage: Fraction
    swimming_damage: Fraction
    swim_thrusting_effects: frozenset[str]
    """A weapon listing any of these special effects thrusts (works under water)."""
    swim_thrusting_traits: frozenset[str]
    """A weapon with any of these traits thrusts."""
    swim_unaffected_kinds: frozenset[str]
    """Weapon kinds the water neither forbids nor weakens."""
    blind_strike_grade_steps: int
    crouch_multiplier: int
    brace_vs_bash: Fraction
    fatigue: tuple[Fatigue, ...]
    """Fatigue levels from Fresh down, in order."""
    evade_ends_prone: bool
    grapple_body_grade: str
    condition_situations: tuple[tuple[str, str], ...]
    """(condition, close-combat situational modifier id): a combatant bearing the condition
    rolls under it."""
    checks_ids: frozenset[str]
    inside_reach_can_parry: bool
    inside_reach_damage_cap: str
    inside_reach_size_drop_per_step: int
    ward_weapon_locations: int
    choose_location_bypasses_ward: bool
    """A location chosen by the attacker may be a warded one, and the ward does not parry it."""
    default_action: str
    situations: Mapping[str, str]
    """Situational modifier id → grade id."""
    crowd_grades: Mapping[str, str]
    """Firing into a crowd: ``edge``/``through`` → the least grade it imposes."""
    with_trained_weapon_steps: int
    familiarity: Mapping[str, int | None]
    """Weapon familiarity id → grade steps (None: fall back to the base STR+DEX)."""
    actions: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    """Combat action id → (proactive/reactive/free, action-point cost)."""
    style_trait_ids: frozenset[str] = frozenset()
    """Every style trait in the data (a stat block may name only these)."""
    style_traits: Mapping[str, Any] = field(default_factory=dict)
    """Style trait id → its ``rules`` (the model's StyleTraitRules), for traits the engine
    applies (``effect = "rules"``)."""
    withdraw_shares: Mapping[str, Fraction] = field(default_factory=dict)
    effect_conditions: Mapping[str, str] = field(default_factory=dict)
    """Condition an effect leaves (gripped, entangled, pinned, blinded, impaled) → the special
    effect whose data governs it (``combat.effect_conditions``)."""
    """Weapon trait id → share of the damage roll dealt when pulled out of a wound (Barbed)."""

    luck_mitigation: LuckMitigation | None = None
    only_shields_parry_ranged: bool = True
    """Only arms that ``parries_ranged`` (shields) may parry a missile."""
    charge_receiving_traits: frozenset[str] = frozenset()
    """Weapon traits that let a weapon be set against a charge (Set)."""
    follow_ups: Mapping[str, tuple[str, Any]] = field(default_factory=dict)
    """Action id → (the effect leaving the move, its FollowUp data: effect, skill, condition)."""
    body_plans: Mapping[str, BodyPlan] = field(default_factory=dict)
    """Hit-location table id → its plan; a combatant's ``body_plan`` picks one."""
    default_body_plan: str = ""
    """The plan of a combatant whose stat block names none (``combat.body_plan``)."""
    ranged_condition_situations: tuple[tuple[str, str], ...] = ()
    """(condition, ranged situational modifier id): the bearer's ranged attacks roll under it,
    and not under the close-combat one following the same condition."""
    prepared_position: Mapping[str, tuple[frozenset[str], frozenset[str]]] = field(
        default_factory=dict
    )
    """Situational modifier id → (weapon ids, weapon kinds) a prepared position frees from it."""

    memo: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Caches of pure functions of this view (e.g. effect eligibility)."""

    # Indexes derived from the fields above (built once per view, so never stale).
    reach_index: Mapping[str, int] = field(init=False, compare=False, hash=False)
    """Reach id → its place on the ``reaches`` ladder."""
    size_index: Mapping[str, int] = field(init=False, compare=False, hash=False)
    """Size id → its place on the ``sizes`` ladder."""
    location_by_id: Mapping[str, Location] = field(init=False, compare=False, hash=False)
    """Location id → the first location with that id: the default plan's, then the other
    plans' in order."""
    wound_rank: Mapping[str, int] = field(init=False, compare=False, hash=False)
    """Wound level id → its rank."""

    def __post_init__(self) -> None:
        by_id: dict[str, Location] = {}
        for loc in self.locations:
            by_id.setdefault(loc.id, loc)
        for plan in self.body_plans.values():
            for loc in plan.locations:
                by_id.setdefault(loc.id, loc)
        derived = {
            "reach_index": {r: i for i, r in reversed(list(enumerate(self.reaches)))},
            "size_index": {s: i for i, s in reversed(list(enumerate(self.sizes)))},
            "location_by_id": by_id,
            "wound_rank": {w.id: w.rank for w in self.wounds},
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    def body_plan(self, c: CombatantRecord | None = None) -> BodyPlan:
        """The body plan of combatant ``c`` (the default plan for None or a record without one)."""
        return self.body_plan_named(c.body_plan if c is not None else None)

    def body_plan_named(self, plan_id: str | None) -> BodyPlan:
        """The body plan ``plan_id`` (the default plan for None)."""
        plan_id = plan_id or self.default_body_plan
        try:
            return self.body_plans[plan_id]
        except KeyError:
            known = ", ".join(sorted(self.body_plans))
            raise LookupError(f"unknown body plan {plan_id!r} (known: {known})") from None

    def arm(self, arm_id: str) -> Arm:
        try:
            return self.arms[arm_id]
        except KeyError:
            raise LookupError(f"unknown weapon {arm_id!r}") from None

    def location(self, location_id: str) -> Location:
        found = self.location_by_id.get(location_id)
        if found is not None:
            return found
        known = ", ".join(loc.id for loc in self.locations)
        raise LookupError(f"unknown hit location {location_id!r} (known: {known})")

    def grade(self, grade_id: str) -> Grade:
        return self.checks.grade(grade_id)
