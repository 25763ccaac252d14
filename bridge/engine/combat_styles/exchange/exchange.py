"""The exchange, first half: attack roll, the defender's reaction, the differential, and the
winner's eligible special effects.

An exchange either finishes at once (no effects won, or the winner's choice came with the
request) or is parked in the encounter state under a token until ``choose_effects`` arrives;
:mod:`arbiter.bridge.engine.combat_styles.exchange.finishing` does the rest.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.requests import (
    EffectChoice,
    ExchangeBody,
    Situation,
    SpiritCombatBody,
)
from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import StatBlock
from arbiter.bridge.engine.combat_styles.core import familiarity
from arbiter.bridge.engine.combat_styles.core.checks import (
    CheckResult,
    Level,
    contest_penalty,
    level_of,
    roll_check,
    target,
)
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.differential import differential
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.hands import require_free_hand
from arbiter.bridge.engine.combat_styles.core.traits import evade_ends_prone
from arbiter.bridge.engine.combat_styles.core.view import Arm, RulesView
from arbiter.bridge.engine.combat_styles.core.weapons_used import (
    inside_reach,
    outreached,
    usable_arm,
)
from arbiter.bridge.engine.combat_styles.effects.eligibility import Party, eligible_effects
from arbiter.bridge.engine.combat_styles.encounter import brace
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    add_condition,
    combatant,
    owning,
    record,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import PendingExchange
from arbiter.bridge.engine.combat_styles.encounter.phases import FREE, TURNS
from arbiter.bridge.engine.combat_styles.exchange.finishing import finish
from arbiter.bridge.engine.combat_styles.exchange.odds import odds_of_targets
from arbiter.bridge.engine.combat_styles.grades.situations import (
    ONE,
    attack_terms,
    capped,
    defence_grade,
)
from arbiter.bridge.engine.combat_styles.riding import riders
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice


def fresh_state(rules: RulesView, body: ExchangeBody | SpiritCombatBody) -> EncounterState:
    """An encounter state built from the stat blocks of an exchange sent without one."""
    # Fields read from the models' __dict__: a pydantic attribute read is a hook call.
    blocks: list[StatBlock] | None = body.__dict__["combatants"]
    if not blocks:
        raise EngineError(
            "no encounter state: start an encounter first or send the combatants' stat blocks"
        )
    records: dict[str, CombatantRecord] = {}
    try:
        for b in blocks:  # a loop, not a comprehension: no frame of its own
            cid: str = b.__dict__["id"]
            records[cid] = CombatantRecord(record(rules, b))  # CombatantRecord.of, inlined
    except LookupError as err:
        raise EngineError(str(err)) from None
    # The records are the state's own (record() gives each call its own copy): writable()
    # and combatant() need not copy them a second time.
    return owning(EncounterState({"combatants": records, "phase": FREE, "pending": {}, "seq": 0}))


def start_exchange(
    rules: RulesView,
    body: ExchangeBody,
    state: EncounterState | None,
    dice: Dice,
    *,
    shared_roll: int | None = None,
    pay: bool = True,
    close: bool = True,
) -> Resolution:
    """Resolve the rolls of an exchange; finish it or park it for the winner's choice.

    A sweep attack passes ``shared_roll`` (its one attack roll, judged against this pair's
    target), ``pay=False`` (the attacker paid once for the whole sweep) and ``close=False``
    (the sweep closes the cycle or round itself, after its last pair).

    Paying for the attack or the defence closes no cycle or round at once: the rolls are
    resolved against the round they were made in (a defender whose points are spent cannot
    defend with the next round's), and what they write on the two records (luck, the attack's
    round, a lost brace or ward, prone after an evade) is written before a new round re-copies
    them; the effects and the blow are applied after, as to a parked exchange."""
    if state is None:
        state = fresh_state(rules, body)
    # Every field read from the body's __dict__ (and the situation's), not as an attribute:
    # a pydantic model's attribute read goes through its class's __getattr__ hook (about 800
    # instructions each, interpreted or compiled), and an exchange reads some thirty.
    given: dict[str, Any] = body.__dict__
    attacker_id: str = given["attacker"]
    defender_id: str = given["defender"]
    grapple: bool = given["grapple"]
    effects: list[EffectChoice] | None = given["effects"]
    odds_wanted: bool = given["odds"]
    if attacker_id == defender_id:
        raise EngineError("a combatant cannot attack himself")
    defended_by: str | None = given["defended_by"]
    weapon_id: str | None = given["weapon"]
    state = writable(state)
    # Whether turns are counted, asked once: nothing an exchange does changes the phase.
    # (tracks_turns without its call: the state's phase read directly.)
    phase: str | None = state.data.get("phase")
    in_turns = phase == TURNS
    att = combatant(state, attacker_id)
    dfd = combatant(state, defender_id)
    att_conditions = att.conditions
    dfd_conditions = dfd.conditions
    if defended_by:  # a rider defends his mount: his points, luck, skill (and weapon)
        payer, arm_owner, guard_skill, guard_cost = riders.guardian(rules, state, body, dfd)
    else:
        payer, arm_owner, guard_skill, guard_cost = dfd, dfd, None, 1
    for c, conditions in ((att, att_conditions), (dfd, dfd_conditions)):
        if "dead" in conditions:
            raise EngineError(f"{c.name} is dead")
    if "unconscious" in att_conditions or "incapacitated" in att_conditions:
        raise EngineError(f"{att.name} is out of the fight and cannot attack")
    if grapple and weapon_id not in (None, rules.unarmed_id):
        raise EngineError("a grapple is an Unarmed attack: it needs an empty hand")
    if grapple:
        require_free_hand(rules, att, "grapple")
    arm = usable_arm(rules, att, rules.unarmed_id if grapple else weapon_id, "attack")
    if pay:
        rounds.spend_for_attack(rules, state, att)
    situation: Situation = given["situation"]
    circumstances: dict[str, Any] = situation.__dict__
    surprise: bool = circumstances["surprise"]
    engaged: str | None = circumstances["engaged_reach"]
    terms = attack_terms(rules, att, dfd, arm, situation)
    notes = list(terms.notes)
    if circumstances["charging"]:
        brace.lose(rules, att, "charging", notes)

    surprised = surprise or "surprised" in dfd_conditions
    first_on_surprised = surprised and not dfd_conditions.get("surprised", {}).get("attacked")
    defence: str = given["defence"]
    parry_only_if_hit: bool = given["parry_only_if_hit"]
    attacker_augment: int = given["attacker_augment"]
    parry_arm: Arm | None = None
    if defence in ("parry", "evade"):
        flat_footed = surprise or (surprised and not dfd_conditions["surprised"].get("turn_come"))
        if flat_footed:
            notes.append(f"{dfd.name} is surprised and cannot defend before his initiative")
            defence = "none"
        elif "unconscious" in dfd_conditions or "incapacitated" in dfd_conditions:
            notes.append(f"{dfd.name} is helpless")
            defence = "none"
        elif in_turns and (payer.ap or 0) < guard_cost:
            notes.append(f"{payer.name} has no action points left: counts as a failure")
            defence = "none"
    if "warding" in att_conditions:
        _end_ward(att, arm.id, notes)
    if defence == "parry":
        parry_arm = usable_arm(rules, arm_owner, given["parry_weapon"], "parry")
        if "warding" in arm_owner.conditions:
            _end_ward(arm_owner, parry_arm.id, notes)
        if arm.is_ranged and rules.only_shields_parry_ranged and not parry_arm.parries_ranged:
            raise EngineError(
                f"{parry_arm.name} cannot parry a ranged attack: only shields can (evade instead)"
            )
        if (
            engaged is not None
            and not rules.inside_reach_can_parry
            and parry_arm.reach is not None
            and (
                rules.reaches.index(engaged) < rules.reach_index[parry_arm.reach]
                and parry_arm.kind == "melee"
            )
        ):
            raise EngineError(f"{parry_arm.name} cannot parry inside its reach ({engaged})")
    if defence == "evade" and "entangled" in dfd_conditions:
        raise EngineError(f"{dfd.name} is entangled and cannot evade")

    att_skill = terms.skill
    key = "evade"  # the defender's skill, for his grade
    if guard_skill is not None and defence in ("parry", "evade"):
        dfd_skill = guard_skill  # his rider's, defending the mount
        key = "combat_style" if defence == "parry" else key
    elif defence == "evade":
        dfd_skill = capped(rules, dfd, dfd.skills["evade"], situation, combat=False)
    elif defence == "parry":
        assert parry_arm is not None
        key = "unarmed" if parry_arm.kind == "unarmed" else "combat_style"
        dfd_skill = capped(rules, dfd, dfd.skills[key], situation)
    else:
        dfd_skill = 0
    fam_steps = 0  # the defender's unfamiliar parrying weapon ("defensive actions")
    defender_familiarity: str | None = circumstances["defender_familiarity"]
    if defender_familiarity is not None:
        dfd_skill, fam_steps = familiarity.for_parry(
            rules,
            defender_familiarity,
            defence,
            defence,
            arm_owner,
            dfd_skill,
            notes,
        )
    # Skills over 100: the excess of the highest comes off everyone. A defender who decides
    # only after seeing the attack imposes no penalty of his own (the retroactive-parry rule).
    contest = (
        (att_skill, dfd_skill)
        if defence in ("parry", "evade") and not parry_only_if_hit
        else (att_skill,)
    )
    penalty = contest_penalty(contest)
    if penalty:
        notes.append(f"skills over 100: −{penalty} to every participant")
    checks = rules.checks
    att_target = target(checks, att_skill, terms.grade, attacker_augment, penalty)
    if att_target.impossible:
        raise EngineError(f"the attack is {terms.grade.name}: no attempt is possible")
    att_luck = _luck(att, given["attacker_luck"])
    dfd_luck = _luck(payer, given["defender_luck"])
    if shared_roll is None:
        att_roll = roll_check(checks, dice, att_target, "1d100 attack", att_luck)
        if att_roll.rerolled_from is not None:
            att.luck_points -= 1
    else:
        att_roll = CheckResult(att_target, shared_roll, level_of(checks, shared_roll, att_target))

    if defence in ("parry", "evade") and parry_only_if_hit and not att_roll.level.succeeded:
        notes.append(f"{dfd.name} lets the missed attack go")
        defence = "none"
    dfd_roll: CheckResult | None = None
    dfd_json: JSON | None = None
    if defence in ("parry", "evade"):
        if guard_cost == 1:
            rounds.spend_reaction(state, payer, rules)
        else:
            riders.pay(rules, state, payer, guard_cost)
        dfd_grade = defence_grade(rules, situation, dfd, notes, key)
        if fam_steps:
            dfd_grade, dfd_skill = familiarity.floored(
                rules,
                arm_owner,
                dfd_skill,
                dfd_grade,
                fam_steps,
                notes,
                f"{arm_owner.name}'s parry: ",
            )
        dfd_target = target(
            checks,
            dfd_skill,
            dfd_grade,
            given["defender_augment"],
            penalty,
        )
        dfd_roll = roll_check(checks, dice, dfd_target, _DEFENCE_LABEL[defence], dfd_luck)
        if dfd_roll.rerolled_from is not None:
            payer.luck_points -= 1
        dfd_json = _check_json(dfd_roll, dfd_skill, dfd_grade.id)
        dfd_level = dfd_roll.level
        if defence == "evade":
            brace.lose(rules, dfd, "evading", notes)  # a dive or roll out of the way
            if evade_ends_prone(rules, dfd):
                add_condition(dfd, "prone")
                notes.append(f"{dfd.name} ends prone after evading")
    else:
        dfd_level = Level.named(rules.no_defence_level)
        if defence == "counterattack":
            notes.append(
                "counterattack: both sides count as failing to parry; the longer reach strikes first"
            )

    if odds_wanted:
        odds = odds_of_targets(
            rules,
            att_target,
            dfd_roll.target if dfd_roll else None,
            att_luck,
            dfd_luck,
            first_on_surprised,
        )
    hit_intended = True
    if circumstances["crowd"] != "none" and not att_roll.level.succeeded and att_roll.roll:
        without = level_of(
            checks,
            att_roll.roll,
            target(checks, att_skill, terms.grade_without_crowd, attacker_augment, penalty),
        )
        if without.succeeded:
            hit_intended = False
            notes.append("missed only because of the crowd: a bystander is struck instead")

    bonus = 0
    if first_on_surprised:
        bonus = rules.surprise_bonus_effects
    diff = differential(rules.differential, att_roll.level, dfd_level, bonus)
    if "surprised" in dfd_conditions:
        # Only the first attack on a surprised target earns the bonus effect.
        dfd_conditions["surprised"]["attacked"] = True

    seq = state.next_seq()
    token = f"x{seq}"
    pending = PendingExchange(
        token,
        attacker_id,  # att.id and dfd.id: a record is stored under its own id
        defender_id,
        arm.id,
        defence,
        parry_arm.id if parry_arm else None,
        _check_json(att_roll, att_skill, terms.grade.id),
        dfd_json,
        dfd_level.label,
        diff.to_json(),
        terms.band,
        terms.size_steps,
        terms.dm_steps,
        terms.damage_modifier,
        outreached(rules, arm, engaged),
        _ratio(terms.damage_factor),
        surprised,
        first_on_surprised,
        hit_intended,
        given["bystander"],
        given["mitigate_damage"].copy(),
        situation_json(situation),
        dict(dfd_conditions.get("warding", {}).get("locations", {})),
        notes,
        grapple,
        inside_reach(rules, arm, engaged),
    )
    # A choice made in advance is checked against the eligible effects only when it names
    # some: an empty one (or no winner) finishes without them.
    if diff.winner is not None and (effects is None or effects):
        winner_is_attacker = diff.winner == "attacker"
        taker = (
            Party(att, arm, att_roll.level)
            if winner_is_attacker
            else Party(dfd, parry_arm, dfd_level)
        )
        loser = (
            Party(dfd, parry_arm, dfd_level)
            if winner_is_attacker
            else Party(att, arm, att_roll.level)
        )
        eligible, refused = eligible_effects(rules, pending, diff.winner, taker, loser)
        pending.offer(taker.record.id, eligible, refused)
    if close and in_turns:  # settle closes nothing outside the turns phase
        rounds.settle(state, rules)  # ``att`` and ``dfd`` may be stale copies from here on
    if diff.winner is None or effects is not None:
        done = finish(rules, state, pending, effects or [], dice)
        if odds_wanted:
            done.result["odds"] = odds
        return done
    stored = pending.to_json()
    state.pending_kept()[token] = stored
    # summary(stored), written out: an exchange parked here has every key of SUMMARY_KEYS
    # (its winner was offered his effects above), each the very object ``stored`` holds; one
    # dict display is made at its size at once, without a membership test and a read a key.
    result: JSON = {
        "kind": "exchange",
        "status": "awaiting_effects",
        "token": token,
        "attacker": pending.attacker,
        "defender": pending.defender,
        "weapon": pending.weapon,
        "defence": pending.defence,
        "parry_weapon": pending.parry_weapon,
        "attack": pending.attack,
        "defence_roll": pending.defence_roll,
        "defence_level": pending.defence_level,
        "differential": pending.differential,
        "chooser": pending.chooser,
        "eligible": pending.eligible,
        "ineligible": pending.ineligible,
        "notes": pending.notes,
    }
    if odds_wanted:
        result["odds"] = odds
    return Resolution(result=result, state=state.data)


_UNRECORDED_UNLESS_SET = frozenset({"prepared_position"})
"""Situation fields recorded only when true: a situation recorded before they existed reads
back the same, and every record without them stays byte for byte what it was."""

_DEFAULT_SITUATION: JSON = Situation().model_dump(exclude=set(_UNRECORDED_UNLESS_SET))


def situation_json(situation: Situation) -> JSON:
    """``situation.model_dump()`` without the fields of ``_UNRECORDED_UNLESS_SET`` left false;
    a situation that sets nothing is the default's dump (with fresh containers), which costs a
    fraction of serialising it."""
    if situation.__pydantic_fields_set__:  # model_fields_set, without a property call
        if situation.prepared_position:
            return situation.model_dump()
        return situation.model_dump(exclude=set(_UNRECORDED_UNLESS_SET))
    return {**_DEFAULT_SITUATION, "attacker_situations": [], "defender_situations": [], "cover": {}}


def _end_ward(c: CombatantRecord, arm_id: str, notes: list[str]) -> None:
    """A warding weapon used to attack or actively parry stops warding."""
    ward = c.conditions.get("warding")
    if ward and ward.get("weapon") == arm_id:
        del c.conditions["warding"]
        notes.append(f"{c.name}'s {arm_id} no longer wards {', '.join(ward['locations'])}")


_DEFENCE_LABEL = {"parry": "1d100 parry", "evade": "1d100 evade"}
"""The dice label of each rolled defence."""


def _ratio(factor: Fraction) -> list[int]:
    """[numerator, denominator] of a damage factor (1 is by far the usual one)."""
    return [1, 1] if factor is ONE else [factor.numerator, factor.denominator]


def _luck(c: CombatantRecord, policy: str | None) -> Level | None:
    if policy is None or c.luck_points <= 0:
        return None
    return Level.named(policy)


def _check_json(result: CheckResult, skill: int, grade: str | None) -> JSON:
    out = result.to_json()
    out["skill"] = skill
    if grade is not None:
        out["grade"] = grade
    return out


SUMMARY_KEYS = (
    "token",
    "attacker",
    "defender",
    "weapon",
    "defence",
    "parry_weapon",
    "attack",
    "defence_roll",
    "defence_level",
    "differential",
    "chooser",
    "eligible",
    "ineligible",
    "notes",
)
"""What an exchange parked for the winner's choice shows of itself (in this order)."""


def summary(pending: JSON, keys: tuple[str, ...] = SUMMARY_KEYS) -> dict[str, Any]:
    """The ``keys`` of a parked exchange that it has, in order (see :data:`SUMMARY_KEYS`)."""
    out: dict[str, Any] = {}
    for k in keys:  # a loop, not a comprehension: no frame of its own
        if k in pending:
            out[k] = pending[k]
    return out
