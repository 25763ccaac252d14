"""Which special effects the winner of an exchange may choose, and why the others are refused.

Every test reads the effect's ``requires`` block from the rule data: who may take it, the
rolls it needs, the weapon it needs, the situation it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from arbiter.bridge.engine.combat_styles.core.checks import Level
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.memo import memo_of, recalled
from arbiter.bridge.engine.combat_styles.core.view import Arm, RulesView
from arbiter.bridge.engine.combat_styles.encounter.brace import is_braced
from arbiter.bridge.engine.combat_styles.encounter.combatants import has_condition
from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import PendingExchange
from arbiter.bridge.engine.contract import JSON
from arbiter.compiler.model.combat_styles.effects import HOLD_CONDITIONS

DISADVANTAGED = (
    "prone",
    "disarmed",
    "taken",
    "seriously_wounded",
    "entangled",
    "gripped",
    "pinned",
    "grappled",
)
HELD = HOLD_CONDITIONS


# A dataclass compiled by mypyc into a native class (built per exchange); mypyc compiles a
# dataclass's own __init__ but not the one dataclasses generates.
@dataclass(slots=True, init=False)
class Party:
    """One side of an exchange: its record, the arm it used (None when it did not defend
    with one) and its success level (never changed once made)."""

    record: CombatantRecord
    arm: Arm | None
    level: Level

    def __init__(self, record: CombatantRecord, arm: Arm | None, level: Level) -> None:
        self.record = record
        self.arm = arm
        self.level = level


def _condition_holds(
    name: str, pending: PendingExchange, taker: Party, victim: Party, of_target: bool
) -> bool:
    who = victim if of_target else taker
    rec = who.record
    situation = pending.situation
    if name == "surprised_first_attack":
        return pending.first_on_surprised
    if name == "disadvantaged":
        return any(has_condition(rec, c) for c in DISADVANTAGED)
    if name == "prone":
        return has_condition(rec, "prone")
    if name == "held":
        return any(has_condition(rec, c) for c in HELD)
    if name == "defending":
        return pending.defence in ("parry", "evade")
    if name == "ranged_close_range_stationary_or_unaware":
        return pending.band == "close" and (
            bool(situation["target_stationary"]) or pending.surprised
        )
    if name == "not_blind_strike":
        return not situation["blind_strike"]
    if name == "not_gripped":
        return not has_condition(rec, "gripped")
    if name == "engaged_at_different_reach":
        a, b = taker.arm, victim.arm
        return a is not None and b is not None and a.reach != b.reach
    if name == "casting":
        return has_condition(rec, "casting")
    return False


def refusal(
    rules: RulesView,
    effect: Any,
    pending: PendingExchange,
    side: str,
    taker: Party,
    victim: Party,
) -> str | None:
    """Why ``taker`` may not choose ``effect`` (None when he may)."""
    if effect.taker not in (side, "either"):
        return f"only the {effect.taker} may take it"
    req = effect.requires
    if req.own_roll is not None and taker.level != Level.named(req.own_roll):
        return f"needs a {req.own_roll} by the taker"
    if req.opponent_roll is not None and victim.level != Level.named(req.opponent_roll):
        return f"needs the opponent to {req.opponent_roll}"
    arm = taker.arm
    if req.ranged_own_roll is not None and arm is not None and arm.is_ranged:
        waived = any(
            _condition_holds(c, pending, taker, victim, of_target=True)
            for c in req.ranged_roll_waived_when
        )
        if not waived and taker.level != Level.named(req.ranged_own_roll):
            return f"with a ranged weapon it needs a {req.ranged_own_roll}"
    if req.weapon_lists_effect and (arm is None or effect.id not in arm.effects):
        return "the taker's weapon does not allow it"
    if req.weapon_kinds and (arm is None or arm.kind not in req.weapon_kinds):
        return f"needs a weapon of kind {' or '.join(req.weapon_kinds)}"
    if req.opponent_weapon_kinds and (
        victim.arm is None or victim.arm.kind not in req.opponent_weapon_kinds
    ):
        return f"needs an opponent using {' or '.join(req.opponent_weapon_kinds)}"
    if req.max_weapon_size is not None and (
        arm is None
        or arm.size is None
        or rules.sizes.index(arm.size) > rules.sizes.index(req.max_weapon_size)
    ):
        return f"needs a weapon of size {req.max_weapon_size} or smaller"
    if req.style_trait is not None and req.style_trait not in taker.record.traits:
        return f"needs the {req.style_trait} style trait"
    for c in req.taker_conditions:
        if not _condition_holds(c, pending, taker, victim, of_target=False):
            return f"the taker must be {c.replace('_', ' ')}"
    for c in req.target_conditions:
        if not _condition_holds(c, pending, taker, victim, of_target=True):
            return f"the target must be {c.replace('_', ' ')}"
    return None


def eligible_effects(
    rules: RulesView, pending: PendingExchange, side: str, taker: Party, victim: Party
) -> tuple[list[JSON], dict[str, str]]:
    """The effects ``taker`` may choose (id, name, stackable, narrative) and the refusals.

    Memoised per view on everything a requirement can look at, since the answer is a pure
    function of it (the same pairings recur constantly in play)."""
    key = _situation_key(pending, side, taker, victim)
    hit = recalled(rules.memo, "eligibility", key)
    if hit is None:
        made = _eligible_effects(rules, pending, side, taker, victim)
        hit = memo_of(rules.memo, "eligibility").put(key, made)
    eligible, refused = hit
    out, why_not = [dict(e) for e in eligible], dict(refused)
    limited = _limited(rules)
    if limited:
        # A target limit reads the two records' characteristics (and a brace), which the memo
        # key leaves out: checked afresh, so an effect that could do nothing is never offered.
        braced = pending.situation["defender_braced"] and victim.record.id == pending.defender
        for effect_id, scaled in limited:
            scale = rules.brace_vs_bash if scaled and is_braced(victim.record, braced) else None
            why = limit_refusal(rules, effect_id, taker.record, victim.record, scale)
            if why is not None and effect_id not in why_not:
                out = [e for e in out if e["id"] != effect_id]
                why_not[effect_id] = why
    return out, why_not


def _limited(rules: RulesView) -> list[tuple[str, bool]]:
    """(id, braced SIZ counts double) of every effect with a target limit (memoised per view)."""
    found: list[tuple[str, bool]] | None = rules.memo.get("limited_effects")
    if found is None:
        found = rules.memo["limited_effects"] = [
            (e.id, e.mechanic == "bash")
            for e in rules.effects.values()
            if e.params.target_limit is not None
        ]
    return found


def limit_refusal(
    rules: RulesView,
    effect_id: str,
    taker: CombatantRecord,
    victim: CombatantRecord,
    scale: Fraction | None = None,
) -> str | None:
    """Why the effect's target limit (e.g. STR up to 2× the taker's) rules the victim out;
    ``scale`` enlarges the victim's value (a Brace against Bash). None: it does not."""
    limit = rules.effects[effect_id].params.target_limit
    if limit is None:
        return None
    mine = taker.characteristics.get(limit.attribute, 0)
    theirs: Any = victim.characteristics.get(limit.attribute, 0)
    if scale is not None:
        theirs = theirs * scale
    if theirs > mine * limit.multiple:
        return (
            f"works only on targets up to {limit.multiple}× the taker's {limit.attribute.upper()}"
        )
    return None


