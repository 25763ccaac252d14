"""Spirit-combat special effects: which the winner may choose, and what each chosen one does.

Eligibility reads each ``spirit_effects`` entry's ``requires`` (who may take it, the rolls, the
natures of taker and opponent, conditions that forbid it); the consequence is its ``mechanic``
with the numbers of its ``params`` (see :mod:`arbiter.compiler.model.combat_styles.spirit_effects`).
Spirit Lance acts on the Spirit Damage roll itself (:func:`damage_rolls`); the others act after
it (:func:`apply`). Narrative effects are recorded as a mark on the loser and change nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.effects.eligibility import offer
from arbiter.bridge.engine.combat_styles.encounter import spirit_engagement
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition
from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import PendingSpiritCombat
from arbiter.bridge.engine.contract import JSON, EngineError


def nature(c: CombatantRecord) -> str:
    """``spirit`` for a stat block that says ``spirit = true``, else ``mortal``."""
    return "spirit" if c.spirit else "mortal"


def refusal(
    effect: Any,
    side: str,
    taker: CombatantRecord,
    taker_level: str,
    victim: CombatantRecord,
    victim_level: str,
) -> str | None:
    """Why the winner (``taker``, on ``side``) may not choose ``effect`` (None when he may)."""
    if effect.taker not in (side, "either"):
        return f"only the {effect.taker} may take it"
    req = effect.requires
    if req.own_roll is not None and taker_level != req.own_roll:
        return f"needs a {req.own_roll} by the taker"
    if req.opponent_roll is not None and victim_level != req.opponent_roll:
        return f"needs the opponent to {req.opponent_roll}"
    if req.taker_nature is not None and nature(taker) != req.taker_nature:
        return f"only a {req.taker_nature} may take it"
    if req.opponent_nature is not None and nature(victim) != req.opponent_nature:
        return f"works only against a {req.opponent_nature}"
    for condition in req.taker_free_of:
        if condition in taker.conditions:
            return f"the taker is {condition.replace('_', ' ')}"
    return None


def eligible(
    rules: RulesView,
    side: str,
    taker: CombatantRecord,
    taker_level: str,
    victim: CombatantRecord,
    victim_level: str,
) -> tuple[list[JSON], dict[str, str]]:
    """The spirit effects the winner may choose (id, name, stackable, narrative) and why each
    of the others is refused."""
    offered: list[JSON] = []
    refused: dict[str, str] = {}
    for effect in rules.model.spirit_effects:
        why = refusal(effect, side, taker, taker_level, victim, victim_level)
        if why is None:
            offered.append(offer(effect))
        else:
            refused[effect.id] = why
    return offered, refused


def validate(rules: RulesView, pending: PendingSpiritCombat, choices: list[EffectChoice]) -> None:
    """The choice must fit what was won: how many, which are eligible, stacking, no options."""
    diff = pending.differential
    if not choices:
        return
    if diff["winner"] is None:
        raise EngineError("nobody won special effects in this spirit combat")
    if len(choices) > diff["effects"]:
        raise EngineError(f"{len(choices)} effects chosen but only {diff['effects']} were won")
    offered = {e["id"] for e in pending.eligible or ()}
    counts = Counter(c.id for c in choices)
    known = {e.id: e for e in rules.model.spirit_effects}
    for choice in choices:
        effect = known.get(choice.id)
        if effect is None:
            raise EngineError(
                f"unknown spirit-combat effect {choice.id!r} (known: {', '.join(sorted(known))})"
            )
        if choice.id not in offered:
            why = (pending.ineligible or {}).get(choice.id, "not available to the winner")
            raise EngineError(f"{effect.name} cannot be chosen: {why}")
        if counts[choice.id] > 1 and not effect.stackable:
            raise EngineError(f"{effect.name} does not stack: choose it once")
        extra = sorted(choice.model_fields_set - {"id"})
        if extra:
            raise EngineError(f"{effect.name} takes no options ({', '.join(extra)} given)")


def damage_rolls(rules: RulesView, choices: list[EffectChoice]) -> int:
    """How many times the Spirit Damage is rolled (the best kept): 1, or Spirit Lance's."""
    rolls = 1
    for choice in choices:
        effect = rules.model.spirit_effect(choice.id)
        if effect.mechanic == "spirit_lance" and effect.params.damage_rolls is not None:
            rolls = max(rolls, effect.params.damage_rolls)
    return rolls


