"""Reference tables for the GM's journal: one readable table per concern, in reading order.

Cells are plain text; assumed entries are listed in each table's notes with their reason.
Equipment and bodies are in :mod:`.reference_more`, situations and rounds in
:mod:`.reference_play`, cell formatting in :mod:`.reference_format`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arbiter.compiler.model.combat_styles.effects import SpecialEffect
from arbiter.compiler.model.combat_styles.reference_format import assumed_notes, table
from arbiter.compiler.model.combat_styles.reference_more import body_tables, equipment_tables
from arbiter.compiler.model.combat_styles.reference_play import round_tables, situation_tables
from arbiter.compiler.model.combat_styles.spirit_effects import SpiritEffect
from arbiter.compiler.model.common import ReferenceTable

if TYPE_CHECKING:
    from arbiter.compiler.model.combat_styles.model import CombatStylesRules

LEVEL_ORDER = ("critical", "success", "failure", "fumble")


def reference_tables(rules: CombatStylesRules) -> list[ReferenceTable]:
    """Every reference table of the ruleset, in reading order."""
    return [
        _grades(rules),
        _success_levels(rules),
        _differential(rules),
        _special_effects(rules),
        _spirit_effects(rules),
        *equipment_tables(rules),
        *body_tables(rules),
        *situation_tables(rules),
        *round_tables(rules),
    ]


def _grades(rules: CombatStylesRules) -> ReferenceTable:
    rows = []
    for g in rules.grade_ladder():
        if g.outcome == "automatic":
            effect = "no roll: succeeds"
        elif g.outcome == "impossible":
            effect = "no attempt possible"
        else:
            effect = f"skill {g.multiplier}"
        rows.append((g.name, effect, g.description))
    return table(
        "grades",
        "Difficulty Grades",
        ("Grade", "Skill", "Meaning"),
        rows,
        "Fractions round up. When several penalties apply, only the most severe grade counts.",
        assumed_notes(rules.grades),
    )


def _success_levels(rules: CombatStylesRules) -> ReferenceTable:
    c = rules.checks
    rows = [
        (lvl.name, lvl.description) for lvl in sorted(rules.success_levels, key=lambda s: -s.rank)
    ]
    rows += [
        (
            "Critical range",
            f"roll ≤ modified skill ÷ {c.critical_divisor}, rounded up (at least {c.critical_minimum})",
        ),
        (
            "Fumble",
            f"rolls {', '.join(_face(r) for r in c.fumble_rolls)}; over 100%: {', '.join(_face(r) for r in c.fumble_rolls_over_100)}",
        ),
        ("Always succeeds", f"01–{c.automatic_success_max:02d}"),
        ("Always fails", f"{c.automatic_failure_min}–00"),
        (
            "Augment",
            f"add {c.augment.numerator * 100 // c.augment.denominator}% of the augmenting skill",
        ),
        ("Skills over 100%", "every participant subtracts (highest skill − 100)"),
    ]
    return table(
        "success_levels",
        "Success Levels",
        ("Level or rule", "Meaning"),
        rows,
        c.description,
        [f"assumed — {c.note}"] if c.assumed else (),
    )


def _face(roll: int) -> str:
    return "00" if roll == 100 else f"{roll:02d}"


def _differential(rules: CombatStylesRules) -> ReferenceTable:
    names = {lvl.id: lvl.name for lvl in rules.success_levels}
    order = [lvl for lvl in LEVEL_ORDER if lvl in names] + sorted(set(names) - set(LEVEL_ORDER))
    rows = []
    for p in order:
        row = [names[p]]
        for a in order:
            n = rules.differential.effects(p, a)
            row.append(f"protagonist {n}" if n > 0 else f"antagonist {-n}" if n < 0 else "none")
        rows.append(row)
    return table(
        "differential",
        "Differential Roll Results",
        ("Protagonist \\ Antagonist", *(names[a] for a in order)),
        rows,
        "Special effects won by each side. A defender who does not parry counts as a "
        f"{names[rules.differential.no_defence_level]}. "
        f"Surprise: +{rules.combat.surprise.bonus_effects} for the first successful attack.",
    )


def arbiter_handling(effect: SpecialEffect) -> str:
    """How the roll server treats ``effect``, as the journal says it."""
    if effect.narrative and effect.mechanic is not None:
        # Narrative, yet the blow still follows its mechanic (Circumvent Cover ignores cover).
        return f"GM's call (recorded); still applied as {effect.mechanic.replace('_', ' ')}"
    if effect.narrative:
        return "GM's call (recorded)"
    if effect.mechanic == "generic":
        return "applied (resisted, or a condition)"
    if effect.mechanic != effect.id and effect.mechanic is not None:
        return f"applied as {effect.mechanic.replace('_', ' ')}"
    return "applied"


def _roll_parts(own_roll: str | None, opponent_roll: str | None) -> list[str]:
    """The roll requirements every kind of special effect shares, as phrases."""
    parts = []
    if own_roll:
        parts.append(f"{own_roll} only")
    if opponent_roll:
        parts.append(f"opponent {opponent_roll}s")
    return parts


def requirement_text(effect: SpecialEffect) -> str:
    """The effect's requirements as a short phrase."""
    r = effect.requires
    parts = _roll_parts(r.own_roll, r.opponent_roll)
    if r.ranged_own_roll:
        waived = f" unless {', '.join(c.replace('_', ' ') for c in r.ranged_roll_waived_when)}"
        parts.append(
            f"ranged: {r.ranged_own_roll} only{waived if r.ranged_roll_waived_when else ''}"
        )
    if r.weapon_lists_effect:
        parts.append("a weapon that lists it")
    if r.weapon_kinds:
        parts.append(" or ".join(r.weapon_kinds) + " weapon")
    if r.opponent_weapon_kinds:
        parts.append("opponent uses a " + " or ".join(r.opponent_weapon_kinds))
    if r.max_weapon_size:
        parts.append(f"weapon size ≤ {r.max_weapon_size}")
    if r.style_trait:
        parts.append(f"style trait {r.style_trait.replace('_', ' ')}")
    if r.blow_wounds:
        parts.append("the blow must wound")
    for cond in (*r.taker_conditions, *r.target_conditions):
        parts.append(cond.replace("_", " "))
    return "; ".join(parts)


