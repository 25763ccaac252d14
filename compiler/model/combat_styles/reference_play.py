"""Reference tables for situations and the flow of a round (see :mod:`.reference`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arbiter.compiler.model.combat_styles.reference_format import assumed_notes, signed, table
from arbiter.compiler.model.common import ReferenceTable

if TYPE_CHECKING:
    from arbiter.compiler.model.combat_styles.model import CombatStylesRules


TRAIT_HANDLING = {
    "rules": "applied",
    "unlocks_effects": "unlocks special effects",
    "narrative": "GM's call",
}
"""How the roll server treats a style trait, as the journal says it."""


def _thrusting(rules: CombatStylesRules) -> str:
    """Which weapons count as thrusting under water, in words."""
    swim = rules.combat.swimming
    effects = {e.id: e.name for e in rules.special_effects}
    traits = {t.id: t.name for t in rules.weapon_traits}
    parts = [f"those that can {effects[e]}" for e in swim.thrusting_effects if e in effects]
    parts += [f"{traits[t]} weapons" for t in swim.thrusting_traits if t in traits]
    parts += [f"{k} attacks unaffected" for k in swim.unaffected_kinds]
    return "; ".join(parts) or "none listed"


def situation_tables(rules: CombatStylesRules) -> list[ReferenceTable]:
    """Situational modifiers, caps, impale, distance, knockback, charging, fatigue, other numbers."""
    grades = {g.id: g.name for g in rules.grades}
    out = []
    for context, title in (("close", "Close Combat"), ("ranged", "Ranged Combat")):
        mods = [m for m in rules.situational_modifiers if m.context == context]
        out.append(
            table(
                f"situational_{context}",
                f"{title} Situational Modifiers",
                ("Situation", "Grade", "Applies to", "Note"),
                [(m.name, grades[m.grade], m.applies_to, m.description) for m in mods],
                "When several apply, use only the most severe.",
                assumed_notes(mods),
            )
        )
    out.append(
        table(
            "skill_caps",
            "Skill Caps",
            ("Situation", "Combat skills capped by", "Note"),
            [
                (c.situation, c.capped_by.replace("_", " ").title(), c.description)
                for c in rules.skill_caps
            ],
        )
    )
    sizes = sorted(rules.sizes, key=lambda s: s.rank)
    results = grades | {"no_effect": "No effect", "incapacitated": "Incapacitated"}
    out.append(
        table(
            "impale_effects",
            "Impale Effects",
            ("Creature SIZ", *(f"{s.name} weapon" for s in sizes)),
            [
                (r.siz, *(results[r.by_weapon_size[s.id]] for s in sizes))
                for r in rules.impale_effects
            ],
            "Penalty on all the victim's skills while the weapon stays in the wound.",
            assumed_notes(rules.impale_effects, "siz"),
        )
    )
    dist = rules.distance_penalties
    out.append(
        table(
            "distance_penalties",
            "Distance Penalties",
            ("Distance (m)", *(f"SIZ {b}" for b in dist.siz_columns)),
            [(r.metres, *(signed(s) for s in r.steps)) for r in dist.rows],
            f"{dist.description} Grade steps: + harder, − easier. Beyond the table: "
            f"{signed(dist.beyond.steps)} per further {dist.beyond.every_metres} m.",
            [f"assumed — {dist.note}"] if dist.assumed else [],
        )
    )
    out.append(_numbers(rules))
    out.append(
        table(
            "fatigue_levels",
            "Fatigue Levels",
            ("Level", "Skills", "Movement", "Initiative", "Action Points", "Recovery"),
            [
                (
                    f.name,
                    "no activity" if f.no_activity else grades.get(f.skill_grade or ""),
                    signed(f.movement) + " m"
                    if isinstance(f.movement, int) and f.movement
                    else (f.movement or None),
                    signed(f.initiative) if f.initiative else None,
                    signed(f.action_points) if f.action_points else None,
                    _minutes(f.recovery_minutes),
                )
                for f in sorted(rules.fatigue_levels, key=lambda f: f.rank)
            ],
            "The skill grade is a floor, not extra steps. Recovery time is divided by Healing Rate.",
        )
    )
    return out


def _minutes(value: int | None) -> str | None:
    if value is None:
        return "never"
    if value == 0:
        return None
    if value % 60:
        return f"{value} min"
    return f"{value // 60} h"


def _body_rows(rules: CombatStylesRules) -> list[tuple[str, str]]:
    """Rows for encumbrance, fatigue checks, spirit combat and hands."""
    cb = rules.combat
    enc, fat, spirit, hands = cb.encumbrance, cb.fatigue_checks, cb.spirit_combat, cb.hands
    return [
        (
            "Encumbrance",
            "; ".join(
                f"ENC over {b.over_str_multiple}× STR: {signed(b.grade_steps)} grade(s), "
                f"movement {b.movement}"
                for b in enc.bands
            )
            + f" (skills: {', '.join(s.replace('_', ' ').title() for s in enc.skills)})",
        ),
        (
            "Fatigue check in combat",
            f"{fat.skill.title()} every "
            + "; ".join(f"{b.every_rounds} Rounds at CON {b.con}" for b in fat.bands)
            + f"; failure: {signed(-fat.levels_lost_on_failure)} fatigue level(s)",
        ),
        (
            "Spirit combat",
            "attacker's spirit-combat skill against the defender's "
            + " or ".join(s.replace("_", " ") for s in spirit.resist_with)
            + "; the winner rolls Spirit Damage for his skill against the loser's Magic Points; "
            f"at {spirit.defeated_at} Magic Points or less: {spirit.defeated_condition}",
        ),
        (
            "Hands",
            f"{', '.join(h.id for h in hands.hands)}; shields take {hands.shield_hands}, "
            f"missile weapons {hands.ranged_hands} unless listed; picking up a dropped weapon "
            f"takes {hands.pick_up_turns} Ready Weapon actions",
        ),
    ]


def _numbers(rules: CombatStylesRules) -> ReferenceTable:
    k, c, cb = rules.knockback, rules.charging, rules.combat
    grades = {g.id: g.name for g in rules.grades}
    rows = [
        ("Combat Round", f"{cb.round_seconds} seconds"),
        (
            "Knockback",
            f"damage over SIZ (before parry and armour): 1 m per {k.metres_per_points} points or "
            f"fraction over; avoid falling with "
            + " or ".join(f"{grades[f.grade]} {f.skill.title()}" for f in k.avoid_fall),
        ),
        (
            "Brace",
            f"SIZ {k.brace_siz_multiplier} against knockback and leaps, {k.brace_siz_multiplier_vs_bash} against Bash",
        ),
        (
            "Charging",
            f"at least {c.min_rounds_of_movement} Round of running; attack {signed(c.attack_grade_steps)} grade; "
            f"weapon Size {signed(c.weapon_size_steps)}; Damage Modifier {signed(c.damage_modifier_steps_biped)} "
            f"step (biped) or {signed(c.damage_modifier_steps_quadruped)} (four legs); first attack only",
        ),
        (
            "Surprise",
            f"Initiative {signed(cb.surprise.initiative_penalty)}; cannot defend before its Turn; first "
            f"successful attack gains {signed(cb.surprise.bonus_effects)} special effect; no offensive action this Round",
        ),
        (
            "Leaping attack",
            f"{cb.leaping_attack.attacker_skill.title()} against "
            + " or ".join(s.title() for s in cb.leaping_attack.defender_skills)
            + f"; targets up to {cb.leaping_attack.max_target_siz_multiple}× SIZ"
            + f" (braced: SIZ {cb.leaping_attack.brace_siz_multiplier})"
            + f"; against a quadruped {signed(cb.leaping_attack.grade_steps_vs_quadruped)} grade"
            + (
                f", which may use {cb.leaping_attack.quadruped_defender_skill.title()}"
                if cb.leaping_attack.quadruped_defender_skill
                else ""
            )
            + "; a won leap knocks the target prone",
        ),
        (
            "Outmaneuver",
            f"group opposed {cb.outmaneuver.skill.title()}, {cb.outmaneuver.ap_cost_each} AP from "
            "every participant; foes who fail to beat the roll cannot attack this Round",
        ),
        (
            "Sweep attack",
            "one attack roll for every target, each defends separately"
            if cb.sweep_attack.one_roll_for_all_targets
            else "one attack roll per target, each defends separately",
        ),
        (
            "Aerial combat",
            "opposed " + " or ".join(s.title() for s in cb.aerial.skills) + " at the start of "
            "each Round; the winner may attack",
        ),
        ("Evade", "the evader ends prone" if cb.evading.ends_prone else "the evader stays up"),
        (
            "Passive block",
            f"crouching multiplies the covered locations by {cb.passive_block.crouch_multiplier}",
        ),
        (
            "Blind strike through cover",
            f"{signed(cb.cover.blind_strike_grade_steps)} grade; no Choose Location",
        ),
        ("Pulled blow", f"damage {cb.pulled_blow.damage}"),
        (
            "Mounted attacker",
            f"location {cb.mounted.location_die}+{cb.mounted.location_add} against a lower biped",
        ),
        (
            "Mounted rider",
            f"combat skills capped by {cb.mounted.skill_cap.title()}"
            + f"; defends his mount for {cb.mounted.defend_mount_ap_cost} AP; a "
            f"{cb.mounted.knockback_adds_mount_siz_on.title()} roll adds the mount's SIZ against "
            "knockback; a braced weapon "
            + ("can" if cb.mounted.braced_weapon_can_parry else "cannot")
            + " parry"
            + (
                "; withdraws freely on a faster mount"
                if cb.mounted.withdraw_freely_if_faster
                else ""
            )
            + ("; evading leaves the saddle" if cb.evading.mounted_leaves_saddle else ""),
        ),
        (
            "Swimming",
            f"only thrusting weapons ({_thrusting(rules)}), damage {cb.swimming.thrusting_damage}",
        ),
        (
            "Inside a longer weapon's reach",
            f"it cannot parry; its damage is capped at {cb.reach.inside_reach_damage_cap}",
        ),
        (
            "Unfamiliar weapon",
            f"similar {signed(cb.familiarity.similar)}, broadly similar {signed(cb.familiarity.broadly_similar)}, "
            f"reasonably different {signed(cb.familiarity.reasonably_different)} grades; substantially "
            "different: base skill (STR+DEX)",
        ),
        (
            "Firing into a crowd",
            f"at least {grades[cb.ranged.crowd_edge_grade]} at its edge, "
            f"{grades[cb.ranged.crowd_through_grade]} through it",
        ),
        ("Aiming", f"{cb.ranged.aim_rounds} full Round eases one situational grade"),
        ("Grapple", f"a held head or torso makes every skill {grades[cb.grapple.body_grade]}"),
        *_body_rows(rules),
    ]
    notes = [
        f"{name.replace('_', ' ')}: assumed — {part.note}"
        for name, part in cb
        if getattr(part, "assumed", False)
    ]
    return table("combat_numbers", "Other Combat Numbers", ("Rule", "Numbers"), rows, notes=notes)


def round_tables(rules: CombatStylesRules) -> list[ReferenceTable]:
    """Actions, action points and initiative, combat styles and traits."""
    everything = {
        **{w.id: w.name for w in rules.weapons},
        **{s.id: s.name for s in rules.shields},
        **{r.id: r.name for r in rules.ranged_weapons},
    }
    ap, ini = rules.action_points, rules.initiative
    return [
        table(
            "actions",
            "Combat Actions",
            ("Action", "Kind", "AP", "Only when", "What it does"),
            [
                (a.name, a.kind, a.ap_cost, a.requires, a.description)
                for kind in ("proactive", "reactive", "free")
                for a in rules.actions
                if a.kind == kind
            ],
            "Proactive: on your own Turn, one per Cycle. Reactive: one per threat. Free: any time.",
        ),
        table(
            "action_points_and_initiative",
            "Action Points and Initiative",
            ("Rule", "Value"),
            [
                ("Action Points", f"{ap.default} per Combat Round ({ap.method})"),
                (
                    "Optional table",
                    "; ".join(
                        f"{' + '.join(a.upper() for a in ap.table_attributes)} {b.band}: {b.points}"
                        for b in ap.table
                    )
                    + f"; +1 per further {ap.table_beyond_every}",
                ),
                ("Initiative", f"{ini.die} + Initiative Bonus − armour penalty − fatigue"),
                ("Initiative Bonus", ini.bonus.description),
                ("Armour penalty", f"total ENC worn ÷ {ini.armor_penalty_divisor}, rounded up"),
                ("Ties", ini.tie_break.replace("_", " ")),
            ],
            notes=[
                f"{x}: assumed — {p.note}"
                for x, p in (
                    ("Action Points", ap),
                    ("Initiative", ini),
                    ("Initiative Bonus", ini.bonus),
                )
                if p.assumed
            ],
        ),
        table(
            "combat_styles",
            "Sample Combat Styles",
            ("Style", "Weapons", "Bundled weapons covered", "Note"),
            [
                (
                    s.name,
                    [w.name for w in s.weapons],
                    sorted({everything[i] for w in s.weapons for i in w.covers}),
                    s.description,
                )
                for s in rules.combat_styles
            ],
            notes=assumed_notes(rules.combat_styles),
        ),
        table(
            "style_traits",
            "Combat Style Traits",
            ("Trait", "Group only", "Benefit", "Arbiter"),
            [
                (t.name, t.group_only, t.description, TRAIT_HANDLING[t.effect])
                for t in rules.style_traits
            ],
            "Group only: everyone in the group must have the trait. Arbiter: whether the roll "
            "server applies the benefit, it unlocks special effects, or the GM judges it.",
            assumed_notes(rules.style_traits),
        ),
        table(
            "weapon_traits",
            "Weapon Traits",
            ("Trait", "Meaning", "Arbiter"),
            [(t.name, t.description, TRAIT_HANDLING[t.effect]) for t in rules.weapon_traits],
            "Arbiter: whether the roll server applies the trait or the GM judges it.",
        ),
    ]
