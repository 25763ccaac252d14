"""The stat block a request supplies for a combatant (validated at the edge by pydantic).

Kept apart from :mod:`arbiter.bridge.engine.combat_styles.encounter.combatants`, which builds the encounter
record from it, so that module imports no pydantic and is compiled with the engine.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import InitErrorDetails, PydanticCustomError

from arbiter.bridge.engine.combat_styles.core.block_checks import block_problems
from arbiter.bridge.engine.combat_styles.core.damage import modifier_expr
from arbiter.bridge.engine.combat_styles.core.rules import view_of
from arbiter.bridge.engine.rule_context import VIEWS, refuse, view_in, within_limits
from arbiter.compiler.model.combat_styles.model import CombatStylesRules


def _rollable(text: str | None) -> str | None:
    """``text`` when the engine can roll it as a damage modifier; otherwise the parser's
    DiceError (a ValueError: pydantic names the field). Checked at the door, before any die,
    so a stat block the engine cannot roll never gets as far as a landed blow."""
    if text is not None:
        modifier_expr(text)  # cached: a stat block's usual modifiers cost a lookup
    return text


DamageModifier = Annotated[str | None, AfterValidator(_rollable)]
"""A damage modifier (``+1d4``, ``-1d6``, ``+0``) within the dice grammar's limits."""


def _limited(name: str) -> AfterValidator:
    """The bound ``name`` of the served rules' ``stat_block_limits`` (``stat_block_limits.toml``),
    checked as the field is validated."""
    return within_limits("combat-styles", CombatStylesRules, name)


Skills = Annotated[dict[str, int], _limited("skills")]
"""Percentile skills by name (bundled: each 0–500; over 100 is allowed, the rules reduce every
opposed skill by the excess)."""
LocationHitPoints = Annotated[dict[str, int] | None, _limited("hit_points")]
"""Starting hit points by location (bundled: each 1–1000)."""
ArmorPoints = Annotated[dict[str, int], _limited("natural_armor")]
"""Natural armour points by location (bundled: each 0–100)."""
Characteristic = Annotated[int, _limited("characteristics")]
"""A characteristic other than SIZ (bundled: 0–200; SIZ has its own bound, ``siz``: 1–500)."""


