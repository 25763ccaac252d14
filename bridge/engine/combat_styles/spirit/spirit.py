"""Spirit combat: an opposed, differential roll of spirit-combat skills whose winner chooses
spirit-combat special effects and rolls the Spirit Damage table (by his skill band) against the
loser's Magic Points.

What the defender opposes with, whether a winning defender hits back, whether damage needs a
success and what befalls a combatant whose Magic Points run out are rule data
(``combat.spirit_combat``); the damage dice are the ``spirit_damage`` rows; the effects are the
``spirit_effects`` entries (:mod:`.spirit_effects`).

Like the weapon exchange it is two steps: the rolls, then (when the winner has effects to
choose and did not choose in advance) the exchange is parked under a token until
``choose_effects`` names them; the damage and the effects are applied when it finishes.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice, SpiritCombatBody
from arbiter.bridge.engine.combat_styles.core.checks import (
    CheckResult,
    Grade,
    Level,
    contest_penalty,
    roll_check,
    target,
)
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.differential import differential
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter import spirit_engagement
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    add_condition,
    combatant,
    has_condition,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import PendingSpiritCombat
from arbiter.bridge.engine.combat_styles.encounter.phases import tracks_turns
from arbiter.bridge.engine.combat_styles.exchange.exchange import fresh_state
from arbiter.bridge.engine.combat_styles.grades.situations import fatigue_of
from arbiter.bridge.engine.combat_styles.spirit import spirit_effects
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice

SPIRIT_SKILL = "spirit_combat"
"""The stat-block field (and ``resist_with`` entry) naming the spirit-combat skill."""


def _grade(
    rules: RulesView, c: CombatantRecord, grades: list[str], steps: int, notes: list[str]
) -> Grade:
    """The side's grade: the request's grades, floored by his fatigue level, then shifted."""
    ids = list(grades)
    level = fatigue_of(rules, c)
    if level is not None and level.grade is not None:
        ids.append(level.grade)
        notes.append(f"{c.name}: {level.id}")
    try:
        return rules.checks.shifted(rules.checks.most_severe(ids), steps)
    except ValueError as err:
        raise EngineError(str(err)) from None


def _resistance(rules: RulesView, c: CombatantRecord) -> tuple[str, int]:
    """The skill the defender opposes with: the first of ``resist_with`` he has."""
    for name in rules.model.combat.spirit_combat.resist_with:
        value = c.spirit_combat if name == SPIRIT_SKILL else c.skills.get(name)
        if value is not None:
            return name, value
    wanted = ", ".join(rules.model.combat.spirit_combat.resist_with)
    raise EngineError(f"{c.name} has none of the skills that resist spirit combat ({wanted})")


def _magic_points(c: CombatantRecord) -> int:
    mp = c.magic_points
    if mp is None:
        raise EngineError(
            f"{c.name} has no Magic Points: give magic_points in the stat block "
            "(the rule data has no formula for them)"
        )
    return int(mp)


def _roll(
    rules: RulesView,
    dice: Dice,
    c: CombatantRecord,
    skill: int,
    grade: Grade,
    augment: int,
    penalty: int,
    luck: str | None,
    label: str,
) -> CheckResult:
    tgt = target(rules.checks, skill, grade, augment, penalty)
    if tgt.impossible:
        raise EngineError(f"{c.name}'s roll is {grade.name}: no attempt is possible")
    policy = Level.named(luck) if luck and c.luck_points > 0 else None
    result = roll_check(rules.checks, dice, tgt, f"1d100 {label}", policy)
    if result.rerolled_from is not None:
        c.luck_points -= 1
    return result


def spirit_combat(
    rules: RulesView, body: SpiritCombatBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    """Roll one exchange of spirit combat; finish it, or park it for the winner's choice of
    spirit effects (see the module docstring)."""
    data = rules.model.combat.spirit_combat
    if state is None:
        state = fresh_state(rules, body)
    if body.attacker == body.defender:
        raise EngineError("a combatant cannot engage himself in spirit combat")
    state = writable(state)
    att = combatant(state, body.attacker)
    dfd = combatant(state, body.defender)
    for c in (att, dfd):
        if has_condition(c, "dead") or has_condition(c, data.defeated_condition):
            raise EngineError(f"{c.name} is out of the fight ({data.defeated_condition})")
    att_skill = att.spirit_combat
    if att_skill is None:
        raise EngineError(
            f"{att.name} has no spirit-combat skill: give spirit_combat in the stat block"
        )
    resist_name, dfd_skill = _resistance(rules, dfd)
    for c in (att, dfd):
        _magic_points(c)
    if has_condition(att, "surprised"):
        raise EngineError(f"{att.name} was surprised and may not act offensively this round")
    spirit_engagement.check_not_barred(state, att, dfd)
    # Closed below, once the rolls are written (luck): a new round re-copies the records.
    rounds.spend_proactive(state, att, "engage in spirit combat", rules)

    notes: list[str] = []
    att_grade = _grade(rules, att, body.attacker_grades, body.attacker_grade_steps, notes)
    dfd_grade = _grade(rules, dfd, body.defender_grades, body.defender_grade_steps, notes)
    penalty = contest_penalty([att_skill, dfd_skill])
    if penalty:
        notes.append(f"skills over 100: −{penalty} to both")
    a = _roll(
        rules,
        dice,
        att,
        att_skill,
        att_grade,
        body.attacker_augment,
        penalty,
        body.attacker_luck,
        SPIRIT_SKILL,
    )
    d = _roll(
        rules,
        dice,
        dfd,
        dfd_skill,
        dfd_grade,
        body.defender_augment,
        penalty,
        body.defender_luck,
        resist_name,
    )
    diff = differential(rules.differential, a.level, d.level)
    pending = PendingSpiritCombat(
        f"s{state.next_seq()}",
        att.id,
        dfd.id,
        {**a.to_json(), "skill_name": SPIRIT_SKILL, "skill": att_skill, "grade": att_grade.id},
        {**d.to_json(), "skill_name": resist_name, "skill": dfd_skill, "grade": dfd_grade.id},
        penalty,
        {"winner": diff.winner, "effects": diff.count},
        notes,
    )
    rounds.settle(state, rules)  # ``att`` and ``dfd`` may be stale copies from here on
    if diff.winner is not None and diff.count:
        won, lost = (a, d) if diff.winner == "attacker" else (d, a)
        taker, victim = (att, dfd) if diff.winner == "attacker" else (dfd, att)
        offered, refused = spirit_effects.eligible(
            rules, diff.winner, taker, won.level.label, victim, lost.level.label
        )
        pending.offer(taker.id, offered, refused)
        if body.effects is None and offered:
            stored = pending.to_json()
            state.pending = {**(state.pending_or_none or {}), pending.token: stored}
            result: JSON = {"status": "awaiting_effects", **_summary(stored)}
            if tracks_turns(state):
                result.update(rounds.snapshot(state))
            return Resolution(result, state.data)
    return finish_spirit_combat(rules, state, pending, list(body.effects or []), dice)


def finish_spirit_combat(
    rules: RulesView,
    state: EncounterState,
    pending: PendingSpiritCombat,
    choices: list[EffectChoice],
    dice: Dice,
) -> Resolution:
    """Apply the winner's ``choices`` and the Spirit Damage of a rolled spirit combat: the
    completed exchange (``state`` must be writable for both parties)."""
    data = rules.model.combat.spirit_combat
    spirit_effects.validate(rules, pending, choices)
    att = combatant(state, pending.attacker)
    dfd = combatant(state, pending.defender)
    diff = pending.differential
    notes = list(pending.notes)
    resist_name = pending.resistance["skill_name"]
    winner_side = diff["winner"]
    winner, loser, level = (
        (att, dfd, pending.attack["level"])
        if winner_side == "attacker"
        else (dfd, att, pending.resistance["level"])
    )
    damage: JSON | None = None
    defeated: str | None = None
    if winner_side is None:
        notes.append("neither side wins: no Spirit Damage")
    elif winner_side == "defender" and not (
        data.defender_deals_damage and resist_name == SPIRIT_SKILL
    ):
        notes.append(f"{dfd.name} fends the attack off but cannot strike back")
    elif data.damage_needs_success and not Level.named(level).succeeded:
        notes.append(f"{winner.name} wins without a success: no Spirit Damage")
    else:
        damage = _spirit_damage(
            rules, dice, winner, loser, spirit_effects.damage_rolls(rules, choices)
        )
    effects: list[JSON] = []
    if winner_side is not None:
        spirit_engagement.engage(state, att.id, dfd.id)
        outcome = spirit_effects.Outcome(
            state,
            winner,
            loser,
            damage,
            {"defeated_at": data.defeated_at, "defeated_condition": data.defeated_condition},
        )
        effects = spirit_effects.apply(rules, outcome, choices)
    if damage is not None and damage["magic_points"]["after"] <= data.defeated_at:
        add_condition(loser, data.defeated_condition)
        defeated = loser.id
        notes.append(f"{loser.name} is out of Magic Points: {data.defeated_condition}")
        spirit_engagement.disengage(state, att, dfd)  # a defeat ends the spirit combat
    token = pending.token
    if state.has("pending") and token in state.pending:
        state.pending = {k: v for k, v in state.pending.items() if k != token}
    result: JSON = {
        "kind": "spirit_combat",
        "status": "complete",
        "token": token,
        "attacker": att.id,
        "defender": dfd.id,
        "attack": pending.attack,
        "resistance": pending.resistance,
        "penalty_over_100": pending.penalty_over_100,
        "differential": diff,
        "effects": effects,
        "spirit_damage": damage,
        "defeated": defeated,
        "engaged": spirit_engagement.engaged(state, att.id, dfd.id),
        "notes": notes,
    }
    if tracks_turns(state):
        result.update(rounds.snapshot(state))
    return Resolution(result, state.data)


def _spirit_skill(c: CombatantRecord) -> int:
    """His Spirit Combat skill; KeyError when his record has none (as the stored record read)."""
    if c.spirit_combat is None:
        raise KeyError(SPIRIT_SKILL)
    return c.spirit_combat


def _spirit_damage(
    rules: RulesView, dice: Dice, winner: CombatantRecord, loser: CombatantRecord, times: int
) -> JSON:
    """Roll the winner's band of the Spirit Damage table ``times`` times (Spirit Lance), keep
    the best, and take it off the loser's Magic Points."""
    skill = int(_spirit_skill(winner))
    expr = rules.model.spirit_damage_for(skill)
    rolls = [dice.roll(expr).total for _ in range(times)]
    rolled = max(rolls)
    before = _magic_points(loser)
    loser.magic_points = before - rolled
    out: JSON = {
        "to": loser.id,
        "skill": skill,
        "dice": expr,
        "rolled": rolled,
        "magic_points": {"before": before, "after": before - rolled},
    }
    if times > 1:
        out["rolls"] = rolls
    return out


def _summary(pending: JSON) -> JSON:
    keys = (
        "kind",
        "token",
        "attacker",
        "defender",
        "attack",
        "resistance",
        "penalty_over_100",
        "differential",
        "chooser",
        "eligible",
        "ineligible",
        "notes",
    )
    return {k: pending[k] for k in keys if k in pending}