def _special_effects(rules: CombatStylesRules) -> ReferenceTable:
    rows = []
    for e in sorted(rules.special_effects, key=lambda e: e.name):
        resist = (
            ", ".join(s.replace("_", " ") for s in e.resisted_by.skills) if e.resisted_by else ""
        )
        if e.resisted_by and e.resisted_by.with_shield:
            shield = ", ".join(s.replace("_", " ") for s in e.resisted_by.with_shield)
            resist += f" (or {shield} if using a shield)"
        rows.append(
            (
                e.name,
                e.taker,
                requirement_text(e),
                e.stackable,
                resist,
                e.description,
                arbiter_handling(e),
            )
        )
    return table(
        "special_effects",
        "Special Effects",
        ("Effect", "Taken by", "Requires", "Stacks", "Resisted with", "Effect in play", "Arbiter"),
        rows,
        "Chosen by the winner of a differential roll before damage and hit location are rolled. "
        "Arbiter: whether the roll server applies the effect (and as which effect of the rules, "
        "when it is a house copy) or records it for the GM to judge.",
        assumed_notes(rules.special_effects),
    )


def spirit_requirement_text(effect: SpiritEffect) -> str:
    """A spirit effect's requirements as a short phrase."""
    r = effect.requires
    parts = _roll_parts(r.own_roll, r.opponent_roll)
    if r.taker_nature:
        parts.append(f"{r.taker_nature}s only")
    if r.opponent_nature:
        parts.append(f"against a {r.opponent_nature}")
    if r.taker_free_of:
        parts.append("not if " + " or ".join(c.replace("_", " ") for c in r.taker_free_of))
    return "; ".join(parts)


def spirit_arbiter_handling(effect: SpiritEffect) -> str:
    """How the roll server treats a spirit effect, as the journal says it."""
    if effect.narrative or effect.mechanic is None:
        return "GM's call (recorded)"
    if effect.mechanic != effect.id:
        return f"applied as {effect.mechanic.replace('_', ' ')}"
    return "applied"


def _spirit_effects(rules: CombatStylesRules) -> ReferenceTable:
    rows = [
        (
            e.name,
            e.taker,
            spirit_requirement_text(e),
            e.stackable,
            e.description,
            spirit_arbiter_handling(e),
        )
        for e in sorted(rules.spirit_effects, key=lambda e: e.name)
    ]
    return table(
        "spirit_effects",
        "Spirit Combat Special Effects",
        ("Effect", "Taken by", "Requires", "Stacks", "Effect in play", "Arbiter"),
        rows,
        "Chosen by the winner of a spirit-combat exchange before the Spirit Damage is rolled. "
        "Arbiter: whether the roll server applies the effect or records it for the GM to judge.",
        assumed_notes(rules.spirit_effects),
    )
