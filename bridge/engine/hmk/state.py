"""The encounter state: combatants with everything that lasts between requests.

The state travels as a JSON-able dict (the server stores it). :func:`load` turns it into
mutable objects the engine works on — new objects, so the caller's dict is never changed —
and :meth:`Encounter.to_json` turns them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.hmk.requests import StatBlock

ACTIVE, UNCONSCIOUS, DEAD = "active", "unconscious", "dead"

LASTING = (
    "bleeding",
    "penalized",
    "incapacitated",
    "prone",
    "knocked_out",
    "losing_rounds",
    "out_this_round",
    "walk_only",
)
"""The kinds of :meth:`Combatant.lasting`, in order: bleeding every round until cured;
penalties until healed; incapacitated until healed; down until it stands; rounds still to sit
out after a knock-out or a stun; out of this round; only able to walk (a twisted ankle)."""


@dataclass(slots=True)
class Gear:
    """One weapon a combatant owns. ``where``: hand, carried, dropped, disarmed or thrown."""

    where: str = "carried"
    broken: bool = False
    loaded: bool = True
    reload_progress: int = 0
    distance_feet: int | None = None

    def to_json(self) -> JSON:
        return {
            "where": self.where,
            "broken": self.broken,
            "loaded": self.loaded,
            "reload_progress": self.reload_progress,
            "distance_feet": self.distance_feet,
        }


@dataclass(slots=True)
class LastingPenalty:
    """A penalty until healed: to the listed rolls, only with a shield or with one hand."""

    targets: tuple[str, ...]
    amount: int
    source: str
    requires_shield: bool = False
    hand: str | None = None

    def to_json(self) -> JSON:
        return {
            "targets": list(self.targets),
            "amount": self.amount,
            "source": self.source,
            "requires_shield": self.requires_shield,
            "hand": self.hand,
        }


@dataclass(slots=True)
class Combatant:
    """A combatant in the fight; the stat block's values plus what happened to it."""

    id: str
    name: str
    party: str
    attributes: dict[str, int]
    """Current attributes: the stat block's less permanent losses."""
    max_ip: int
    ip: int
    defensive_tactics: int
    specialization: int
    skills: dict[str, int]
    armor: str | None
    shield: bool
    hand: str
    actions: int
    weapon: str | None
    gear: dict[str, Gear]
    status: str = ACTIVE
    death_in: int | None = None
    stabilized: bool = False
    actions_left: int = 0
    actions_used: int = 0
    actions_owed: int = 0
    bonus_strikes: int = 0
    defending: bool = False
    movement: str = "walking"
    lost_rounds: int = 0
    out_this_round: bool = False
    """True while the combatant sits out this round (knocked out or stunned)."""
    knocked_out: int = 0
    incapacitated: bool = False
    prone: bool = False
    opened: bool = False
    free_strikes_taken: list[str] = field(default_factory=list)
    bleeding: list[JSON] = field(default_factory=list)
    penalties: list[LastingPenalty] = field(default_factory=list)
    conditions: list[JSON] = field(default_factory=list)
    attribute_losses: list[JSON] = field(default_factory=list)
    armor_loss: int = 0
    walk_only_days: int = 0

    @classmethod
    def from_stats(cls, stats: StatBlock) -> Combatant:
        gear = {w: Gear() for w in stats.weapons}
        if stats.weapon is not None:
            gear[stats.weapon] = Gear(where="hand")
        return cls(
            id=stats.id,
            name=stats.name or stats.id,
            party=stats.party,
            attributes=_attributes(stats),
            max_ip=stats.ip,
            ip=stats.ip,
            defensive_tactics=stats.defensive_tactics,
            specialization=stats.specialization,
            skills=dict(stats.skills),
            armor=stats.armor,
            shield=stats.shield,
            hand=stats.hand,
            actions=stats.actions,
            weapon=stats.weapon,
            gear=gear,
            actions_left=stats.actions,
        )

    @property
    def can_act(self) -> bool:
        """Awake, alive, not knocked out or stunned this round, not incapacitated."""
        return self.status == ACTIVE and not self.incapacitated and not self.out_this_round

    def why_not(self) -> str:
        """Why the combatant cannot act (for error messages)."""
        if self.status != ACTIVE:
            return f"{self.name} is {self.status}"
        if self.incapacitated:
            return f"{self.name} is incapacitated until healed"
        if self.out_this_round:
            return f"{self.name} is knocked out or stunned this round"
        return f"{self.name} can act"

    def penalty_to(self, target: str, *, hand: str | None = None) -> int:
        """The total lasting penalty to rolls of ``target`` (made with ``hand``, if one)."""
        total = 0
        for p in self.penalties:
            if target not in p.targets:
                continue
            if p.requires_shield and not self.shield:
                continue
            if p.hand is not None and p.hand != (hand or self.hand):
                continue
            total += p.amount
        return total

    def lasting(self) -> list[str]:
        """What the combatant suffers now that outlasts the request, as the tabletop shows it:
        each of :data:`LASTING` that holds, in that order, then ``condition:<name>`` for each
        condition until healed. Only flags of the state, never a number of a stat block."""
        kinds: list[str] = []
        if self.bleeding:
            kinds.append("bleeding")
        if self.penalties:
            kinds.append("penalized")
        if self.incapacitated:
            kinds.append("incapacitated")
        if self.prone:
            kinds.append("prone")
        if self.knocked_out > 0:
            kinds.append("knocked_out")
        if self.lost_rounds > 0:
            kinds.append("losing_rounds")
        if self.out_this_round:
            kinds.append("out_this_round")
        if self.walk_only_days > 0:
            kinds.append("walk_only")
        for condition in self.conditions:
            kinds.append(f"condition:{condition['name']}")
        return kinds

    def summary(self) -> JSON:
        """What a chat card and the tabletop show about a combatant after a request: its IP,
        status and death timer, and what it suffers that lasts (:meth:`lasting`)."""
        return {
            "name": self.name,
            "ip": self.ip,
            "max_ip": self.max_ip,
            "status": self.status,
            "death_in": self.death_in,
            "lasting": self.lasting(),
        }

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "name": self.name,
            "party": self.party,
            "attributes": dict(self.attributes),
            "max_ip": self.max_ip,
            "ip": self.ip,
            "defensive_tactics": self.defensive_tactics,
            "specialization": self.specialization,
            "skills": dict(self.skills),
            "armor": self.armor,
            "shield": self.shield,
            "hand": self.hand,
            "actions": self.actions,
            "weapon": self.weapon,
            "gear": {k: g.to_json() for k, g in self.gear.items()},
            "status": self.status,
            "death_in": self.death_in,
            "stabilized": self.stabilized,
            "actions_left": self.actions_left,
            "actions_used": self.actions_used,
            "actions_owed": self.actions_owed,
            "bonus_strikes": self.bonus_strikes,
            "defending": self.defending,
            "movement": self.movement,
            "lost_rounds": self.lost_rounds,
            "out_this_round": self.out_this_round,
            "knocked_out": self.knocked_out,
            "incapacitated": self.incapacitated,
            "prone": self.prone,
            "opened": self.opened,
            "free_strikes_taken": list(self.free_strikes_taken),
            "bleeding": [dict(b) for b in self.bleeding],
            "penalties": [p.to_json() for p in self.penalties],
            "conditions": [dict(c) for c in self.conditions],
            "attribute_losses": [dict(a) for a in self.attribute_losses],
            "armor_loss": self.armor_loss,
            "walk_only_days": self.walk_only_days,
        }


