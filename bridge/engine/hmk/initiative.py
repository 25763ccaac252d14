"""Initiative: each party (or each individual) rolls 1d10 + modifiers; highest acts first.

Modifiers come from the rule data by kind: ``consecutive`` (+1 per round in a row the entrant
had initiative, at most +3; the encounter remembers the streak), ``automatic_win``/
``automatic_loss`` (ambush), ``fixed`` and ``chosen`` (heavy casualties, −1 to −3). Ties act
simultaneously (our reading; the text is silent).
"""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.hmk.index import Index
from arbiter.bridge.engine.hmk.requests import Entrant, InitiativeBody
from arbiter.bridge.engine.hmk.state import Encounter, load

_WIN, _NORMAL, _LOSS = 0, 1, 2


def initiative(ix: Index, body: InitiativeBody, state: JSON | None, dice: Dice) -> Resolution:
    """Roll for every entrant in order and return the acting order (places of tied ids)."""
    encounter = load(state) if state is not None else None
    entrants = _entrants(body, encounter)
    rolled: list[JSON] = []
    for entrant in entrants:
        streak = encounter.streaks.get(entrant.id, 0) if encounter else entrant.streak
        rolled.append(_roll(ix, entrant, streak, dice))
    ranked = sorted(rolled, key=lambda r: (r["_rank"], -r["total"]))
    order: list[list[str]] = []
    previous: tuple[int, int] | None = None
    for r in ranked:
        key = (r["_rank"], r["total"])
        if key != previous:
            order.append([])
            previous = key
        order[-1].append(r["id"])
    first = set(order[0]) if order else set()
    streaks = {r["id"]: (r["streak"] + 1 if r["id"] in first else 0) for r in rolled}
    for r in rolled:
        del r["_rank"]
    result: JSON = {
        "kind": "initiative",
        "mode": body.mode,
        "round": encounter.round if encounter else None,
        "entrants": rolled,
        "order": order,
        "streaks": streaks,
    }
    if encounter is None:
        return Resolution(result=result, state=None)
    encounter.order = order
    encounter.streaks = streaks
    return Resolution(result=result, state=encounter.to_json())


def _entrants(body: InitiativeBody, encounter: Encounter | None) -> list[Entrant]:
    given = {e.id: e for e in body.entrants}
    if len(given) != len(body.entrants):
        raise EngineError("an entrant is listed twice")
    if encounter is None:
        if not body.entrants:
            raise EngineError("without an encounter, list the entrants who roll")
        return list(body.entrants)
    able = [c for c in encounter.combatants.values() if c.status == "active"]
    if body.mode == "party":
        ids = list(dict.fromkeys(c.party for c in able))
    else:
        ids = [c.id for c in able]
    for ident, entrant in given.items():
        if ident not in ids:
            raise EngineError(
                f"{ident!r} is not a {body.mode} able to act in this encounter "
                f"(known: {', '.join(ids) or 'none'})"
            )
        if entrant.streak:
            raise EngineError("in an encounter the initiative streak is remembered; omit 'streak'")
    return [given.get(i) or Entrant(id=i) for i in ids]


def _roll(ix: Index, entrant: Entrant, streak: int, dice: Dice) -> JSON:
    die = ix.rules.initiative.die
    roll = dice.roll(die).total
    applied: list[JSON] = []
    rank = _NORMAL
    for use in entrant.modifiers:
        mod = ix.initiative.get(use.id)
        if mod is None:
            raise EngineError(
                f"unknown initiative modifier {use.id!r} (known: {', '.join(ix.initiative)})"
            )
        if mod.kind == "consecutive":
            raise EngineError(f"{use.id!r} is counted from the streak, not given")
        if mod.kind == "chosen":
            # The model requires minimum and maximum of a "chosen" modifier.
            assert mod.minimum is not None and mod.maximum is not None
            if use.value is None or not mod.minimum <= use.value <= mod.maximum:
                raise EngineError(f"{use.id!r} needs a value from {mod.minimum} to {mod.maximum}")
            applied.append({"id": mod.id, "value": use.value})
            continue
        if use.value is not None:
            raise EngineError(f"{use.id!r} takes no value")
        if mod.kind == "fixed":
            applied.append({"id": mod.id, "value": mod.value})
        else:
            rank = _WIN if mod.kind == "automatic_win" else _LOSS
            applied.append({"id": mod.id, "value": None})
    for mod in ix.initiative.values():
        if mod.kind == "consecutive" and streak > 0:
            # The model requires value and maximum of a "consecutive" modifier.
            assert mod.value is not None and mod.maximum is not None
            bonus = min(mod.maximum, mod.value * streak)
            applied.append({"id": mod.id, "value": bonus})
    total = roll + sum(a["value"] or 0 for a in applied)
    return {
        "id": entrant.id,
        "roll": roll,
        "modifiers": applied,
        "total": total,
        "automatic": {_WIN: "win", _LOSS: "loss"}.get(rank),
        "streak": streak,
        "_rank": rank,
    }