@dataclass
class Outcome:
    """What a chosen effect acts on: the encounter, the winner, the loser, the exchange."""

    state: EncounterState
    taker: CombatantRecord
    victim: CombatantRecord
    damage: JSON | None
    """The exchange's ``spirit_damage`` (None when none was dealt)."""
    defeat: JSON
    """The rule data's defeat: ``defeated_at``, ``defeated_condition``."""


def _spirit_lance(out: Outcome, effect: Any, rec: JSON) -> None:
    if out.damage is None:
        rec["outcome"] = "no Spirit Damage to roll: nothing to keep"
        return
    rolls = out.damage["rolls"]
    rec["outcome"] = (
        f"Spirit Damage rolled {len(rolls)} times ({', '.join(map(str, rolls))}): {max(rolls)} kept"
    )


def _bound_to(out: Outcome, effect: Any) -> dict[str, str]:
    """The ``engagement`` a lasting condition ends with (none when it lasts the encounter)."""
    return {"engagement": out.taker.id} if effect.params.lasts == "engagement" else {}


def _bleed_essence(out: Outcome, effect: Any, rec: JSON) -> None:
    per_cycle = effect.params.magic_points_per_cycle
    add_condition(
        out.victim,
        spirit_engagement.BLEEDING,
        None,
        magic_points_per_cycle=per_cycle,
        **_bound_to(out, effect),
        **out.defeat,
    )
    rec["outcome"] = f"loses {per_cycle} Magic Point(s) at the start of every Cycle" + (
        " while the spirit combat lasts" if effect.params.lasts == "engagement" else ""
    )
    rec["condition"] = spirit_engagement.BLEEDING


def _psychic_stun(out: Outcome, effect: Any, rec: JSON) -> None:
    turns = effect.params.lost_turns
    add_condition(out.victim, spirit_engagement.LOSES_TURN, turns, cause=effect.name)
    rec["outcome"] = f"loses his next {turns} Turn(s)"
    rec["condition"] = spirit_engagement.LOSES_TURN


def _restrain(out: Outcome, effect: Any, rec: JSON) -> None:
    condition = effect.params.condition
    add_condition(out.victim, condition, None, **_bound_to(out, effect))
    rec["outcome"] = condition.replace("_", " ") + (
        " while the spirit combat lasts" if effect.params.lasts == "engagement" else ""
    )
    rec["condition"] = condition


def _end_engagement(out: Outcome, effect: Any, rec: JSON) -> None:
    lapsed = spirit_engagement.disengage(out.state, out.taker, out.victim)
    rec["outcome"] = "the spirit combat ends"
    if lapsed:
        rec["lapsed"] = lapsed
    bars = effect.params.bars
    if bars is not None:
        spirit_engagement.bar(out.state, out.victim, out.taker, bars)
        rec["outcome"] += f"; {out.victim.name} may not engage {out.taker.name} again this {bars}"
    rec["ends_engagement"] = True


MECHANICS: dict[str, Callable[[Outcome, Any, JSON], None]] = {
    "spirit_lance": _spirit_lance,
    "bleed_essence": _bleed_essence,
    "psychic_stun": _psychic_stun,
    "restrain": _restrain,
    "end_engagement": _end_engagement,
}
"""Mechanic (a spirit effect's ``mechanic`` in the rule data) → what it does."""


def apply(rules: RulesView, out: Outcome, choices: list[EffectChoice]) -> list[JSON]:
    """Apply every chosen effect in the order chosen; what each did, one record each."""
    applied: list[JSON] = []
    for choice in choices:
        effect = rules.model.spirit_effect(choice.id)
        rec: JSON = {"id": effect.id, "name": effect.name}
        if effect.narrative or effect.mechanic is None:
            rec["narrative"] = True
            rec["outcome"] = "recorded: the GM's call"
            out.victim.add_mark(effect.id)
        else:
            MECHANICS[effect.mechanic](out, effect, rec)
        applied.append(rec)
    return applied
