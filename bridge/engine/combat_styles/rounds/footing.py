"""Regain Footing: a prone fighter stands.

Unengaged, he stands without a roll. Engaged — the request names an opponent (``target``) — he
must first win an opposed test of the skills ``combat.regain_footing`` lists; each side rolls
his better one unless the request names one. Winning removes ``prone``; losing leaves him down
with the action spent. A victim a leaper holds down astride him (``held_down_by``) cannot
stand until the leaper leaves him (text "Leaping Attacks"); with
``combat.leaping_attack.victim_may_regain_footing`` he may, by beating that leaper in the test
(which also throws the leaper off: his ``astride`` is cleared).
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.checks import contest_penalty, opposed_winner
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.hands import stunned_locations
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import combatant, records_of
from arbiter.bridge.engine.combat_styles.grades.contests import roll_skill, skill_value
from arbiter.bridge.engine.combat_styles.rounds.turns import able
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice

ACTION = "regain_footing"


def check_can_stand(rules: RulesView, c: CombatantRecord) -> None:
    """Refuse Regain Footing (before the action is paid for) for a fighter who is not prone,
    or — with ``combat.regain_footing.needs_working_legs`` — whose leg is useless or stunned."""
    if "prone" not in c.conditions:
        raise EngineError(f"{c.name} is not prone: there is no footing to regain")
    if not rules.model.combat.regain_footing.needs_working_legs:
        return
    useless = c.conditions.get("limb_useless") or {}
    for why, locations in (
        ("useless", useless.get("locations", [])),
        ("stunned", sorted(stunned_locations(c))),
    ):
        legs = [loc for loc in locations if rules.location(loc).leg]
        if legs:
            raise EngineError(
                f"{c.name}'s {' and '.join(legs)} is {why}: he cannot stand until it works"
            )


def opponent_of(
    rules: RulesView, state: EncounterState, c: CombatantRecord, target: str | None
) -> str | None:
    """The id of the opponent ``c`` must beat to stand: whoever holds him down (a leaper astride
    him), else the named ``target``; None when he is unengaged. A holder who is gone or out of
    the fight holds nobody down. Held down, he is refused (the text: not until the leaper
    leaves him) unless ``combat.leaping_attack.victim_may_regain_footing``; naming another foe
    while held down is refused."""
    holder = c.conditions["prone"].get("held_down_by")
    if holder is not None and not (holder in records_of(state) and able(records_of(state)[holder])):
        holder = None
    if holder is not None and not rules.model.combat.leaping_attack.victim_may_regain_footing:
        raise EngineError(
            f"{c.name} is held down by {holder} astride him: he cannot regain his footing "
            f"until {holder} leaves him or he wins an effect that lets him arise"
        )
    if target is not None:
        if target == c.id:
            raise EngineError(f"{c.name} cannot oppose himself")
        combatant(state, target)
        if holder is not None and target != holder:
            raise EngineError(f"{c.name} is held down by {holder}: he must beat {holder} to stand")
    return holder if holder is not None else target


def touched(state: EncounterState, c: CombatantRecord, opponent: str | None) -> tuple[str, ...]:
    """The records standing ``c`` up may change: the opponent's and the holder's (astride)."""
    holder = c.conditions["prone"].get("held_down_by")
    ids = {i for i in (opponent, holder) if i is not None and i in records_of(state)}
    return tuple(sorted(ids))


def _chosen(listed: tuple[str, ...], c: CombatantRecord, named: str | None) -> str:
    """The named skill (one of ``listed``), else ``c``'s best of them (first on a tie)."""
    if named is not None:
        if named not in listed:
            allowed = ", ".join(listed)
            raise EngineError(f"regaining footing is tested with {allowed}, not {named!r}")
        return named
    return max(listed, key=lambda s: skill_value(c, s))


def regain_footing(
    rules: RulesView,
    state: EncounterState,
    c: CombatantRecord,
    opponent_id: str | None,
    dice: Dice,
    skill: str | None = None,
) -> JSON:
    """Stand ``c`` up, after an opposed test against ``opponent_id`` when engaged; returns
    ``stood``, the opponent and both rolls (when there was a test)."""
    data = rules.model.combat.regain_footing
    out: JSON = {"opponent": opponent_id}
    if opponent_id is None:
        _stand(state, c)
        return {**out, "stood": True, "note": "unengaged: stands without a roll"}
    opponent = combatant(state, opponent_id)
    mine_skill = _chosen(tuple(data.skills), c, skill)
    theirs_skill = _chosen(tuple(data.opponent_skills), opponent, None)
    penalty = contest_penalty([skill_value(c, mine_skill), skill_value(opponent, theirs_skill)])
    notes: list[str] = []
    mine, mine_json = roll_skill(rules, dice, c, mine_skill, penalty=penalty, notes=notes)
    theirs, theirs_json = roll_skill(
        rules, dice, opponent, theirs_skill, penalty=penalty, notes=notes
    )
    stood = opposed_winner(mine, theirs) == 1
    if stood:
        _stand(state, c)
    out.update(stander_roll=mine_json, opponent_roll=theirs_json, stood=stood)
    if notes:
        out["notes"] = notes
    return out


def _stand(state: EncounterState, c: CombatantRecord) -> None:
    """Remove ``prone``; a leaper astride him is thrown off (his ``astride`` cleared)."""
    prone = c.conditions.pop("prone")
    for rider_id in {prone.get("held_down_by")} - {None}:
        rider = combatant(state, rider_id) if rider_id in records_of(state) else None
        if rider is not None and rider.conditions.get("astride", {}).get("on") == c.id:
            del rider.conditions["astride"]
