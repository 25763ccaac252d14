"""Riders and their mounts inside an exchange (text "Mounted Combat", data ``combat.mounted``).

A rider carries the condition ``mounted`` (``mount``: the mount's combatant id); his mount
carries ``ridden`` (``by``: the rider). From the rule data:

* ``skill_cap``: a rider's combat skills may not exceed this skill (Ride), unless a style
  trait of his lifts the skill cap capped by it (Mounted Combat lifts ``mounted``);
* ``defend_mount_ap_cost``: the rider may defend his mount with his own Combat Style or Ride,
  paying these action points himself;
* ``knockback_adds_mount_siz_on``: an unopposed roll of this skill (Ride) adds the mount's SIZ
  to the rider's against knockback.
"""

from __future__ import annotations

from typing import NamedTuple

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.requests import ExchangeBody
from arbiter.bridge.engine.combat_styles.core.checks import roll_check, target
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import combatant
from arbiter.bridge.engine.combat_styles.encounter.saddle import RIDDEN, mount_of, rider_cap
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice


class Guard(NamedTuple):
    """Who pays for and rolls a defence: the defender himself, or his rider."""

    payer: CombatantRecord
    """The combatant whose action points and luck the defence uses."""
    arm_owner: CombatantRecord
    """Whose weapons a parry may use."""
    skill: int | None
    """The skill the defence rolls (None: the defender's own, as usual)."""
    cost: int


def guardian(
    rules: RulesView, state: EncounterState, body: ExchangeBody, dfd: CombatantRecord
) -> Guard:
    """The defence of the mount ``dfd`` by his rider ``body.defended_by``, who substitutes his
    Combat Style or Ride at ``defend_mount_ap_cost`` points (the exchange calls this only when
    ``defended_by`` is given; otherwise the defender defends himself at one point)."""
    if body.defended_by is None:
        raise EngineError(f"nobody is named to defend {dfd.name} (defended_by)")
    rider = combatant(state, body.defended_by)
    ridden = dfd.conditions.get(RIDDEN)
    if ridden is None or ridden["by"] != rider.id:
        raise EngineError(f"{rider.name} is not riding {dfd.name} and cannot defend it")
    cost = rules.model.combat.mounted.defend_mount_ap_cost
    skill = rider.skills[body.defended_with]
    if body.defended_with == "combat_style":
        skill = rider_cap(rules, rider, skill)
        owner = rider
    else:
        owner = dfd
    return Guard(rider, owner, skill, cost)


def pay(rules: RulesView, state: EncounterState, payer: CombatantRecord, cost: int) -> None:
    """Pay ``cost`` reaction points for a defence (the rider's ``defend_mount_ap_cost``); the
    exchange closes the cycle or round it finishes (:func:`rounds.settle`)."""
    for _ in range(cost):
        rounds.spend_reaction(state, payer, rules)


def knockback_siz(
    rules: RulesView, state: EncounterState, dice: Dice, victim: CombatantRecord, siz: int
) -> tuple[int, JSON | None]:
    """The SIZ a mounted victim resists knockback with: his own plus his mount's if he passes
    an unopposed ``knockback_adds_mount_siz_on`` roll. Returns (SIZ, the roll or None)."""
    mount = mount_of(state, victim)
    if mount is None:
        return siz, None
    skill = rules.model.combat.mounted.knockback_adds_mount_siz_on
    if skill not in victim.skills:
        raise EngineError(f"the rule data names skill {skill!r}, which combatants lack")
    tgt = target(rules.checks, victim.skills[skill])
    check = roll_check(rules.checks, dice, tgt, f"1d100 {skill} against knockback")
    roll: JSON = {"skill": skill, **check.to_json(), "success": check.level.succeeded}
    if check.level.succeeded:
        siz += mount.characteristics["siz"]
        roll["mount_siz"] = mount.characteristics["siz"]
    return siz, roll
