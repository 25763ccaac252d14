"""Sweep attacks (text "Sweep Attacks", data ``combat.sweep_attack``).

One attack strikes every target in its path. The attacker pays for one proactive action; with
``one_roll_for_all_targets`` a single attack roll (the first pair's, luck re-roll included) is
judged against each pair's own target, otherwise every pair rolls its own attack. Each
defender reacts separately and each pair is resolved as its own exchange — with its own token
when its winner must still choose effects — so effects imposed on the attacker all apply, as
if at the same moment.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.move_requests import SweepAttackBody
from arbiter.bridge.engine.combat_styles.bodies.requests import ExchangeBody
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    combatant,
    needs_encounter,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.engagement import check_attack
from arbiter.bridge.engine.combat_styles.exchange.exchange import start_exchange
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice

MOVE = "sweep_attack"


def sweep_attack(
    rules: RulesView, body: SweepAttackBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    """Resolve the sweep: one paid attack, one exchange per target."""
    state = needs_encounter(state, "a sweep attack")
    ids = [t.defender for t in body.targets]
    if len(set(ids)) != len(ids):
        raise EngineError("each target of a sweep is named once")
    if body.attacker in ids:
        raise EngineError("a combatant cannot sweep himself")
    one_roll = rules.model.combat.sweep_attack.one_roll_for_all_targets
    for tid in ids:
        combatant(state, tid)
        check_attack(state, body.attacker, tid)
    state = writable(state)
    # Every pair is resolved in the round the sweep was paid in: the round closes after.
    rounds.spend_for_attack(rules, state, combatant(state, body.attacker))
    shared: int | None = None
    exchanges: list[JSON] = []
    private: JSON = {}
    for t in body.targets:
        first = not exchanges
        pair = ExchangeBody(
            attacker=body.attacker,
            defender=t.defender,
            weapon=body.weapon,
            defence=t.defence,
            parry_weapon=t.parry_weapon,
            situation=body.situation,
            attacker_augment=body.attacker_augment,
            defender_augment=t.defender_augment,
            attacker_luck=body.attacker_luck if first or not one_roll else None,
            defender_luck=t.defender_luck,
            effects=t.effects,
        )
        done = start_exchange(
            rules,
            pair,
            state,
            dice,
            shared_roll=shared if one_roll else None,
            pay=False,
            close=False,
        )
        assert done.state is not None
        state = EncounterState(done.state)
        if one_roll and first:
            shared = done.result["attack"]["roll"]
        exchanges.append(done.result)
        private.update(done.private)
    rounds.settle(state, rules)
    result: JSON = {
        "kind": MOVE,
        "attacker": body.attacker,
        "one_roll_for_all_targets": one_roll,
        "attack_roll": shared,
        "exchanges": exchanges,
        **rounds.snapshot(state),
    }
    return Resolution(result, state.data, private)
