"""Follow-up moves a special effect leaves its taker (Entangle: on his following Turn, 1 AP
for an automatic Trip Opponent). Which action makes the move, which effect it attempts, the
taker's roll and what befalls the victim all come from the effect's ``follow_up`` data; the
victim resists with that effect's ``resisted_by`` skills."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.checks import (
    contest_penalty,
    opposed_winner,
    roll_check,
    target,
)
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    add_condition,
    combatant,
    recopied,
    records_of,
)
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice

READY = "ready"


def arm(rules: RulesView, rec: JSON, victim: CombatantRecord, effect_id: str) -> None:
    """After ``effect_id`` set condition ``rec["condition"]`` on ``victim``: its follow-up
    (if the data gives one) is ready for the taker's following Turn."""
    condition = rec.get("condition")
    if rules.effects[effect_id].params.follow_up is None or condition is None:
        return
    held = victim.conditions.get(condition)
    if held is not None:
        held["follow_up"] = READY


def lapse(state: EncounterState, cid: str) -> None:
    """The end of ``cid``'s Turn: follow-ups readied on an earlier Turn of his are gone."""
    for vid, victim in list(records_of(state).items()):
        for name, held in victim.conditions.items():
            if held.get("by") == cid and held.get("follow_up") == READY:
                copy = recopied(state, vid)
                copy.conditions[name]["follow_up"] = "lapsed"
                victim = copy


def ready_victim(
    rules: RulesView,
    state: EncounterState,
    taker: CombatantRecord,
    action: str,
    target_id: str | None,
) -> str:
    """The foe ``taker`` may make the follow-up ``action`` against (refused when none, or when
    several and ``target_id`` names none of them)."""
    ready = [
        vid
        for vid, victim in records_of(state).items()
        if any(
            held.get("by") == taker.id and held.get("follow_up") == READY
            for held in victim.conditions.values()
        )
    ]
    if target_id is not None:
        if target_id not in ready:
            raise EngineError(f"{taker.name} has no {action} due against {target_id!r}")
        return target_id
    if not ready:
        raise EngineError(
            f"{taker.name} has no {action} due: it follows on the Turn after the hold is won"
        )
    if len(ready) > 1:
        raise EngineError(
            f"several foes are open to {action}: name the target ({', '.join(ready)})"
        )
    return ready[0]


def resolve(
    rules: RulesView,
    state: EncounterState,
    taker: CombatantRecord,
    victim_id: str,
    action: str,
    dice: Dice,
) -> JSON:
    """The follow-up: the taker's roll of the data's skill against the victim's best resisting
    skill (opposed); if the victim does not resist, the data's condition befalls him."""
    effect_id, follow = rules.follow_ups[action]
    victim = combatant(state, victim_id)
    held_as = next(
        name
        for name, held in victim.conditions.items()
        if held.get("by") == taker.id and held.get("follow_up") is not None
    )
    victim.conditions[held_as]["follow_up"] = "used"
    attempted = rules.effects[follow.effect]
    res = attempted.resisted_by
    assert res is not None  # the model's cross-check requires it
    skills = list(res.skills)
    if victim.quadruped and res.quadruped_skill:
        skills.append(res.quadruped_skill)
    name = max(skills, key=lambda s: victim.skills.get(s, 0))
    steps = res.quadruped_grade_steps if name == res.quadruped_skill else 0
    checks = rules.checks
    mine_value = taker.skills.get(follow.skill, 0)
    theirs_value = victim.skills.get(name, 0)
    penalty = contest_penalty([mine_value, theirs_value])
    grade = checks.shifted(checks.grade(checks.standard), steps) if steps else None
    mine = roll_check(
        checks, dice, target(checks, mine_value, None, 0, penalty), f"1d100 {follow.skill}"
    )
    theirs = roll_check(
        checks, dice, target(checks, theirs_value, grade, 0, penalty), f"1d100 {name}"
    )
    resisted = opposed_winner(theirs, mine) == 1
    if not resisted:
        add_condition(victim, follow.condition)
    return {
        "effect": follow.effect,
        "from": effect_id,
        "target": victim_id,
        "roll": {"skill": follow.skill, **mine.to_json()},
        "resistance": {"skill": name, **theirs.to_json(), "resisted": resisted},
        "outcome": "resisted" if resisted else follow.condition,
    }
