"""Request bodies of the hmk engine (validated at the edge by pydantic)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from arbiter.bridge.engine.hmk.index import index
from arbiter.bridge.engine.rule_context import (
    VIEWS,
    refuse,
    unknown_ids,
    view_in,
    within_limits,
)
from arbiter.compiler.model.hmk import HmkRules

CombatantId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$", max_length=64)]


def _limited(name: str) -> AfterValidator:
    """The bound ``name`` of the served rules' ``stat_block_limits`` (``stat_block_limits.toml``),
    checked as the field is validated."""
    return within_limits("hmk", HmkRules, name)


RangeBand = Literal["short", "medium", "long", "maximum"]


class Body(BaseModel):
    """Base of request bodies. Every request body declares ``acting``: the fields naming the
    participant(s) it acts for (``bridge/authority.py``); empty: a table action, the GM's."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Attributes(Body):
    """The six attributes the rules name; an attribute roll is made at or under one."""

    STR: int
    DEX: int
    AGL: int
    HEA: int
    INT: int
    AWA: int


class StatBlock(Body):
    """A combatant as the GM enters it.

    ``ip``: Injury Points when unhurt. ``specialization``: the defender's appropriate weapon
    specializations, added to its full Defensive Tactics when it defends. ``skills``: weapon id →
    skill. ``weapon``: the weapon in hand; ``weapons``: others carried (thrown weapons to ready).
    ``hand``: the weapon hand (a hand hit on it penalises strikes).

    Every weapon id (``weapon``, ``weapons``, the keys of ``skills``) and ``armor`` must be in
    the rule data.
    """

    id: CombatantId
    name: str = Field(default="", max_length=100)
    party: CombatantId = "default"
    attributes: Annotated[Attributes, _limited("attributes")]
    ip: Annotated[int, _limited("ip")]
    # A number left out takes its default, held to the served bound as a written one is
    # (validate_default): a house rule's min 2 actions admits no combatant with the default 1.
    defensive_tactics: Annotated[int, _limited("defensive_tactics")] = Field(
        default=0, validate_default=True
    )
    specialization: Annotated[int, _limited("specialization")] = Field(
        default=0, validate_default=True
    )
    skills: Annotated[dict[str, int], _limited("skills")] = Field(default_factory=dict)
    weapon: str | None = None
    weapons: list[str] = Field(default_factory=list, max_length=50)
    armor: str | None = None
    shield: bool = False
    hand: Literal["left", "right"] = "right"
    actions: Annotated[int, _limited("actions")] = Field(default=1, validate_default=True)

    def model_post_init(self, context: Any, /) -> None:
        """Under the served rules (:mod:`arbiter.bridge.engine.rule_context`), every unknown id
        is a problem at its own field, for ``check`` and every request carrying the block (the
        numbers' bounds, the data's ``stat_block_limits``, are checked as each is validated).
        (Not a validator: one call per block, and a union keeps naming this branch
        ``StatBlock``.)"""
        try:  # the usual case: the context's index of its served rules, found before
            found = context[VIEWS]["hmk"]
        except (KeyError, TypeError):
            found = view_in(context, "hmk", HmkRules, index)  # the engine's own index
        if found is None:
            return
        weapons, armor = found.weapons, found.armor
        if (
            all(w in weapons for w in self.skills)
            and all(w in weapons for w in self.weapons)
            and (self.weapon is None or self.weapon in weapons)
            and (self.armor is None or self.armor in armor)
        ):
            return  # every id known: the usual case, checked without building anything
        refuse(
            "StatBlock",
            unknown_ids("skills", self.skills, "weapon", weapons)
            + unknown_ids("weapon", self.weapon, "weapon", weapons)
            + unknown_ids("weapons", self.weapons, "weapon", weapons)
            + unknown_ids("armor", self.armor, "armor", armor),
        )


Who = CombatantId | StatBlock
"""A combatant of the encounter by id, or (without an encounter) a whole stat block."""


class AttackBody(Body):
    """One strike. Without an encounter, ``attacker``/``defender``/``bystander`` are stat blocks
    and ``defending`` says whether the target declared defence; in an encounter they are ids and
    the encounter state says it.

    ``range``/``distance_feet``: for missile and thrown strikes (one of them). ``thrown``: throw a
    throwable melee weapon. ``modifier``: any other modifier to the skill (the attacker's
    specialization, the GM's call). ``bystander``: the nearest friend or innocent / first target
    in the line of fire, struck by some fumbles. ``free_strike``: the free strike a target
    opened by a fumble grants; ``bonus_strike``: spend a Second Strike instead of an action.
    """

    acting: ClassVar[tuple[str, ...]] = ("attacker",)

    attacker: Who
    defender: Who
    weapon: str | None = None
    thrown: bool = False
    range: RangeBand | None = None
    distance_feet: int | None = Field(default=None, ge=0, le=100_000)
    target_movement: str | None = None
    attacker_movement: str | None = None
    defending: bool | None = None
    modifier: int = Field(default=0, ge=-200, le=200)
    bystander: Who | None = None
    free_strike: bool = False
    bonus_strike: bool = False

    @model_validator(mode="after")
    def _one_range(self) -> AttackBody:
        if self.range is not None and self.distance_feet is not None:
            raise ValueError("give either 'range' or 'distance_feet', not both")
        if self.free_strike and self.bonus_strike:
            raise ValueError("a strike is either a free strike or a bonus strike, not both")
        return self


class ModifierUse(Body):
    """An initiative modifier by id; ``value`` for one the GM chooses (heavy casualties)."""

    id: str
    value: int | None = None


class Entrant(Body):
    """A party (or individual) rolling initiative. ``streak``: rounds in a row it had initiative
    (only without an encounter; an encounter remembers it)."""

    id: CombatantId
    modifiers: list[ModifierUse] = Field(default_factory=list, max_length=20)
    streak: int = Field(default=0, ge=0, le=1000)


class InitiativeBody(Body):
    """Roll initiative by party (the default) or by individual. In an encounter the entrants
    are its parties or combatants; ``entrants`` then only adds modifiers to some of them."""

    acting: ClassVar[tuple[str, ...]] = ()

    mode: Literal["party", "individual"] = "party"
    entrants: list[Entrant] = Field(default_factory=list, max_length=100)


class StartBody(Body):
    """Start an encounter (round 1) with these combatants."""

    acting: ClassVar[tuple[str, ...]] = ()

    combatants: list[StatBlock] = Field(min_length=1, max_length=100)


class NextRoundBody(Body):
    """End the round: bleeding, death timers, knock-outs and lost rounds advance."""

    acting: ClassVar[tuple[str, ...]] = ()


class DeclareBody(Body):
    """First-action declarations: defending this round, and how fast the combatant moves."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: CombatantId
    defending: bool = False
    movement: str = "walking"


class CombatantBody(Body):
    """A request about one combatant (reload, stand)."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: CombatantId


class ReadyBody(Body):
    """Ready a carried (or dropped) weapon, e.g. another weapon to throw."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: CombatantId
    weapon: str


class AidBody(Body):
    """Medical assistance and healing. ``stabilize`` stops the death timer; ``heal_ip`` restores
    IP (up to the unhurt value); ``cure`` ends bleeding and every until-healed effect
    (incapacitation, lasting penalties, conditions). Permanent attribute losses stay."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: CombatantId
    stabilize: bool = True
    heal_ip: int = Field(default=0, ge=0, le=9999)
    cure: bool = False
