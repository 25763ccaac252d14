"""What a combatant's style traits and a weapon's traits change, read from the trait data
(``style_traits.toml`` ``rules``, ``weapon_traits.toml`` ``rules``). Traits marked
``narrative`` are carried on the combatant and change nothing here."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.damage import normalize_modifier, size_step
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import Arm, RulesView


def _held(rules: RulesView, c: CombatantRecord) -> Iterator[tuple[str, Any]]:
    """(trait id, its rules) for each of ``c``'s traits the engine applies."""
    for trait in c.traits:
        applied = rules.style_traits.get(trait)
        if applied is not None:
            yield trait, applied


def evade_ends_prone(rules: RulesView, c: CombatantRecord) -> bool:
    """Whether evading leaves ``c`` prone: a trait's ``evade_ends_prone`` (Daredevil: no),
    else the evading rule."""
    for _, r in _held(rules, c) if c.traits else ():
        if r.evade_ends_prone is not None:
            return bool(r.evade_ends_prone)
    return rules.evade_ends_prone


def lifts_cap(rules: RulesView, c: CombatantRecord, cap: str) -> str | None:
    """The trait that frees ``c`` from the skill cap ``cap`` (Water Combat: swimming), if any."""
    for trait, r in _held(rules, c):
        if cap in r.lifts_skill_caps:
            return trait
    return None


def eased_grade(rules: RulesView, c: CombatantRecord, situation: str, grade: str) -> str:
    """The grade ``situation`` imposes on ``c``: eased by the steps of a trait that eases it
    (Blind Fighting: darkness and blindness one grade less severe), never past Standard."""
    if not c.traits:
        return grade  # the common case, kept cheap: no trait, nothing eased
    steps = max(
        (r.eased_steps for _, r in _held(rules, c) if situation in r.eases_situations), default=0
    )
    if not steps:
        return grade
    checks = rules.checks
    shifted = checks.shifted(checks.grade(grade), -steps)
    standard = checks.grade(checks.standard)
    return grade if shifted.rank < standard.rank else shifted.id


def charge_grade_steps(
    rules: RulesView, c: CombatantRecord, mounted: bool
) -> tuple[int, str | None]:
    """Grade steps of ``c``'s charge and the trait that set them (Beast-back Lancer: none from
    a mount), else the charging rule's ``attack_grade_steps``."""
    if mounted:
        for trait, r in _held(rules, c):
            if r.mounted_charge_grade_steps is not None:
                return int(r.mounted_charge_grade_steps), trait
    return rules.charge.attack_grade_steps, None


def _dm_rank(rules: RulesView, modifier: str) -> int | None:
    try:
        return rules.dm_ladder.index(normalize_modifier(modifier))
    except ValueError:
        return None


def parry_size(
    rules: RulesView,
    state: EncounterState,
    parrier: CombatantRecord,
    attacker: CombatantRecord,
    arm: Arm,
) -> tuple[str, list[str]]:
    """The Size ``parrier``'s ``arm`` counts as when parrying ``attacker``, and the traits that
    changed it: Unarmed Prowess (unarmed parries count as Medium), Batter Aside (one larger
    when his Damage Modifier is two steps above the attacker's), Defensive Minded (one larger
    in a Round he has not attacked)."""
    size = arm.size or rules.sizes[0]
    why: list[str] = []
    if not parrier.traits:
        return size, why
    rank = rules.sizes.index
    for trait, r in _held(rules, parrier):
        prowess = r.unarmed_parry_size if arm.kind == "unarmed" else None
        if prowess is not None and rank(prowess) > rank(size):
            size = prowess
            why.append(trait)
        if not r.parry_size_steps:
            continue
        when = r.parry_size_when
        if when == "damage_modifier_steps_above_attacker":
            mine = _dm_rank(rules, parrier.damage_modifier)
            theirs = _dm_rank(rules, attacker.damage_modifier)
            if mine is None or theirs is None or mine - theirs < r.damage_modifier_steps:
                continue
        elif when == "not_attacked_this_round" and parrier.attacked_round == state.round:
            continue
        size = size_step(rules.sizes, size, r.parry_size_steps)
        why.append(trait)
    return size, why


def stun_unit(rules: RulesView, taker: CombatantRecord, surprised: bool) -> str | None:
    """The unit a stun lasts instead of Turns: a trait's ``stun_unit_on_surprised`` (Knockout
    Blow: minutes) when the victim was surprised by the attack."""
    if not surprised:
        return None
    for _, r in _held(rules, taker):
        if r.stun_unit_on_surprised is not None:
            return str(r.stun_unit_on_surprised)
    return None


def withdraw_share(rules: RulesView, arm: Arm, default: Fraction | None) -> Fraction | None:
    """Share of the damage roll an impaling ``arm`` deals when pulled free: the largest a trait
    of the weapon sets (Barbed: all of it), else ``default`` (the Impale effect's)."""
    shares = [rules.withdraw_shares[t] for t in arm.traits if t in rules.withdraw_shares]
    return max(shares) if shares else default
