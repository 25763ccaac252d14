"""A full strike: who strikes whom with what, the effective chance, the d100 roll, and every
consequence (injury, the critical or fumble table, their effects), applied to the encounter.

Dice, in order: the strike roll (``combat.strike_die``); on a hit the d10 injury roll, then on a
critical the critical table's die and its effects' dice; on a fumble the fumble table's die and
its effects' dice. Each table is rolled on the die it names (1d100 in the bundled data).
"""

from __future__ import annotations

from dataclasses import dataclass

from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.hmk.chance import (
    CRITICAL,
    FUMBLE,
    HIT,
    MELEE,
    MISSILE,
    THROWN,
    Chance,
    classify,
    effective_chance,
    range_band,
    strike_mode,
)
from arbiter.bridge.engine.hmk.effects import apply_all
from arbiter.bridge.engine.hmk.index import Index
from arbiter.bridge.engine.hmk.injury import Fight, deal
from arbiter.bridge.engine.hmk.requests import AttackBody, StatBlock
from arbiter.bridge.engine.hmk.state import DEAD, Combatant, Encounter, Gear, load
from arbiter.compiler.model.hmk.gear import Weapon


@dataclass(slots=True)
class Setup:
    """A strike ready to roll: the encounter it happens in and every input of the chance."""

    encounter: Encounter
    stateful: bool
    attacker: Combatant
    defender: Combatant
    bystander: Combatant | None
    weapon: Weapon
    mode: str
    chance: Chance


def prepare(ix: Index, body: AttackBody, state: JSON | None) -> Setup:
    """Find the combatants and weapon and compute the chance; changes nothing yet.

    With ``state`` the combatants are ids into the encounter; without, stat blocks (the strike
    then happens in a throw-away encounter of those combatants).
    """
    if state is not None:
        encounter = load(state)
        attacker = _member(encounter, body.attacker, "attacker")
        defender = _member(encounter, body.defender, "defender")
        bystander = None
        if body.bystander is not None:
            bystander = _member(encounter, body.bystander, "bystander")
        if body.defending is not None:
            raise EngineError("in an encounter, defence is declared with a 'declare' request")
        defending = defender.defending
    else:
        attacker = _fresh(ix, body.attacker, "attacker")
        defender = _fresh(ix, body.defender, "defender")
        bystander = None if body.bystander is None else _fresh(ix, body.bystander, "bystander")
        if body.weapon is not None:
            _put_in_hand(attacker, body.weapon)
        people = [attacker, defender] + ([bystander] if bystander else [])
        if len({c.id for c in people}) != len(people):
            raise EngineError("attacker, defender and bystander must be different combatants")
        encounter = Encounter(round=1, combatants={c.id: c for c in people})
        defending = bool(body.defending)
    if attacker is defender:
        raise EngineError(f"{attacker.name} cannot strike itself")
    if defender.status == DEAD:
        raise EngineError(f"{defender.name} is already dead")
    if bystander is attacker or bystander is defender:
        raise EngineError("the bystander must be someone other than the attacker and defender")
    weapon_id = body.weapon or attacker.weapon
    if weapon_id is None:
        raise EngineError(f"{attacker.name} has no weapon in hand (ready one first)")
    weapon = ix.weapon(weapon_id)
    mode = strike_mode(weapon, body.thrown)
    band = range_band(ix, weapon, mode, attacker, body)
    chance = effective_chance(ix, attacker, defender, weapon, mode, band, body, defending)
    return Setup(encounter, state is not None, attacker, defender, bystander, weapon, mode, chance)


def attack(ix: Index, body: AttackBody, state: JSON | None, dice: Dice) -> Resolution:
    """Resolve one strike (see the module docstring for the dice order)."""
    setup = prepare(ix, body, state)
    attacker, defender, weapon = setup.attacker, setup.defender, setup.weapon
    how = _spend(setup, body)
    combat = ix.rules.combat
    roll = dice.die(combat.strike_die, f"1d{combat.strike_die}")
    outcome = classify(roll, setup.chance, combat)
    fight = Fight(ix, dice, setup.encounter, attacker, defender, weapon, setup.bystander)
    injury = None
    fumble = None
    if outcome in (HIT, CRITICAL):
        kind = "critical" if outcome == CRITICAL else "normal"
        injury, row = deal(fight, attacker, defender, kind, 0)
        if row is not None:
            apply_all(fight, row.effects, defender, row.name)
    elif outcome == FUMBLE:
        rows = ix.melee_rows if setup.mode == MELEE else ix.missile_rows
        table = ix.rules.melee_fumbles if setup.mode == MELEE else ix.rules.missile_fumbles
        fumble_roll = dice.roll(table.die).total
        fumble_row = rows[fumble_roll]
        fumble = {
            "table": table.id,
            "roll": fumble_roll,
            "range": list(fumble_row.range),
            "text": fumble_row.text,
        }
        low, high = fumble_row.range
        apply_all(fight, fumble_row.effects, attacker, f"{table.name} {low}–{high}")
    _after_strike(setup)
    involved = [attacker, defender] + ([setup.bystander] if setup.bystander else [])
    result: JSON = {
        "kind": "attack",
        "round": setup.encounter.round if setup.stateful else None,
        "attacker": attacker.id,
        "defender": defender.id,
        "bystander": setup.bystander.id if setup.bystander else None,
        "weapon": weapon.id,
        "mode": setup.mode,
        "strike": how,
        "chance": setup.chance.to_json(),
        "roll": roll,
        "outcome": outcome,
        "injury": injury,
        "fumble": fumble,
        "events": fight.events,
        "combatants": {c.id: c.summary() for c in involved},
    }
    return Resolution(result=result, state=setup.encounter.to_json() if setup.stateful else None)


