"""Fatigue in combat: the Endurance roll against fatigue that falls due every N rounds by CON.

An encounter started with ``fatigue_checks`` turns it on. Whenever a request closes a round,
every combatant still in the fight whose CON band (``combat.fatigue_checks``) makes that round
due rolls the check's skill at his current fatigue grade; a failure costs the data's levels.
The new level's penalties (skill grade floor, initiative, action points) apply from then on —
the round just opened included, so its action points are adjusted at once. The checks are
recorded in the outcome of the request that closed the round, after its own dice.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.checks import roll_check, target
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import Fatigue, RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    combatant,
    has_condition,
    records_of,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.phases import tracks_turns
from arbiter.bridge.engine.combat_styles.grades.situations import fatigue_of
from arbiter.bridge.engine.combat_styles.rounds import OUT
from arbiter.bridge.engine.contract import JSON, Resolution
from arbiter.bridge.engine.dice import Dice


def every_rounds(rules: RulesView, c: CombatantRecord) -> int | None:
    """Rounds between ``c``'s fatigue checks (None: no band covers his CON)."""
    con = c.characteristics["con"]
    for band in rules.model.combat.fatigue_checks.bands:
        if band.con.contains(con):
            return int(band.every_rounds)
    return None


def _ap_change(level: Fatigue | None, full: int) -> int:
    if level is None:
        return full
    return 0 if level.no_activity else max(0, full + level.action_points)


def _check(rules: RulesView, c: CombatantRecord, dice: Dice, every: int) -> JSON:
    data = rules.model.combat.fatigue_checks
    checks = rules.checks
    before = fatigue_of(rules, c)
    grade = checks.grade(before.grade) if before and before.grade else None
    tgt = target(checks, c.skills.get(data.skill, 0), grade)
    result = roll_check(checks, dice, tgt, f"1d100 {data.skill} against fatigue {c.id}")
    out: JSON = {
        "combatant": c.id,
        "every_rounds": every,
        "skill": data.skill,
        "grade": grade.id if grade else checks.standard,
        **result.to_json(),
        "levels_lost": 0,
    }
    if not result.level.succeeded and data.levels_lost_on_failure:
        lost = min((c.fatigue_levels or 0) + data.levels_lost_on_failure, len(rules.fatigue) - 1)
        c.set_fatigue_levels(lost)
        after = fatigue_of(rules, c)
        full = c.action_points_max
        c.set_ap(max(0, c.ap_left() + _ap_change(after, full) - _ap_change(before, full)))
        out["levels_lost"] = data.levels_lost_on_failure
    level = fatigue_of(rules, c)
    out["fatigue"] = level.id if level else rules.fatigue[0].id
    movement = rules.model.fatigue_level(out["fatigue"]).movement
    if movement:
        # Movement is not tracked by the engine: the level's rule is shown for the table.
        out["movement"] = f"{movement:+d} m" if isinstance(movement, int) else movement
    return out


def after_request(
    rules: RulesView,
    begun: int | None,
    done: Resolution,
    after: EncounterState | None,
    dice: Dice,
) -> Resolution:
    """``done`` (whose state ``after`` views) with the fatigue checks of every round it closed
    (unchanged when none); ``begun``: the Combat Round the request began in, read from the
    stored state (None: it began outside the turns phase)."""
    if begun is None or after is None:
        return done
    if not after.fatigue_checks or not tracks_turns(after) or after.round_number() <= begun:
        return done
    state = writable(after)
    rounds: list[JSON] = []
    for completed in range(begun, after.round_number()):
        checks: list[JSON] = []
        for cid in state.order:
            c = combatant(state, cid)
            every = every_rounds(rules, c)
            level = fatigue_of(rules, c)
            if every is None or completed % every or any(has_condition(c, o) for o in OUT):
                continue
            if level is not None and level.no_activity:
                continue
            checks.append(_check(rules, c, dice, every))
        if checks:
            rounds.append({"round": completed, "checks": checks})
    if not rounds:
        return done
    result = {**done.result, "fatigue_checks": rounds}
    if "action_points" in result:
        result["action_points"] = {cid: c.ap for cid, c in records_of(state).items()}
    return Resolution(result, state.data, done.private)
