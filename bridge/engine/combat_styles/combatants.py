"""Combatants: the stat block a request supplies and the JSON record kept in encounter state.

A stat block names the combatant's skills, weapons and armour by rule-data ids; anything left
out is derived from the characteristics by the rule data (hit points per location, damage
modifier, initiative bonus, healing rate) or defaults from it (action points).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from bridge.engine.combat_styles.bodily import bodily_record
from bridge.engine.combat_styles.checks import ceil_div
from bridge.engine.combat_styles.view import RulesView
from bridge.engine.contract import JSON, EngineError

SKILLS = (
    "combat_style",
    "evade",
    "endurance",
    "willpower",
    "brawn",
    "athletics",
    "acrobatics",
    "unarmed",
    "ride",
    "swim",
    "fly",
)


class Body(BaseModel):
    """Base of request models: unknown fields are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Characteristics(Body):
    """The seven characteristics (JSON keys ``str``, ``con``, ``siz``, ``dex``, ``int``,
    ``pow``, ``cha``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    STR: int = Field(alias="str", ge=0, le=200)
    CON: int = Field(alias="con", ge=0, le=200)
    SIZ: int = Field(alias="siz", ge=1, le=500)
    DEX: int = Field(alias="dex", ge=0, le=200)
    INT: int = Field(alias="int", ge=0, le=200)
    POW: int = Field(0, alias="pow", ge=0, le=200)
    CHA: int = Field(0, alias="cha", ge=0, le=200)


class StatBlock(Body):
    """One combatant as a request describes it."""

    id: str = Field(min_length=1, max_length=64)
    name: str = Field("", max_length=128)
    characteristics: Characteristics
    skills: dict[str, int] = Field(default_factory=dict)
    """Skill values by name: combat_style, evade, endurance, willpower, brawn, athletics,
    acrobatics, unarmed, ride, swim, fly. Missing skills count as 0 (unarmed: the combat
    style)."""
    weapons: list[str] = Field(default_factory=list, max_length=8)
    """Weapon, shield and ranged-weapon ids from the rule data; unarmed is always available."""
    armor: dict[str, str] = Field(default_factory=dict)
    """Hit location id → armour id worn there."""
    natural_armor: dict[str, int] = Field(default_factory=dict)
    hit_points: dict[str, int] | None = None
    damage_modifier: str | None = None
    action_points: int | None = Field(None, ge=0, le=10)
    initiative_bonus: int | None = None
    healing_rate: int | None = Field(None, ge=0)
    luck_points: int = Field(0, ge=0, le=20)
    traits: list[str] = Field(default_factory=list)
    """Combat-style traits (``style_traits`` ids, e.g. ``assassination``, ``unarmed_prowess``)."""
    quadruped: bool = False
    body_plan: str | None = None
    """A ``hit_location_tables`` id: the table his hit locations are rolled on (absent: the
    rule data's ``combat.body_plan``)."""
    fatigue_initiative: int = 0
    """Initiative penalty from fatigue (0 when fresh)."""
    movement: int | None = Field(None, ge=0, le=1000)
    """Movement rate in metres (a mount outpacing its foes lets its rider withdraw freely)."""
    fatigue: str | None = Field(None, max_length=64)
    """The fatigue level id the combatant starts at (absent: the first, Fresh)."""
    magic_points: int | None = Field(None, ge=0, le=500)
    """Magic Points (absent: the rule data's formula, if it has one)."""
    spirit_combat: int | None = Field(None, ge=0, le=500)
    """The spirit-combat skill (Spectral Combat for spirits); absent: he cannot engage."""
    spirit: bool = False
    """A spirit (a ghost, an elemental) rather than a mortal: spirit effects that only a mortal
    (or only a spirit) may take, or that work only on one, read it."""
    enc: int | None = Field(None, ge=0, le=10000)
    """Total ENC carried (absent: encumbrance is not assessed)."""
    hands: dict[str, str | None] | None = None
    """Hand id (rule data ``combat.hands``) → the weapon it holds, or None for an empty hand.
    Absent: the listed weapons fill the hands in order; what does not fit is carried."""


def record(rules: RulesView, block: StatBlock) -> JSON:
    """The encounter-state record of a combatant (plain JSON)."""
    ch = block.characteristics
    stats = ch.model_dump(by_alias=True)
    key = tuple(stats.values())
    for wid in block.weapons:
        rules.arm(wid)
    for trait in block.traits:
        if trait not in rules.style_trait_ids:
            known = ", ".join(sorted(rules.style_trait_ids))
            raise LookupError(f"unknown style trait {trait!r} (known: {known})")
    plan = rules.body_plan({"body_plan": block.body_plan}).id
    hp = dict(
        block.hit_points
        if block.hit_points is not None
        else derived(rules, hit_points, stats, key, plan)
    )
    for loc in hp:
        rules.location(loc)
    armor_ap: dict[str, int] = {}
    worn_enc = 0
    for loc, armor_id in block.armor.items():
        rules.location(loc)
        if armor_id not in rules.armors:
            raise LookupError(f"unknown armour {armor_id!r} on {loc}")
        ap, enc = rules.armors[armor_id]
        armor_ap[loc] = ap
        worn_enc += enc
    skills = {name: int(block.skills.get(name, 0)) for name in SKILLS}
    for name in block.skills:
        if name not in SKILLS:
            raise LookupError(f"unknown skill {name!r} (known: {', '.join(SKILLS)})")
    if "unarmed" not in block.skills:
        skills["unarmed"] = skills["combat_style"]
    return {
        "id": block.id,
        "name": block.name or block.id,
        "characteristics": dict(stats),
        "skills": skills,
        "weapons": {
            wid: {"hp": rules.arm(wid).hp, "broken": False}
            for wid in [*block.weapons, rules.unarmed_id]
        },
        "hit_points_max": hp,
        "hit_points": dict(hp),
        "armor": armor_ap,
        "natural_armor": {loc: int(v) for loc, v in block.natural_armor.items()},
        "armor_penalty": ceil_div(worn_enc, rules.armor_penalty_divisor),
        "damage_modifier": block.damage_modifier or damage_modifier(rules, ch.STR + ch.SIZ),
        "action_points_max": block.action_points
        if block.action_points is not None
        else derived(rules, action_points, stats, key),
        "initiative_bonus": block.initiative_bonus
        if block.initiative_bonus is not None
        else derived(rules, initiative_bonus, stats, key),
        "healing_rate": block.healing_rate
        if block.healing_rate is not None
        else derived(rules, healing_rate, stats, key),
        "luck_points": block.luck_points,
        "traits": sorted(block.traits),
        "quadruped": block.quadruped,
        "body_plan": plan,
        "fatigue_initiative": block.fatigue_initiative,
        "movement": block.movement,
        "conditions": {},
        "wounds": {},
        **bodily_record(rules, block, stats),
    }


T = TypeVar("T")


def derived(
    rules: RulesView,
    formula: Callable[..., T],
    stats: dict[str, int],
    key: tuple[int, ...],
    *args: Any,
) -> T:
    """``formula(rules, stats, *args)``, memoised per view on the characteristics ``key`` and
    ``args`` (the same stat blocks come again and again; a formula is a pure function of them).
    A dict result is shared: the caller copies it before handing it out."""
    memo = rules.memo.setdefault("derived", {})
    found = memo.get((formula, key, args))
    if found is None:
        if len(memo) >= 4096:
            memo.clear()
        found = memo[(formula, key, args)] = formula(rules, stats, *args)
    return found


def action_points(rules: RulesView, stats: dict[str, int]) -> int:
    """Action points per round by the rule data's method (fixed, or the attribute table)."""
    try:
        return int(rules.model.action_points.points(stats))
    except KeyError as err:
        raise LookupError(str(err).strip("'\"")) from None


def hit_points(rules: RulesView, stats: dict[str, int], plan: str | None = None) -> dict[str, int]:
    """Hit points per location of the body plan (the default one unless named) from the
    characteristics, by the rule data's formula."""
    base = rules.model.hit_points.value(stats)
    locations = rules.body_plan({"body_plan": plan}).locations
    return {loc.id: max(loc.hp_minimum, base + loc.hp_offset) for loc in locations}


def damage_modifier(rules: RulesView, str_siz: int) -> str:
    for low, high, dm in rules.dm_bands:
        if str_siz >= low and (high is None or str_siz <= high):
            return dm
    return rules.dm_ladder[-1]


def initiative_bonus(rules: RulesView, stats: dict[str, int]) -> int:
    return rules.model.initiative.bonus.value(stats)  # type: ignore[no-any-return]


def healing_rate(rules: RulesView, stats: dict[str, int]) -> int:
    return int(rules.model.derived.healing_rate.value(stats))


def combatant(state: JSON, cid: str) -> JSON:
    """The record of ``cid`` in ``state``; EngineError when there is none."""
    try:
        return state["combatants"][cid]
    except KeyError:
        known = ", ".join(sorted(state.get("combatants", {})))
        raise EngineError(f"no combatant {cid!r} in this encounter (present: {known})") from None


def writable(state: JSON, *ids: str) -> JSON:
    """A copy of ``state`` in which the records of ``ids`` may be changed freely.

    The input state is never mutated (the server keeps it). Only the touched records are
    copied, and of those only the parts requests change (hit points, armour, weapons,
    conditions, wounds, marks); characteristics, skills and the like are shared.
    """
    out = dict(state)
    out["combatants"] = dict(state["combatants"])
    # The round bookkeeping is small and changes on most requests: copy it outright.
    for key in ("acted", "proactive", "delayed", "order"):
        if key in state:
            out[key] = list(state[key])
    for key in ("pending", "initiative"):
        if key in state:
            out[key] = dict(state[key])
    records = out["combatants"]
    for cid in ids:
        old = records.get(cid)
        records[cid] = writable_record(old if old is not None else combatant(state, cid))
    return out


def writable_record(old: JSON) -> JSON:
    """A copy of one record whose changeable parts are its own."""
    rec = dict(old)
    rec["hit_points"] = dict(old["hit_points"])
    rec["armor"] = dict(old["armor"])
    rec["weapons"] = weapons = dict(old["weapons"])
    for wid, held in weapons.items():  # a loop, not a comprehension: no frame of its own
        weapons[wid] = dict(held)
    rec["conditions"] = deep_copy(old["conditions"]) if old["conditions"] else {}
    rec["wounds"] = dict(old["wounds"])
    if "marks" in old:
        rec["marks"] = list(old["marks"])
    return rec


def deep_copy(value: Any) -> Any:
    """A deep copy of plain JSON data (dicts, lists, strings, numbers, None).

    ``marshal`` round-trips exactly these types in C, an order of magnitude faster than a
    recursive copy; it is used on engine-built state only, never on untrusted bytes.
    """
    return marshal.loads(marshal.dumps(value))


def has_condition(c: JSON, name: str) -> bool:
    return name in c["conditions"]


def add_condition(c: JSON, name: str, turns: int | None = None, **data: Any) -> None:
    """Set a condition; ``turns`` counts the bearer's turns left (None: until removed)."""
    entry: dict[str, Any] = {"turns": turns, **data}
    old = c["conditions"].get(name)
    if old is not None:
        # A lasting condition stays lasting; two counted ones keep the longer count.
        if old.get("turns") is None or turns is None:
            entry["turns"] = None
        else:
            entry["turns"] = max(turns, old["turns"])
        entry = {**old, **entry}
    c["conditions"][name] = entry