@dataclass(slots=True)
class Encounter:
    """The whole fight: the round, the combatants and the initiative memory."""

    round: int
    combatants: dict[str, Combatant]
    order: list[list[str]] = field(default_factory=list)
    streaks: dict[str, int] = field(default_factory=dict)

    def get(self, ident: str, role: str) -> Combatant:
        found = self.combatants.get(ident)
        if found is None:
            known = ", ".join(sorted(self.combatants)) or "none"
            raise EngineError(f"no combatant {ident!r} in this encounter ({role}; known: {known})")
        return found

    def to_json(self) -> JSON:
        return {
            "round": self.round,
            "combatants": {k: c.to_json() for k, c in self.combatants.items()},
            "order": [list(place) for place in self.order],
            "streaks": dict(self.streaks),
        }


def _attributes(stats: StatBlock) -> dict[str, int]:
    a = stats.attributes  # spelled out: about three times faster than model_dump()
    return {"STR": a.STR, "DEX": a.DEX, "AGL": a.AGL, "HEA": a.HEA, "INT": a.INT, "AWA": a.AWA}


def load(state: JSON) -> Encounter:
    """The encounter held in ``state``; EngineError when the state is not an hmk encounter."""
    try:
        return Encounter(
            round=_int(state["round"]),
            combatants={k: _combatant(v) for k, v in state["combatants"].items()},
            order=[[str(i) for i in place] for place in state.get("order", [])],
            streaks={str(k): _int(v) for k, v in state.get("streaks", {}).items()},
        )
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise EngineError(f"the encounter state is not an hmk encounter: {err!r}") from None


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def _combatant(raw: JSON) -> Combatant:
    data = dict(raw)
    gear = {k: Gear(**v) for k, v in data.pop("gear").items()}
    penalties = [
        LastingPenalty(
            targets=tuple(p["targets"]),
            amount=_int(p["amount"]),
            source=p["source"],
            requires_shield=bool(p.get("requires_shield", False)),
            hand=p.get("hand"),
        )
        for p in data.pop("penalties")
    ]
    combatant = Combatant(gear=gear, penalties=penalties, **data)
    combatant.attributes = dict(combatant.attributes)
    combatant.skills = dict(combatant.skills)
    combatant.free_strikes_taken = list(combatant.free_strikes_taken)
    combatant.bleeding = [dict(b) for b in combatant.bleeding]
    combatant.conditions = [dict(c) for c in combatant.conditions]
    combatant.attribute_losses = [dict(a) for a in combatant.attribute_losses]
    for name in ("ip", "max_ip", "actions_left", "actions_used", "knocked_out", "lost_rounds"):
        _int(getattr(combatant, name))
    return combatant
