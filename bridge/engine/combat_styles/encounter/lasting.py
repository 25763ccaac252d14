"""What lasts: the conditions each combatant a request changed bears once it is decided, for
the tabletop to show while the state holds them (``lasting`` in every result that changed a
record).

Only condition names, never their data (turns, locations, who holds whom); and never a condition
whose very presence is another's secret (:data:`HIDDEN_CONDITIONS`)."""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import GIVEN
from arbiter.bridge.engine.contract import JSON

HIDDEN_CONDITIONS = frozenset({"prepared_counter"})
"""Conditions that are part of hidden state: Prepare Counter's anticipated effect is told only
to its taker (the outcome's ``private`` part), so the public result never lists it."""


def public_conditions(c: JSON) -> list[str]:
    """The names of the conditions anyone may see on ``c`` (a stored record), sorted."""
    conditions: JSON = c["conditions"]
    if not conditions:  # most records bear none: no sort (a tenth of a microsecond) to make
        return []
    names = sorted(conditions)
    if not HIDDEN_CONDITIONS.isdisjoint(conditions):  # rare: filter only then
        names = [name for name in names if name not in HIDDEN_CONDITIONS]
    return names


def lasting(before: JSON | None, after: JSON | None) -> JSON:
    """Combatant id → :func:`public_conditions` after the request (both states in their stored
    form, as they leave the engine), for each combatant whose
    record the request changed: one ``before`` lacked, or one that differs from it (compared
    only when it is not the very same record — the engine copies a record before changing it
    and never changes one it did not copy — so how records are copied never shows). Empty when
    the request changed none (or there is no encounter)."""
    if after is None or "combatants" not in after:
        return {}
    # The records read from the states directly (stored_records without its call: this runs
    # on every request).
    old: dict[str, JSON] = (
        before["combatants"] if before is not None and "combatants" in before else {}
    )
    people: dict[str, JSON] = after["combatants"]
    out: JSON = {}
    for cid, rec in people.items():
        was = old.get(cid)
        if was is not rec and was != rec:
            out[cid] = public_conditions(rec)
    return out


def lasting_of(before: JSON | None, after: JSON | None) -> JSON:
    """:func:`lasting`, for ``after`` as it leaves a handler (its records still typed views,
    before :func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.released`): the
    same answer, each record compared by :meth:`CombatantRecord.unchanged_from`, which
    compares of a request's copy only the parts that copy made new (the defender's record is
    copied by every exchange and unchanged by most)."""
    if after is None or "combatants" not in after:
        return {}
    old: dict[str, JSON] = (
        before["combatants"] if before is not None and "combatants" in before else {}
    )
    people: dict[str, CombatantRecord] = after["combatants"]
    out: JSON = {}
    for cid, rec in people.items():
        was = old.get(cid)
        if was is None or not rec.unchanged_from(was):
            out[cid] = public_conditions(rec.data)
    return out


def released_lasting(before: JSON | None, after: JSON | None) -> JSON:
    """:func:`lasting_of` ``before`` and ``after``, with ``after`` then
    :func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.released` (in place):
    the same answer and the same stored state, in one loop over the records instead of two
    (this runs on every request; each record written back as it is compared)."""
    if after is None:
        return {}
    if GIVEN in after:  # ``after.pop(GIVEN, None)`` without a method call (compiled: two)
        del after[GIVEN]
    if "combatants" not in after:
        return {}
    old: dict[str, JSON] = (
        before["combatants"] if before is not None and "combatants" in before else {}
    )
    people: dict[str, CombatantRecord] = after["combatants"]
    # Each record written back in place, over its view: the dict's keys and their order stay
    # (a value replaced under a key the loop has reached changes neither), and no second dict
    # is made and filled. The dict is the request's own (taken_in or writable made it).
    # (The same dict, typed for what it holds by the end: not ``cast``, a call when interpreted.)
    stored: dict[str, Any] = people
    out: JSON = {}
    for cid, rec in people.items():
        data = rec.data
        stored[cid] = data
        was = old.get(cid)
        if was is data:  # never reached for writing (unchanged_from, without its call)
            continue
        if was is None or not rec.unchanged_from(was):
            # public_conditions, called only when there are conditions to name (most bear none)
            out[cid] = public_conditions(data) if data["conditions"] else []
    return out