def _situation_key(pending: PendingExchange, side: str, taker: Party, victim: Party) -> tuple:
    def who(p: Party) -> tuple:
        conds = p.record.conditions
        return (
            p.record.id,
            p.arm.id if p.arm else None,
            p.level,
            tuple(sorted(c for c in conds if c in DISADVANTAGED or c in ("casting",))),
            tuple(p.record.traits),
        )

    situation = pending.situation
    return (
        side,
        who(taker),
        who(victim),
        pending.first_on_surprised,
        pending.defence,
        pending.band,
        pending.surprised,
        situation["target_stationary"],
        situation["blind_strike"],
    )


def offer(effect: Any) -> JSON:
    """How an eligible special effect (weapon or spirit) is listed to the winner."""
    return {
        "id": effect.id,
        "name": effect.name,
        "stackable": effect.stackable,
        "narrative": effect.narrative,
    }


def _eligible_effects(
    rules: RulesView, pending: PendingExchange, side: str, taker: Party, victim: Party
) -> tuple[list[JSON], dict[str, str]]:
    eligible: list[JSON] = []
    refused: dict[str, str] = {}
    for effect in rules.effects.values():
        why = refusal(rules, effect, pending, side, taker, victim)
        if why is None:
            eligible.append(offer(effect))
        else:
            refused[effect.id] = why
    return eligible, refused
