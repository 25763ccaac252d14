"""Reference tables for equipment, bodies and harm (see :mod:`.reference`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from arbiter.compiler.model.combat_styles.reference_format import assumed_notes, signed, table
from arbiter.compiler.model.common import ReferenceTable

if TYPE_CHECKING:
    from arbiter.compiler.model.combat_styles.model import CombatStylesRules


def equipment_tables(rules: CombatStylesRules) -> list[ReferenceTable]:
    """Size and reach, parry reduction, weapons, shields, ranged weapons, armour."""
    sizes = {s.id: s.name for s in rules.sizes}
    reaches = {r.id: r.name for r in rules.reaches}
    effects = {e.id: e.name for e in rules.special_effects}
    traits = {t.id: t.name for t in rules.weapon_traits}
    ladders = table(
        "size_and_reach",
        "Weapon Size and Reach",
        ("Step", "Size (and ranged Force)", "Reach"),
        [
            (
                i + 1,
                f"{s.name} ({s.abbreviation})" if s else "",
                f"{r.name} ({r.abbreviation})" if r else "",
            )
            for i, (s, r) in enumerate(
                _zip_longest(rules.size_ladder(), sorted(rules.reaches, key=lambda r: r.rank))
            )
        ],
        "Size decides how much of a blow a parry stops; Reach, whether a foe can be struck.",
    )
    parry = table(
        "parry_reduction",
        "Parry Damage Reduction",
        ("Parrying weapon or shield", "Damage that gets through"),
        [
            (row.label, _share(row.damage_taken.numerator, row.damage_taken.denominator))
            for row in rules.parry_reduction
        ],
        "Compare the parrying weapon's Size with the attacking weapon's Size (Force for missiles).",
        assumed_notes(rules.parry_reduction, "label"),
    )
    weapons = table(
        "weapons",
        "Close-Combat Weapons",
        ("Weapon", "Hands", "Damage", "Size", "Reach", "Special effects", "AP/HP", "ENC", "Traits"),
        [
            (
                w.name,
                "mounted" if w.mounted_only else w.hands,
                w.damage,
                sizes[w.size],
                reaches[w.reach],
                [effects[e] for e in w.effects],
                f"{w.ap}/{w.hp}" if w.ap is not None else None,
                w.enc,
                [traits[t] for t in w.traits],
            )
            for w in rules.weapons
        ],
        notes=assumed_notes(rules.weapons),
    )
    shields = table(
        "shields",
        "Shields",
        (
            "Shield",
            "Damage",
            "Size",
            "Reach",
            "Passive block (locations)",
            "Special effects",
            "AP/HP",
        ),
        [
            (
                s.name,
                s.damage,
                sizes[s.size],
                reaches[s.reach],
                s.passive_block,
                [effects[e] for e in s.effects],
                f"{s.ap}/{s.hp}",
            )
            for s in rules.shields
        ],
        "Only shields can parry ranged attacks. Crouching behind a shield doubles the locations it covers.",
        assumed_notes(rules.shields),
    )
    ranged = table(
        "ranged_weapons",
        "Ranged Weapons",
        (
            "Weapon",
            "Damage",
            "Damage Modifier",
            "Force",
            "Range (m)",
            "Load",
            "Impale size",
            "Special effects",
            "AP/HP",
        ),
        [
            (
                r.name,
                r.damage or "none (poison)",
                r.damage_modifier,
                sizes.get(r.force or ""),
                f"{r.range.close}/{r.range.effective}/{r.range.long}",
                r.load,
                sizes.get(r.impale_size or ""),
                [effects[e] for e in r.effects],
                f"{r.ap}/{r.hp}" if r.ap is not None else None,
            )
            for r in rules.ranged_weapons
        ],
        "Range: Close (Choose Location against a stationary or unaware target) / Effective / Long "
        f"(damage {rules.combat.ranged.long_range_damage}, Force {signed(rules.combat.ranged.long_range_force_steps)} step).",
        assumed_notes(rules.ranged_weapons),
    )
    divisor = rules.initiative.armor_penalty_divisor
    locations = len(rules.hit_locations)
    armor = table(
        "armor",
        "Armour",
        (
            "Armour",
            "Examples",
            "AP",
            "ENC per location",
            f"Initiative penalty, full suit ({locations} locations)",
        ),
        [
            (a.name, a.examples, a.ap, a.enc, rules.initiative.armor_penalty([a.enc] * locations))
            for a in rules.armor
        ],
        f"Initiative penalty = total ENC worn ÷ {divisor}, rounded up.",
        assumed_notes(rules.armor),
    )
    materials = table(
        "armor_materials",
        "Armour Materials",
        ("Material", "ENC multiplier"),
        [(m.name, m.enc_multiplier) for m in rules.armor_materials],
    )
    return [ladders, parry, weapons, shields, ranged, armor, materials]


def _zip_longest(a: list, b: list) -> list[tuple]:
    n = max(len(a), len(b))
    return [(a[i] if i < len(a) else None, b[i] if i < len(b) else None) for i in range(n)]


def _share(numerator: int, denominator: int) -> str:
    if numerator == 0:
        return "none (all blocked)"
    if numerator == denominator:
        return "all (nothing blocked)"
    return f"{numerator}/{denominator}, rounded up"


def body_tables(rules: CombatStylesRules) -> list[ReferenceTable]:
    """Hit locations, hit points, wounds, damage modifier, spirit damage."""
    names = {loc.id: loc.name for loc in rules.hit_locations}
    hp = rules.hit_points
    out = []
    for t in rules.hit_location_tables:
        out.append(
            table(
                f"hit_locations_{t.id}",
                t.name,
                (t.die, "Location", "Kind", "Hit points"),
                [
                    (
                        f"{r.range[0]}–{r.range[1]}" if r.range[0] != r.range[1] else r.range[0],
                        names[r.location],
                        rules.location(r.location).kind,
                        _hp_formula(
                            rules.location(r.location).hp_offset,
                            rules.location(r.location).hp_minimum,
                        ),
                    )
                    for r in t.rows
                ],
                f"{t.description} Base hit points = ({' + '.join(a.upper() for a in hp.attributes)}) ÷ {hp.divisor}, rounded {hp.rounding}.",
                assumed_notes(rules.hit_locations),
            )
        )
    totals = [(5 * k - 4, 5 * k) for k in range(1, 9)]
    out.append(
        table(
            "hit_points",
            "Hit Points per Location",
            ("Location", *(f"{lo}–{hi}" for lo, hi in totals)),
            [
                (
                    loc.name,
                    *(loc.hit_points(hp.value(_first_at(hp.attributes, hi))) for _, hi in totals),
                )
                for loc in rules.hit_locations
            ],
            f"By {' + '.join(a.upper() for a in hp.attributes)}; +1 per further {hp.divisor}.",
        )
    )
    out.append(
        table(
            "wound_levels",
            "Wound Levels",
            ("Wound", "When", "Effect", "Limb", "Head, chest or abdomen"),
            [
                (
                    w.name,
                    w.threshold.replace("_", " "),
                    w.description,
                    w.limb.description,
                    w.vital.description,
                )
                for w in sorted(rules.wound_levels, key=lambda w: w.rank)
            ],
            "Endurance tests are opposed against the original attack roll.",
        )
    )
    out.append(
        table(
            "damage_modifiers",
            "Damage Modifier",
            ("STR + SIZ", "Damage Modifier"),
            [(s.band, s.dice) for s in rules.damage_modifier_ladder()],
            "Each row is one step; a charge moves it up the ladder.",
            assumed_notes(rules.damage_modifiers, "band"),
        )
    )
    out.append(
        table(
            "spirit_damage",
            "Spirit Damage",
            ("Spirit-combat skill", "Damage to Magic Points"),
            [(s.skill, s.damage) for s in rules.spirit_damage],
            "Spectral Combat for spirits.",
            assumed_notes(rules.spirit_damage, "skill"),
        )
    )
    return out


def _hp_formula(offset: int, minimum: int) -> str:
    text = "base" if offset == 0 else f"base {signed(offset)}"
    return f"{text} (at least {minimum})" if offset < 0 else text


def _first_at(attributes: Sequence[str], total: int) -> dict[str, int]:
    """Stats with every attribute at 0 but the first, which is at ``total``."""
    stats = dict.fromkeys(attributes, 0)
    stats[attributes[0]] = total
    return stats
