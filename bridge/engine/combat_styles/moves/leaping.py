"""Leaping attacks (text "Leaping Attacks", data ``combat.leaping_attack``).

The leaper's ``attacker_skill`` (Athletics) against the defender's choice of
``defender_skills`` (Brawn or Evade; a quadruped may use ``quadruped_defender_skill``, and the
leaper's roll is then ``grade_steps_vs_quadruped`` harder). The leap only works against a
defender whose SIZ — multiplied by ``brace_siz_multiplier`` if he braced — is at most
``max_target_siz_multiple`` × the leaper's. A won leap knocks the defender prone with the
leaper astride him; it deals no damage. A difference in success levels wins special effects as
in an exchange: the leap is parked for ``choose_effects`` like one, and finished by the same
code with no blow.

The leap is resolved against the round it was made in: paying for it (the leap, the
resistance) closes no round; the cycle or round it finished closes once the leap is written
(prone, astride), as a new round puts fresh copies of the records in the state (and fresh
action points with them), and before its effects are applied, as in an exchange.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.move_requests import LeapingAttackBody
from arbiter.bridge.engine.combat_styles.bodies.requests import Situation
from arbiter.bridge.engine.combat_styles.core.checks import (
    Level,
    ceil_div,
    contest_penalty,
    opposed_winner,
)
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.differential import differential
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.effects.eligibility import Party, eligible_effects
from arbiter.bridge.engine.combat_styles.encounter import brace
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    add_condition,
    combatant,
    has_condition,
    needs_encounter,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.engagement import check_attack
from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import PendingExchange
from arbiter.bridge.engine.combat_styles.encounter.saddle import MOUNTED
from arbiter.bridge.engine.combat_styles.exchange.exchange import (
    SUMMARY_KEYS,
    situation_json,
    summary,
)
from arbiter.bridge.engine.combat_styles.exchange.finishing import finish
from arbiter.bridge.engine.combat_styles.grades.contests import roll_skill, skill_value
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.compiler.model.combat_styles.combat_rules import LeapingAttack

MOVE = "leaping_attack"
LEAP_SUMMARY_KEYS = tuple(k for k in SUMMARY_KEYS if k not in ("weapon", "defence", "parry_weapon"))
"""A parked leap shows what a parked exchange does, but the weapons: a leap has none."""


def leaping_attack(
    rules: RulesView, body: LeapingAttackBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    """Resolve a leap; finish it, or park it until the winner chooses his effects."""
    state = needs_encounter(state, "a leaping attack")
    if body.attacker == body.defender:
        raise EngineError("a combatant cannot leap on himself")
    leap = rules.model.combat.leaping_attack
    state = writable(state)
    att = combatant(state, body.attacker)
    dfd = combatant(state, body.defender)
    for c in (att, dfd):
        if has_condition(c, "dead"):
            raise EngineError(f"{c.name} is dead")
    if has_condition(att, "unconscious") or has_condition(att, "incapacitated"):
        raise EngineError(f"{att.name} is out of the fight and cannot leap")
    # He would not end astride his victim (astride.py): a leap starts on one's feet.
    if has_condition(att, "prone"):
        raise EngineError(f"{att.name} is prone: he must regain his footing to leap")
    if has_condition(att, MOUNTED):
        raise EngineError(f"{att.name} is mounted: he must dismount to leap")
    check_attack(state, att.id, dfd.id)
    siz_counted = _siz_limit(leap, att, dfd, brace.is_braced(dfd, body.defender_braced))
    resist = _resist_skill(leap, dfd, body.resist_with)
    if resist == "evade" and has_condition(dfd, "entangled"):
        raise EngineError(f"{dfd.name} is entangled and cannot evade")
    # Closed below, once the leap is written: a new round re-copies the records held here.
    rounds.spend_for_attack(rules, state, att)

    notes: list[str] = []
    brace.lose(rules, att, "leaping", notes)
    steps = 0
    if dfd.quadruped and leap.grade_steps_vs_quadruped:
        steps = leap.grade_steps_vs_quadruped
        notes.append(f"against a quadruped: the leap is {steps} grade(s) harder")
    if resist is not None:
        if _flat_footed(dfd):
            notes.append(f"{dfd.name} is surprised and cannot resist before his initiative")
            resist = None
        elif not rounds.has_ap(state, dfd):
            notes.append(f"{dfd.name} has no action points left: counts as a failure")
            resist = None
    contest = [skill_value(att, leap.attacker_skill)]
    if resist is not None:
        contest.append(skill_value(dfd, resist))
    penalty = contest_penalty(contest)
    if penalty:
        notes.append(f"skills over 100: −{penalty} to every participant")
    a, a_json = roll_skill(
        rules,
        dice,
        att,
        leap.attacker_skill,
        penalty=penalty,
        steps=steps,
        augment=body.attacker_augment,
        notes=notes,
    )
    d_json: JSON | None = None
    if resist is not None:
        rounds.spend_reaction(state, dfd, rules)
        d, d_json = roll_skill(
            rules, dice, dfd, resist, penalty=penalty, augment=body.defender_augment, notes=notes
        )
        d_level = d.level
        won = opposed_winner(a, d) == 1
    else:
        d_level = Level.named(rules.no_defence_level)
        won = a.level.succeeded
    outcome = "knocked prone" if won else "weathered or sidestepped the leap"
    if won:
        add_condition(dfd, "prone", None, held_down_by=att.id)
        add_condition(att, "astride", None, on=dfd.id)
        notes.append(f"{dfd.name} is knocked prone with {att.name} astride him")
    else:
        notes.append(f"{dfd.name} {outcome}")
    leap_json: JSON = {
        "leaper_won": won,
        "outcome": outcome,
        "resisted_with": resist,
        "defender_siz_counted": siz_counted,
        "siz_limit": leap.max_target_siz_multiple * att.characteristics["siz"],
    }
    surprised = dfd.conditions.get("surprised")
    first = surprised is not None and not surprised.get("attacked")
    bonus = rules.surprise_bonus_effects if first else 0
    diff = differential(rules.differential, a.level, d_level, bonus)
    if surprised is not None:
        surprised["attacked"] = True  # only the first attack earns the bonus effect
    pending = _pending(rules, state, att, dfd, a_json, d_json, d_level, diff.to_json(), notes)
    pending.surprised = surprised is not None
    pending.first_on_surprised = first
    pending.move_result = move_result = {"kind": MOVE, "leap": leap_json}
    if diff.winner is not None:
        unarmed = rules.arm(rules.unarmed_id)
        leaper, target = Party(att, unarmed, a.level), Party(dfd, None, d_level)
        taker, loser = (leaper, target) if diff.winner == "attacker" else (target, leaper)
        eligible, refused = eligible_effects(rules, pending, diff.winner, taker, loser)
        pending.offer(taker.record.id, eligible, refused)
    # The leap is written: the round it closed closes now. Its effects are applied after, to
    # the records as they stand (:func:`finish` reads them afresh), chosen now or later.
    rounds.settle(state, rules)
    if diff.winner is None or body.effects is not None:
        done = finish(rules, state, pending, body.effects or [], dice)
        done.result.update(move_result)
        return done
    stored = state.pending[pending.token] = pending.to_json()
    result: JSON = {
        "kind": MOVE,
        "status": "awaiting_effects",
        "leap": leap_json,
        **summary(stored, LEAP_SUMMARY_KEYS),
    }
    return Resolution(result=result, state=state.data)


def _siz_limit(
    leap: LeapingAttack, att: CombatantRecord, dfd: CombatantRecord, braced: bool
) -> int:
    """The defender's SIZ as it counts against the leap (larger when braced); EngineError
    when it is over the limit."""
    siz = dfd.characteristics["siz"]
    if braced:
        m = leap.brace_siz_multiplier
        siz = ceil_div(siz * m.numerator, m.denominator)
    limit = leap.max_target_siz_multiple * att.characteristics["siz"]
    if siz > limit:
        why = " braced" if braced else ""
        raise EngineError(
            f"a leaping attack only works against a SIZ up to {limit} "
            f"({leap.max_target_siz_multiple}× {att.name}'s); "
            f"{dfd.name}{why} counts {siz}"
        )
    return siz


def _resist_skill(leap: LeapingAttack, dfd: CombatantRecord, chosen: str | None) -> str | None:
    """The skill the defender resists with (None: he does not resist)."""
    allowed = list(leap.defender_skills)
    substitute = leap.quadruped_defender_skill
    if dfd.quadruped and substitute is not None and substitute not in allowed:
        allowed.append(substitute)
    if chosen == "none":
        return None
    if chosen is None:
        return allowed[0]
    if chosen not in allowed:
        raise EngineError(f"{dfd.name} resists a leap with {' or '.join(allowed)}, not {chosen!r}")
    return chosen


def _flat_footed(dfd: CombatantRecord) -> bool:
    surprised = dfd.conditions.get("surprised")
    return surprised is not None and not surprised.get("turn_come")


def _pending(
    rules: RulesView,
    state: EncounterState,
    att: CombatantRecord,
    dfd: CombatantRecord,
    attack: JSON,
    defence: JSON | None,
    defence_level: Level,
    diff: JSON,
    notes: list[str],
) -> PendingExchange:
    """An exchange-shaped record of the leap that :func:`finish` completes with no blow."""
    return PendingExchange(
        f"x{state.next_seq()}",
        att.id,
        dfd.id,
        rules.unarmed_id,
        defence["skill_name"] if defence else "none",
        None,
        attack,
        defence,
        defence_level.label,
        diff,
        None,
        0,
        0,
        att.damage_modifier,
        False,
        [1, 1],
        False,
        False,
        True,
        None,
        [],
        situation_json(Situation()),
        {},
        notes,
        False,
        0,
        MOVE,
    )
