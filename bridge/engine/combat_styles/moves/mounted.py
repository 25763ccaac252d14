"""Mounted combat requests and the exchange's mounted rules (text "Mounted Combat", data
``combat.mounted`` and ``combat.evading.mounted_leaves_saddle``).

* ``mount``: a rider mounts a mount that is a combatant of the encounter (or dismounts), as
  the ``mount`` combat action (free before initiative).
* ``mounted_withdraw``: with ``withdraw_freely_if_faster``, a rider leaves the foes engaging
  him on his turn, without a roll, if his mount's Movement beats each foe's and the mount has
  not attacked this round.
* Around every exchange: attacks a manoeuvre forbids are refused; a weapon braced for a
  mounted charge cannot parry (``braced_weapon_can_parry``) until the end of the rider's next
  turn; a rider who evades is flung from the saddle (``mounted_leaves_saddle``).

The skill cap, the rider defending his mount and his mount's SIZ against knockback act inside
the exchange (:mod:`arbiter.bridge.engine.combat_styles.riding.riders`).
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.move_requests import MountBody, MountedWithdrawBody
from arbiter.bridge.engine.combat_styles.bodies.requests import ExchangeBody
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.core.weapons_used import usable_arm
from arbiter.bridge.engine.combat_styles.encounter import brace
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    add_condition,
    combatant,
    needs_encounter,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.engagement import check_attack
from arbiter.bridge.engine.combat_styles.encounter.phases import tracks_turns
from arbiter.bridge.engine.combat_styles.encounter.saddle import MOUNTED, RIDDEN, mount_of
from arbiter.bridge.engine.combat_styles.exchange.exchange import start_exchange
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice

BRACED = "braced_weapon"
MOUNT_ACTION = "mount"
WITHDRAW_ACTION = "change_range"


def pay_action(rules: RulesView, state: EncounterState, c: CombatantRecord, action: str) -> None:
    """Pay for ``action`` as ``c``'s proactive action, at its cost in the rule data (nothing
    before initiative or outside the turn phase). It closes no cycle or round: the caller
    calls :func:`rounds.settle` once it has written the action (a new round re-copies the
    records it holds)."""
    if action not in rules.actions:
        raise EngineError(f"the rule data has no combat action {action!r}")
    if not tracks_turns(state):
        return
    _, cost = rules.actions[action]
    if c.ap_left() < cost:
        raise EngineError(f"{c.name} needs {cost} action point(s) to {action.replace('_', ' ')}")
    rounds.spend_proactive(state, c, action, rules)
    if cost == 0:
        c.set_ap(c.ap_left() + 1)
    for _ in range(cost - 1):
        rounds.spend_reaction(state, c, rules)


def mount(
    rules: RulesView, body: MountBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    """Mount ``body.mount`` (or dismount when it is None)."""
    state = needs_encounter(state, "mounting")
    rider = combatant(state, body.rider)
    ridden = mount_of(state, rider)
    if body.mount is None:
        if ridden is None:
            raise EngineError(f"{rider.name} is not mounted")
        state = writable(state)
        rider = combatant(state, rider.id)
        pay_action(rules, state, rider, MOUNT_ACTION)
        dismount(state, rider)
        rounds.settle(state, rules)
        result: JSON = {"kind": "mount", "rider": rider.id, "mount": None}
        return Resolution(
            {**result, "dismounted_from": ridden.id, **rounds.snapshot(state)}, state.data
        )
    if body.mount == body.rider:
        raise EngineError("a combatant cannot ride himself")
    if ridden is not None:
        raise EngineError(f"{rider.name} already rides {ridden.name}: dismount first")
    steed = combatant(state, body.mount)
    if RIDDEN in steed.conditions or MOUNTED in steed.conditions:
        raise EngineError(f"{steed.name} is already ridden or riding")
    state = writable(state)
    rider, steed = combatant(state, rider.id), combatant(state, steed.id)
    pay_action(rules, state, rider, MOUNT_ACTION)
    add_condition(rider, MOUNTED, None, mount=steed.id)
    add_condition(steed, RIDDEN, None, by=rider.id)
    rounds.settle(state, rules)
    result = {"kind": "mount", "rider": rider.id, "mount": steed.id}
    return Resolution({**result, **rounds.snapshot(state)}, state.data)


def dismount(state: EncounterState, rider: CombatantRecord) -> str | None:
    """Take ``rider`` out of the saddle (his mount's record must be writable); returns the
    mount's id."""
    mounted = rider.conditions.pop(MOUNTED, None)
    if mounted is None:
        return None
    combatant(state, mounted["mount"]).conditions.pop(RIDDEN, None)
    return str(mounted["mount"])


def mounted_withdraw(
    rules: RulesView, body: MountedWithdrawBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    """Withdraw a rider from ``body.opponents`` without a roll, if his mount outpaces them."""
    state = needs_encounter(state, "withdrawing")
    rule = rules.model.combat.mounted
    rider = combatant(state, body.rider)
    if not rule.withdraw_freely_if_faster:
        raise EngineError(
            "the rule data gives riders no free withdrawal: use Change Range or Outmaneuver"
        )
    steed = mount_of(state, rider)
    if steed is None:
        raise EngineError(f"{rider.name} is not mounted")
    if "gripped" in rider.conditions:
        # Grip: "preventing them from being able to change weapon range or disengage".
        raise EngineError(f"{rider.name} is gripped and cannot withdraw")
    if steed.movement is None:
        raise EngineError(f"{steed.name}'s Movement is not known (stat block movement)")
    speeds = {steed.id: steed.movement}
    for fid in dict.fromkeys(body.opponents):
        foe = combatant(state, fid)
        if foe.movement is None:
            raise EngineError(f"{foe.name}'s Movement is not known (stat block movement)")
        if steed.movement <= foe.movement:
            raise EngineError(
                f"{steed.name} (Movement {steed.movement}) is not faster than "
                f"{foe.name} ({foe.movement}): withdraw with Change Range or Outmaneuver"
            )
        speeds[fid] = foe.movement
    # Every attack records its Round on the attacker (``attacked_round``).
    if tracks_turns(state) and steed.attacked_round == state.round_number():
        raise EngineError(f"{steed.name} is attacking this round: no free withdrawal")
    state = writable(state)
    rider = combatant(state, rider.id)
    pay_action(rules, state, rider, WITHDRAW_ACTION)
    rider.conditions.pop("engaged", None)
    brace.lose(rules, rider, "withdrawing")
    rounds.settle(state, rules)
    result: JSON = {
        "kind": "mounted_withdraw",
        "rider": rider.id,
        "mount": steed.id,
        "from": list(dict.fromkeys(body.opponents)),
        "movement": speeds,
        **rounds.snapshot(state),
    }
    return Resolution(result, state.data)


def exchange(
    rules: RulesView, body: ExchangeBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    """An exchange with the manoeuvre and mounted rules around it."""
    # The body's fields read from its __dict__ (see start_exchange): a pydantic attribute
    # read costs a hook call, on every exchange.
    given: dict[str, Any] = body.__dict__
    braced: bool = given["situation"].__dict__["braced_weapon"]
    if state is None:
        if braced:
            raise EngineError("a weapon is braced only for a mounted charge (on a mount)")
        return start_exchange(rules, body, state, dice)
    # records_of without its call (every exchange comes here; a call costs when interpreted).
    people: dict[str, CombatantRecord] = state.data["combatants"]
    att, dfd = people.get(given["attacker"]), people.get(given["defender"])
    if not braced and not (att and att.conditions) and not (dfd and dfd.conditions):
        # Nobody rides, braces or is blocked: a plain exchange (the common case, kept cheap).
        return start_exchange(rules, body, state, dice)
    check_attack(state, body.attacker, body.defender)
    _check_braced(rules, state, body)
    done = start_exchange(rules, body, state, dice)
    return _after(rules, body, done)


def _check_braced(rules: RulesView, state: EncounterState, body: ExchangeBody) -> None:
    if body.situation.braced_weapon:
        att = combatant(state, body.attacker)
        if not body.situation.charging or MOUNTED not in att.conditions:
            raise EngineError("a weapon is braced only for a mounted charge (charging, on a mount)")
    if body.defence != "parry":
        return
    owner = combatant(state, body.defender)
    if body.defended_by is not None and body.defended_with == "combat_style":
        owner = combatant(state, body.defended_by)
    braced = owner.conditions.get(BRACED) if owner.conditions else None
    if not braced or rules.model.combat.mounted.braced_weapon_can_parry:
        return
    arm = usable_arm(rules, owner, body.parry_weapon, "parry")
    if arm.id in braced["weapons"]:
        raise EngineError(f"{owner.name}'s {arm.name} is braced for the charge and cannot parry")


def _after(rules: RulesView, body: ExchangeBody, done: Resolution) -> Resolution:
    if done.state is None:
        return done
    state = EncounterState(done.state)
    att = combatant(state, body.attacker)
    if body.situation.braced_weapon and not rules.model.combat.mounted.braced_weapon_can_parry:
        add_condition(att, BRACED, 1, weapons=[done.result["weapon"]])
    dfd = combatant(state, body.defender)
    if (
        done.result.get("defence") == "evade"
        and MOUNTED in dfd.conditions
        and rules.model.combat.evading.mounted_leaves_saddle
    ):
        state = writable(state)
        dfd = combatant(state, body.defender)
        steed = combatant(state, str(dismount(state, dfd)))
        done.result.setdefault("notes", []).append(
            f"{dfd.name} flings himself clear of {steed.name}'s saddle"
        )
        return Resolution(done.result, state.data, done.private)
    return done
