"""The effective chance of a strike, and what a natural d100 roll means for it.

Effective chance = skill + modifier − Defensive Tactics (¼ of it, or all of it plus the
defender's specializations when the target defends; none when a fumble left it open) + range,
target-movement, attacker-movement and lasting penalties; never below the minimum (5%).
Critical: the natural roll × 10 is below the unmodified skill. Fumble: 96–100, whatever else.
"""

from __future__ import annotations

from dataclasses import dataclass

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.hmk.index import Index
from arbiter.bridge.engine.hmk.requests import AttackBody
from arbiter.bridge.engine.hmk.state import Combatant
from arbiter.compiler.model.hmk.combat import Combat
from arbiter.compiler.model.hmk.gear import Weapon

MELEE, MISSILE, THROWN = "melee", "missile", "thrown"
FUMBLE, CRITICAL, HIT, MISS = "fumble", "critical", "hit", "miss"


@dataclass(slots=True)
class Chance:
    """Every term of the effective chance, for the chat card and the odds (not frozen: a
    frozen dataclass is several times slower to build, and this is built on every strike)."""

    skill: int
    modifier: int
    defensive_tactics: int
    defending: bool
    opened: bool
    dt_applied: int
    range_band: str | None
    range_penalty: int
    target_movement: str
    target_movement_penalty: int
    attacker_movement: str
    attacker_movement_penalty: int
    lasting_penalty: int
    effective: int

    def to_json(self) -> JSON:
        return {
            "skill": self.skill,
            "modifier": self.modifier,
            "defensive_tactics": self.defensive_tactics,
            "defending": self.defending,
            "opened": self.opened,
            "dt_applied": self.dt_applied,
            "range": self.range_band,
            "range_penalty": self.range_penalty,
            "target_movement": self.target_movement,
            "target_movement_penalty": self.target_movement_penalty,
            "attacker_movement": self.attacker_movement,
            "attacker_movement_penalty": self.attacker_movement_penalty,
            "lasting_penalty": self.lasting_penalty,
            "effective": self.effective,
        }


def classify(roll: int, chance: Chance, combat: Combat) -> str:
    """fumble, critical, hit or miss for a natural strike roll.

    A critical is decided on the natural roll against the unmodified skill, so it hits even
    when the modifiers pushed the effective chance below the roll.
    """
    if roll >= combat.fumble_from:
        return FUMBLE
    if roll * combat.critical_divisor < chance.skill:
        return CRITICAL
    return HIT if roll <= chance.effective else MISS


def strike_mode(weapon: Weapon, thrown: bool) -> str:
    if weapon.kind == "missile":
        if thrown:
            raise EngineError(f"a {weapon.name} is fired, not thrown")
        return MISSILE
    if thrown:
        if not weapon.throwable:
            raise EngineError(f"a {weapon.name} is not a weapon that can be thrown")
        return THROWN
    return MELEE


def range_band(
    ix: Index, weapon: Weapon, mode: str, thrower: Combatant, body: AttackBody
) -> str | None:
    """The range band of the strike: given, or found from the distance in feet."""
    if mode == MELEE:
        if body.range is not None or body.distance_feet is not None:
            raise EngineError("a melee strike has no range; leave out 'range' and 'distance_feet'")
        return None
    thrown = ix.rules.thrown_weapons
    if body.range is not None:
        allowed = [b.range for b in thrown.bands] if mode == THROWN else list(ix.range_penalty)
        if body.range not in allowed:
            raise EngineError(
                f"a thrown weapon has no {body.range} range (only {', '.join(allowed)})"
            )
        return body.range
    if body.distance_feet is None:
        raise EngineError(f"a {mode} strike needs 'range' or 'distance_feet'")
    feet = body.distance_feet
    if mode == THROWN:
        strength = thrower.attributes["STR"]
        for band in thrown.bands:
            if feet <= strength // band.strength_divisor:
                return band.range
        reach = strength // thrown.bands[-1].strength_divisor
        raise EngineError(f"{thrower.name} can throw at most {reach} ft (STR {strength})")
    assert weapon.ranges is not None  # the model guarantees ranges on missile weapons
    for name, limit in zip(("short", "medium", "long", "maximum"), weapon.ranges, strict=True):
        if feet <= limit:
            return name
    raise EngineError(f"{feet} ft is beyond the {weapon.name}'s maximum range of {limit} ft")


def effective_chance(
    ix: Index,
    attacker: Combatant,
    defender: Combatant,
    weapon: Weapon,
    mode: str,
    band: str | None,
    body: AttackBody,
    defending: bool,
) -> Chance:
    """Every term of the strike's effective chance (see the module docstring)."""
    combat = ix.rules.combat
    skill = attacker.skills.get(weapon.id)
    if skill is None:
        raise EngineError(f"{attacker.name} has no skill with the {weapon.name}")
    dt = max(0, defender.defensive_tactics + defender.penalty_to("defensive_tactics"))
    if defender.opened:
        dt_applied = 0
    elif defending:
        dt_applied = dt + defender.specialization
    else:
        dt_applied = dt // combat.undefended_dt_divisor
    range_penalty = ix.range_penalty[band] if band is not None else 0
    target_speed = body.target_movement or defender.movement
    target_move = ix.movement_of(target_speed)
    own_speed = body.attacker_movement or attacker.movement
    own_move = ix.movement_of(own_speed)
    if not own_move.attacker_may_attack:
        raise EngineError(f"{attacker.name} is {own_speed}: one can strike moving up to a trot")
    lasting = attacker.penalty_to("strike")
    if mode != MELEE:
        lasting += attacker.penalty_to("depth_perception")
    raw = (
        skill
        + body.modifier
        - dt_applied
        + range_penalty
        + target_move.penalty
        + own_move.penalty
        + lasting
    )
    return Chance(
        skill=skill,
        modifier=body.modifier,
        defensive_tactics=dt,
        defending=defending,
        opened=defender.opened,
        dt_applied=dt_applied,
        range_band=band,
        range_penalty=range_penalty,
        target_movement=target_speed,
        target_movement_penalty=target_move.penalty,
        attacker_movement=own_speed,
        attacker_movement_penalty=own_move.penalty,
        lasting_penalty=lasting,
        effective=max(combat.minimum_chance, raw),
    )
