"""A leaper astride his victim (text "Leaping Attacks"): how long the hold lasts.

A won leap leaves the victim ``prone`` (``held_down_by`` the leaper) and the leaper ``astride``
him (``on`` the victim). The text: the victim "cannot recover his footing until either his
attacker leaves him, or he eventually wins a Special Effect permitting him to Arise". So the
pair ends when the leaper leaves him — he attacks someone else, withdraws, outmanoeuvres,
mounts, takes to the air, or takes one of ``combat.leaping_attack.leaving_actions`` — and
whenever it no longer fits the bodies: the victim is back on his feet or no longer under
him, the leaper is knocked prone, mounted or out of the fight, or either has left the
encounter. :func:`settle` runs after every request and ends every such pair on both records,
saying why in the outcome (``astride_ended``), so no stale ``astride`` or ``held_down_by`` is
ever kept.
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import combatant, records_of, writable
from arbiter.bridge.engine.combat_styles.encounter.saddle import MOUNTED
from arbiter.bridge.engine.combat_styles.rounds import OUT
from arbiter.bridge.engine.contract import JSON, Resolution

ASTRIDE = "astride"
PRONE = "prone"

_ATTACKS = ("exchange", "leaping_attack")
"""Requests whose ``attacker`` attacks one ``defender``."""


def settle(rules: RulesView, kind: str, body: Any, done: Resolution) -> Resolution:
    """``done`` (its state as a handler hands it back: records still typed) with every leaper
    who no longer holds his victim down taken off him (both records changed); unchanged when
    every pair still holds (the usual case: no pair)."""
    data = done.state
    if data is None:
        return done
    # The records read from the state's dict: no view of the state is made unless a pair ends
    # (this runs after every request, and the usual one has no pair).
    records: dict[str, CombatantRecord] = data["combatants"]
    for c in records.values():
        conditions = c.conditions
        if conditions and (ASTRIDE in conditions or PRONE in conditions):
            break
    else:
        return done  # the usual case, on every exchange: nobody astride, nobody down
    ended: list[JSON] = []
    for cid, c in records.items():
        conditions = c.conditions
        if not conditions:
            continue
        astride = conditions.get(ASTRIDE)
        if astride is not None:
            why = _leaves(rules, kind, body, records, c, str(astride["on"]))
            if why is not None:
                ended.append({"leaper": cid, "victim": astride["on"], "why": why})
        prone = conditions.get(PRONE)
        holder = prone.get("held_down_by") if prone is not None else None
        if holder is not None and not _astride_on(records.get(holder), cid):
            # He left this victim within the request (a leap on another) or before it.
            why = (
                _moved_away(rules, kind, body, holder, cid) or f"{holder} is no longer astride him"
            )
            ended.append({"leaper": holder, "victim": cid, "why": why})
    if not ended:
        return done
    return Resolution(
        {**done.result, "astride_ended": ended},
        _ended(EncounterState(data), ended).data,
        done.private,
    )


def _astride_on(leaper: CombatantRecord | None, victim_id: str) -> bool:
    if leaper is None:
        return False
    astride = leaper.conditions.get(ASTRIDE)
    return astride is not None and astride["on"] == victim_id


def _leaves(
    rules: RulesView,
    kind: str,
    body: Any,
    records: dict[str, CombatantRecord],
    leaper: CombatantRecord,
    victim_id: str,
) -> str | None:
    """Why ``leaper`` no longer holds ``victim_id`` down after this request (None: he does)."""
    name = leaper.name
    victim = records.get(victim_id)
    if victim is None:
        return f"{victim_id} is no longer in the encounter"
    prone = victim.conditions.get(PRONE)
    if prone is None:
        return f"{victim.name} is back on his feet"
    if prone.get("held_down_by") != leaper.id:
        return f"{victim.name} is no longer under him"
    conditions = leaper.conditions
    for out in OUT:
        if out in conditions:
            return f"{name} is {out}"
    if PRONE in conditions:
        return f"{name} is prone"
    if MOUNTED in conditions:
        return f"{name} is mounted"
    return _moved_away(rules, kind, body, leaper.id, victim_id)


def _moved_away(rules: RulesView, kind: str, body: Any, leaper: str, victim: str) -> str | None:
    """Why the request itself takes ``leaper`` off ``victim`` (None: it does not)."""
    if kind in _ATTACKS and body.attacker == leaper and body.defender != victim:
        return f"{leaper} attacks {body.defender}"
    if kind == "sweep_attack" and body.attacker == leaper:
        if all(t.defender != victim for t in body.targets):
            return f"{leaper} attacks {', '.join(t.defender for t in body.targets)}"
    elif kind == "outmaneuver" and body.combatant == leaper:
        return f"{leaper} outmanoeuvres"
    elif kind == "aerial_pass" and (leaper == body.combatant or leaper in body.opponents):
        return f"{leaper} takes to the air"
    elif (
        kind == "act"
        and body.combatant == leaper
        and body.action in rules.model.combat.leaping_attack.leaving_actions
    ):
        return f"{leaper} takes the {body.action} action"
    return None


def _ended(state: EncounterState, ended: list[JSON]) -> EncounterState:
    """A copy of ``state`` with each ended pair's ``astride`` and ``held_down_by`` removed."""
    new = writable(state)
    records = records_of(new)
    for e in ended:
        leaper = combatant(new, e["leaper"]) if e["leaper"] in records else None
        victim = combatant(new, e["victim"]) if e["victim"] in records else None
        if leaper is not None and _astride_on(leaper, e["victim"]):
            del leaper.conditions[ASTRIDE]
        if victim is not None:
            prone = victim.conditions.get(PRONE)
            if prone is not None and prone.get("held_down_by") == e["leaper"]:
                del prone["held_down_by"]
    return new


def release(leaper: CombatantRecord, victim: CombatantRecord) -> bool:
    """End the pair between ``leaper`` and ``victim`` when there is one (both records
    writable); whether there was."""
    if not _astride_on(leaper, victim.id):
        return False
    del leaper.conditions[ASTRIDE]
    prone = victim.conditions.get(PRONE)
    if prone is not None and prone.get("held_down_by") == leaper.id:
        del prone["held_down_by"]
    return True


def displace(c: CombatantRecord) -> None:
    """``c`` (writable) is knocked some metres away: a leaper is off his victim, a victim out
    from under his leaper. :func:`settle` clears the partner's side after the request."""
    conditions = c.conditions
    if not conditions:
        return
    conditions.pop(ASTRIDE, None)
    prone = conditions.get(PRONE)
    if prone is not None:
        prone.pop("held_down_by", None)
