"""Hit locations, armour and wounds: where a blow lands, what the armour stops, the wound level
it leaves and the Endurance tests that follow."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.checks import (
    CheckResult,
    Level,
    contest_penalty,
    level_of,
    opposed_winner,
    roll_check,
    target,
)
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.damage import expr_of
from arbiter.bridge.engine.combat_styles.core.view import Location, RulesView, WoundRule
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition
from arbiter.bridge.engine.contract import JSON
from arbiter.bridge.engine.dice import Dice


def roll_location(
    rules: RulesView, dice: Dice, mounted: bool = False, victim: CombatantRecord | None = None
) -> Location:
    """Roll the hit location on ``victim``'s body plan (the default one without a victim; the
    mounted die when a rider strikes a lower biped)."""
    plan = rules.body_plan(victim)
    expr = rules.mounted_location_die if mounted else plan.die
    total = dice.total(expr_of(expr))
    loc = plan.location_at.get(total)
    if loc is not None:
        return loc
    raise LookupError(f"no hit location covers {total} on {expr}")


def mitigate_damage(
    rules: RulesView, victim: CombatantRecord, after: int, hp_max: int, rule: WoundRule
) -> JSON | None:
    """Mitigate Damage: when ``rule`` is the luck rule's ``mitigate_from`` level and the victim
    has the Luck Points, spend them and raise the location's hit points to one short of that
    level. Returns what was done (None when nothing was)."""
    luck = rules.luck_mitigation
    if luck is None or rule.id != luck.from_level or victim.luck_points < luck.points:
        return None
    raised = after
    while wound_level(rules, raised, hp_max).id == luck.from_level and raised < hp_max:
        raised += 1
    if wound_level(rules, raised, hp_max).id != luck.to_level:
        return None
    victim.luck_points -= luck.points
    return {
        "luck_points_spent": luck.points,
        "from": luck.from_level,
        "to": luck.to_level,
        "hit_points": raised,
    }


def armor_points(victim: CombatantRecord, location: str, bypass: list[str]) -> tuple[int, int, int]:
    """(worn, natural, counted) armour points on ``location`` after Bypass Armor choices."""
    worn = victim.armor.get(location, 0)
    natural = victim.natural_armor.get(location, 0)
    counted = (0 if "worn" in bypass else worn) + (0 if "natural" in bypass else natural)
    return worn, natural, counted


def wound_level(rules: RulesView, hp_after: int, hp_max: int) -> WoundRule:
    """The most severe wound level a location at ``hp_after`` of ``hp_max`` has reached."""
    for rule in rules.wounds:
        if rule.reached(hp_after, hp_max):
            return rule
    return rules.wounds[-1]


def endurance_test(
    rules: RulesView,
    dice: Dice,
    victim: CombatantRecord,
    attack: JSON,
    auto_fail: bool = False,
) -> JSON:
    """The victim's Endurance against the successful attack roll (opposed).

    With an Endurance over 100 the excess comes off both sides, which may lower the level of the
    original attack (its recorded roll is re-read against the reduced skill).
    """
    if auto_fail:
        return {"skill": "endurance", "automatic_failure": True, "resisted": False}
    endurance = victim.skills["endurance"]
    penalty = contest_penalty([endurance, attack["skill"]])
    checks = rules.checks
    mine = roll_check(checks, dice, target(checks, endurance, None, 0, penalty), "1d100 endurance")
    their_target = target(checks, attack["target"], None, 0, penalty)
    theirs = CheckResult(
        their_target, attack["roll"], level_of(checks, attack["roll"], their_target)
    )
    if not penalty:
        theirs = CheckResult(their_target, attack["roll"], Level.named(attack["level"]))
    resisted = opposed_winner(mine, theirs) == 1
    out: JSON = {"skill": "endurance", **mine.to_json(), "resisted": resisted}
    if penalty:
        out["against_level"] = theirs.level.label
    return out


def apply_wound(
    rules: RulesView,
    dice: Dice,
    victim: CombatantRecord,
    location: Location,
    damage: int,
    attack: JSON,
    auto_fail_endurance: bool = False,
    mitigate: bool = False,
) -> JSON:
    """Take ``damage`` off ``location`` and apply the consequences the wound level's rule data
    gives: turns without attacking, prone, incapacitation, the Endurance test and its failure,
    unconsciousness and the death timer. A wound only acts when it is worse than the location's
    previous one (Endurance rolls are not repeated unless the location is wounded again).

    With ``mitigate`` the victim spends Luck Points (Mitigate Damage) on a wound of the luck
    rule's level: the location is left one hit point short of it, at the lesser level."""
    before = victim.hit_points[location.id]
    hp_max = victim.hit_points_max[location.id]
    after = before - damage
    rule = wound_level(rules, after, hp_max)
    mitigated = None
    if mitigate:
        mitigated = mitigate_damage(rules, victim, after, hp_max, rule)
        if mitigated is not None:
            after = mitigated["hit_points"]
            rule = wound_level(rules, after, hp_max)
    victim.hit_points[location.id] = after
    prior = victim.wounds.get(location.id)
    worsened = prior is None or rule.rank > rules.wound_rank[prior]
    if worsened:
        victim.wounds[location.id] = rule.id
    out: JSON = {"location": location.id, "damage": damage, "hit_points": after, "wound": rule.id}
    if mitigated is not None:
        out["luck_mitigated"] = mitigated
    if not worsened:
        return out
    consequences: list[str] = []
    if rule.no_attack_die is not None:
        turns = dice.total(expr_of(rule.no_attack_die))
        add_condition(victim, "cannot_attack", turns)
        out["no_attack_turns"] = turns
        consequences.append(f"cannot attack for {turns} turns")
    if rule.rank > 1:
        add_condition(victim, "seriously_wounded")
    if rule.incapacitated:
        add_condition(victim, "incapacitated")
        consequences.append("incapacitated")
    outcome = rule.limb if location.limb else rule.vital
    if outcome.prone:
        add_condition(victim, "prone")
        consequences.append("falls prone")
    if outcome.unconscious:
        add_condition(victim, "unconscious")
        consequences.append("unconscious")
    failed = False
    if outcome.endurance_test:
        test = endurance_test(rules, dice, victim, attack, auto_fail_endurance)
        out["endurance"] = test
        failed = not test["resisted"]
    if failed and outcome.on_failure == "limb_useless":
        useless = victim.conditions.setdefault("limb_useless", {"turns": None, "locations": []})
        useless["locations"].append(location.id)
        if location.leg:
            add_condition(victim, "prone")
            consequences.append("leg useless: falls prone")
        else:
            consequences.append("arm useless: drops what it holds")
    elif failed and outcome.on_failure == "unconscious":
        minutes = damage if outcome.unconscious_minutes_from_damage else None
        add_condition(victim, "unconscious", None, minutes=minutes)
        consequences.append(f"unconscious for {minutes} minutes" if minutes else "unconscious")
    elif failed and outcome.on_failure == "death":
        add_condition(victim, "dead")
        consequences.append("dead")
    if outcome.timer is not None and not (failed and outcome.on_failure == "death"):
        multiple, unit = outcome.timer
        limit = multiple * victim.healing_rate
        add_condition(
            victim, "dying", None, within=limit, unit=unit, wound=rule.id, location=location.id
        )
        consequences.append(f"dies unless treated within {limit} {unit}")
    out["consequences"] = consequences
    return out