def _member(encounter: Encounter, who: str | StatBlock, role: str) -> Combatant:
    if not isinstance(who, str):
        raise EngineError(f"in an encounter, name the {role} by id, not by a stat block")
    return encounter.get(who, role)


def _fresh(ix: Index, who: str | StatBlock, role: str) -> Combatant:
    if isinstance(who, str):
        raise EngineError(
            f"the {role} is named by id {who!r} but there is no encounter: "
            "give a stat block or start an encounter"
        )
    check_stat_block(ix, who)
    return Combatant.from_stats(who)


def check_stat_block(ix: Index, stats: StatBlock) -> None:
    """Every weapon and armor a stat block names exists in the rules."""
    known = ix.weapons
    held = (stats.weapon,) if stats.weapon else ()
    for weapon_id in (*stats.weapons, *held, *stats.skills):
        if weapon_id not in known:
            ix.weapon(weapon_id)  # raises, naming the unknown weapon
    if stats.armor not in ix.armor:
        ix.armor_pv(stats.armor)  # None passes; anything else unknown raises


def _put_in_hand(combatant: Combatant, weapon_id: str) -> None:
    if combatant.weapon is not None and combatant.weapon != weapon_id:
        combatant.gear[combatant.weapon].where = "carried"
    combatant.gear.setdefault(weapon_id, Gear()).where = "hand"
    combatant.weapon = weapon_id


def _spend(setup: Setup, body: AttackBody) -> str:
    """Check the attacker may strike now and pay for it; returns how (action, bonus, free)."""
    attacker, defender, weapon = setup.attacker, setup.defender, setup.weapon
    if not attacker.can_act:
        raise EngineError(f"{attacker.why_not()} and cannot strike")
    if attacker.defending:
        raise EngineError(f"{attacker.name} declared defence this round and cannot strike")
    if attacker.prone:
        raise EngineError(f"{attacker.name} is down and must stand first")
    if body.weapon is not None and attacker.weapon != body.weapon:
        raise EngineError(f"{attacker.name} does not hold the {weapon.name} (ready it first)")
    gear = attacker.gear[weapon.id]
    if gear.broken:
        raise EngineError(f"{attacker.name}'s {weapon.name} is broken")
    if setup.mode == MISSILE and not gear.loaded:
        raise EngineError(f"{attacker.name}'s {weapon.name} is not loaded (reload it)")
    moving = setup.chance.attacker_movement != "walking"
    if body.free_strike:
        if not defender.opened:
            raise EngineError(f"{defender.name} is not open to a free strike")
        if attacker.id in defender.free_strikes_taken:
            raise EngineError(f"{attacker.name} already took a free strike at {defender.name}")
        defender.free_strikes_taken.append(attacker.id)
        return "free"
    if body.bonus_strike:
        if attacker.bonus_strikes < 1:
            raise EngineError(f"{attacker.name} has no bonus strike")
        attacker.bonus_strikes -= 1
        return "bonus"
    if attacker.actions_left < 1:
        raise EngineError(f"{attacker.name} has no actions left this round")
    if moving and attacker.actions_used > 0:
        raise EngineError(f"{attacker.name} may only move during its first action")
    attacker.actions_left -= 1
    attacker.actions_used += 1
    return "action"


def _after_strike(setup: Setup) -> None:
    """A fired weapon is empty; a thrown one has left the hand."""
    attacker, weapon = setup.attacker, setup.weapon
    gear = attacker.gear[weapon.id]
    if setup.mode == MISSILE:
        gear.loaded = False
        gear.reload_progress = 0
    elif setup.mode == THROWN:
        gear.where = "thrown"
        if attacker.weapon == weapon.id:
            attacker.weapon = None