class Body(BaseModel):
    """Base of request models: unknown fields are errors.

    Every request body declares ``acting``: the fields naming the participant(s) it acts for
    (``bridge/authority.py``); an empty tuple makes it a table action, the GM's alone.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


class Characteristics(Body):
    """The seven characteristics (JSON keys ``str``, ``con``, ``siz``, ``dex``, ``int``,
    ``pow``, ``cha``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    STR: Characteristic = Field(alias="str")
    CON: Characteristic = Field(alias="con")
    SIZ: Annotated[int, _limited("siz")] = Field(alias="siz")
    DEX: Characteristic = Field(alias="dex")
    INT: Characteristic = Field(alias="int")
    # Left out, POW and CHA are 0, held to the served bound as a written 0 is (validate_default).
    POW: Characteristic = Field(default=0, alias="pow", validate_default=True)
    CHA: Characteristic = Field(default=0, alias="cha", validate_default=True)


class StatBlock(Body):
    """One combatant as a request describes it."""

    id: str = Field(min_length=1, max_length=64)
    name: str = Field(default="", max_length=128)
    characteristics: Characteristics
    skills: Skills = Field(default_factory=dict)
    """Skill values by name: combat_style, evade, endurance, willpower, brawn, athletics,
    acrobatics, unarmed, ride, swim, fly. Missing skills count as 0 (unarmed: the combat
    style)."""
    weapons: list[str] = Field(default_factory=list, max_length=8)
    """Weapon, shield and ranged-weapon ids from the rule data, each once; unarmed is always
    available."""
    armor: dict[str, str] = Field(default_factory=dict)
    """Hit location id → armour id worn there."""
    natural_armor: ArmorPoints = Field(default_factory=dict)
    """Hit location id → natural armour points there."""
    hit_points: LocationHitPoints = None
    """Hit location id → starting hit points there; a location left out takes the rule data's
    value from CON+SIZ (absent: every location does)."""
    damage_modifier: DamageModifier = None
    """Absent: derived from STR+SIZ. Refused at the door when the engine could not roll it."""
    action_points: Annotated[int | None, _limited("action_points")] = None
    initiative_bonus: Annotated[int | None, _limited("initiative_bonus")] = None
    """Absent: the rule data's formula (the mean of DEX and INT, so 0 to 200 under the
    characteristics' bounds)."""
    healing_rate: Annotated[int | None, _limited("healing_rate")] = None
    luck_points: Annotated[int | None, _limited("luck_points")] = None
    """Luck Points (absent: the rule data's ``derived.luck_points``, from POW)."""
    traits: list[str] = Field(default_factory=list)
    """Combat-style traits (``style_traits`` ids, e.g. ``assassination``, ``unarmed_prowess``)."""
    quadruped: bool = False
    body_plan: str | None = None
    """A ``hit_location_tables`` id: the table his hit locations are rolled on (absent: the
    rule data's ``combat.body_plan``)."""
    fatigue_initiative: Annotated[int, _limited("fatigue_initiative")] = Field(
        default=0, validate_default=True
    )
    """Initiative penalty from fatigue (0 when fresh; the data's worst level costs 8),
    subtracted: never a bonus."""
    movement: Annotated[int | None, _limited("movement")] = None
    """Movement rate in metres (a mount outpacing its foes lets its rider withdraw freely)."""
    fatigue: str | None = Field(default=None, max_length=64)
    """The fatigue level id the combatant starts at (absent: the first, Fresh)."""
    magic_points: Annotated[int | None, _limited("magic_points")] = None
    """Magic Points (absent: the rule data's formula, if it has one)."""
    spirit_combat: Annotated[int | None, _limited("spirit_combat")] = None
    """The spirit-combat skill (Spectral Combat for spirits); absent: he cannot engage."""
    spirit: bool = False
    """A spirit (a ghost, an elemental) rather than a mortal: spirit effects that only a mortal
    (or only a spirit) may take, or that work only on one, read it."""
    enc: Annotated[int | None, _limited("enc")] = None
    """Total ENC carried (absent: encumbrance is not assessed)."""
    hands: dict[str, str | None] | None = None
    """Hand id (rule data ``combat.hands``) → the weapon it holds, or None for an empty hand.
    Absent: the listed weapons fill the hands in order; what does not fit is carried."""

    def model_post_init(self, context: Any, /) -> None:
        """Under the served rules (:mod:`arbiter.bridge.engine.rule_context`), every id the rule
        data lacks (:func:`~arbiter.bridge.engine.combat_styles.core.block_checks.block_problems`:
        weapons, style traits, armour, hit locations, skills, body plan, fatigue level, hands)
        is a problem at its own field, for ``check``, ``put_stat_block`` and every request
        carrying the block alike, before any die. (Not a validator: one call per block.) The
        numbers' bounds, also the served data's (``stat_block_limits``), are checked as each
        field is validated (:func:`_limited`)."""
        try:  # the usual case: the context's view of its served rules, found before
            view = context[VIEWS]["combat-styles"]
        except (KeyError, TypeError):
            view = view_in(context, "combat-styles", CombatStylesRules, view_of)
        if view is None:
            return
        found = block_problems(view, self.__dict__)
        if found:
            refuse("StatBlock", [_detail(self, loc, message) for loc, message in found])


def _detail(block: StatBlock, loc: tuple[str | int, ...], message: str) -> InitErrorDetails:
    """The problem ``message`` at ``loc``, with the value found there as its input."""
    value: Any = block.__dict__
    for step in loc:
        if isinstance(value, dict):
            value = value.get(step)
        elif isinstance(value, list) and isinstance(step, int):
            value = value[step]
        else:
            value = None
    # A custom error type with no context: pydantic shows the message as it is (no "Value
    # error, " prefix, and braces in an id are not taken for a template).
    return InitErrorDetails(type=PydanticCustomError("unknown_id", message), loc=loc, input=value)
