"""Who is locked in spirit combat with whom, and what lasts while they are.

A spirit-combat exchange engages its two parties (``EncounterState.spirit_engagements``, sorted
pairs) until an effect ends it (Withdraw, Turn Back, Drive Off) or one side is defeated. Lasting
spirit effects carry the id of the opponent they bind the bearer to (``engagement``) and the
numbers they need, so the rounds machine can apply them without the rule data: Bleed Essence's
``bleeding_essence`` drains Magic Points at the start of every Cycle, and both it and Restrain's
condition lapse when the engagement ends. A bar (``spirit_barred``) keeps a loser from engaging
the winner again for the Round or the encounter.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    add_condition,
    recopied,
    records_of,
)
from arbiter.bridge.engine.contract import JSON, EngineError

BLEEDING = "bleeding_essence"
"""The condition Bleed Essence leaves: ``magic_points_per_cycle``, ``engagement`` (absent when
it lasts the encounter), ``defeated_at``, ``defeated_condition``."""
BARRED = "spirit_barred"
"""The condition a bar leaves: ``by`` → {``until``: round or encounter, ``round``}."""
LOSES_TURN = "loses_turn"
"""The condition Psychic Stun leaves: the bearer's next Turn(s) are lost (``turns``, ``cause``)."""


def pair(a: str, b: str) -> list[str]:
    """The engagement of ``a`` and ``b`` as stored (sorted ids)."""
    return sorted((a, b))


def engaged(state: EncounterState, a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are locked in spirit combat."""
    return pair(a, b) in state.spirit_engagements


def engage(state: EncounterState, a: str, b: str) -> None:
    """Lock ``a`` and ``b`` in spirit combat (no change when they already are)."""
    pairs = list(state.spirit_engagements)
    if pair(a, b) not in pairs:
        pairs.append(pair(a, b))
    state.spirit_engagements = pairs


def disengage(state: EncounterState, a: CombatantRecord, b: CombatantRecord) -> list[str]:
    """End the spirit combat of records ``a`` and ``b`` (both writable): the pair is released and
    the lasting effects binding either to the other lapse. Returns the conditions removed."""
    state.spirit_engagements = [p for p in state.spirit_engagements if p != pair(a.id, b.id)]
    lapsed = []
    for bearer, other in ((a, b), (b, a)):
        for name, cond in list(bearer.conditions.items()):
            if isinstance(cond, dict) and cond.get("engagement") == other.id:
                del bearer.conditions[name]
                lapsed.append(f"{bearer.id}: {name}")
    return lapsed


def bar(state: EncounterState, loser: CombatantRecord, winner: CombatantRecord, until: str) -> None:
    """``loser`` may not engage ``winner`` in spirit combat for ``until`` (round, encounter)."""
    old = loser.conditions.get(BARRED, {}).get("by", {})
    by = {**old, winner.id: {"until": until, "round": state.round}}
    add_condition(loser, BARRED, None, by=by)


def check_not_barred(
    state: EncounterState, attacker: CombatantRecord, defender: CombatantRecord
) -> None:
    """EngineError when a bar keeps ``attacker`` from engaging ``defender``."""
    entry = attacker.conditions.get(BARRED, {}).get("by", {}).get(defender.id)
    if entry is None:
        return
    if entry["until"] == "encounter" or entry["round"] == state.round:
        span = "this encounter" if entry["until"] == "encounter" else "this round"
        raise EngineError(
            f"{attacker.name} was driven back by {defender.name} and may not engage "
            f"him in spirit combat again {span}"
        )


def check_turn_not_lost(c: CombatantRecord, what: str) -> None:
    """EngineError when Psychic Stun took ``c``'s Turn: he may only let it pass (or react)."""
    lost = c.conditions.get(LOSES_TURN)
    if lost is not None:
        raise EngineError(
            f"{c.name} loses this Turn ({lost.get('cause', 'stunned')}) and cannot {what}: "
            "let it pass (next_turn); reactions are still allowed"
        )


def drain_at_cycle_start(state: EncounterState) -> None:
    """Bleed Essence: each bleeding combatant loses Magic Points as a Cycle begins; one who
    falls to the defeat threshold is defeated and his spirit combat ends. What was lost is
    kept in ``EncounterState.essence_lost`` for this Cycle's results."""
    drained: list[JSON] = []
    records = records_of(state)
    for cid in list(records):
        cond = records[cid].conditions.get(BLEEDING)
        if cond is None or records[cid].magic_points is None:
            continue
        c = recopied(state, cid)
        before = int(c.magic_points or 0)  # not None: checked above
        c.magic_points = after = before - int(cond["magic_points_per_cycle"])
        lost: JSON = {"combatant": cid, "magic_points": {"before": before, "after": after}}
        if after <= cond["defeated_at"]:
            add_condition(c, cond["defeated_condition"])
            lost["defeated"] = cond["defeated_condition"]
            other = cond.get("engagement")
            if other is not None and other in records:
                disengage(state, c, recopied(state, other))
        drained.append(lost)
    if drained:
        state.essence_lost = {
            "round": state.round_number(),
            "cycle": state.cycle_number(),
            "lost": drained,
        }
    else:
        state.drop_essence_lost()


def essence_lost_now(state: EncounterState) -> list[JSON] | None:
    """Magic Points lost to Bleed Essence at the start of the current Cycle (None: none)."""
    lost = state.essence_lost
    if lost and lost["round"] == state.round and lost["cycle"] == state.cycle:
        return list(lost["lost"])
    return None
