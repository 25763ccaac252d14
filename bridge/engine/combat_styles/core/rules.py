"""Build the engine's :class:`RulesView` from the validated combat-styles model (once per model)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from arbiter.bridge.engine.combat_styles.core.checks import CheckRules, Grade, Level
from arbiter.bridge.engine.combat_styles.core.damage import normalize_modifier
from arbiter.bridge.engine.combat_styles.core.differential import DifferentialTable
from arbiter.bridge.engine.combat_styles.core.view import (
    Arm,
    BodyPlan,
    Charge,
    Fatigue,
    Knockback,
    Location,
    LuckMitigation,
    RulesView,
    WoundOutcome,
    WoundRule,
)

_CACHE: dict[int, tuple[Any, RulesView]] = {}
_KEEP = 16
"""Views kept: the served rules, a reload's and a few house overlays'."""
_NEWEST: list[int] = [0]
"""The key last put or moved to the end of :data:`_CACHE` (its most recently used view):
asking whether a hit is the newest without ``next(reversed(_CACHE))``, two Python calls on
every request. Only :func:`view_of` changes :data:`_CACHE`, so the two stay in step."""


def view_of(model: Any) -> RulesView:
    """The engine's view of ``model`` (cached: the model is immutable).

    The same model always gets the same view (and so the same memos) while it is among the
    last ``_KEEP`` models asked for: the least recently used one is dropped, never the whole
    cache, so a process that meets many rule models (a test run, overlays) does not lose the
    view of the rules it is serving.
    """
    key = id(model)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is model:
        if _NEWEST[0] != key:
            _CACHE[key] = _CACHE.pop(key)  # now the most recently used
            _NEWEST[0] = key
        return hit[1]
    view = build(model)
    _CACHE.pop(key, None)  # a dead model whose id was reused
    if len(_CACHE) >= _KEEP:
        del _CACHE[next(iter(_CACHE))]
    _CACHE[key] = (model, view)
    _NEWEST[0] = key
    return view


def _frac(f: Any) -> Fraction:
    return Fraction(f.numerator, f.denominator)


def _checks(model: Any) -> CheckRules:
    c = model.checks
    grades = tuple(
        Grade(
            id=g.id,
            name=g.name,
            numerator=g.multiplier.numerator if g.multiplier else 1,
            denominator=g.multiplier.denominator if g.multiplier else 1,
            rank=g.step,
            automatic=g.outcome == "automatic",
            impossible=g.outcome == "impossible",
        )
        for g in sorted(model.grades, key=lambda g: g.step)
    )
    return CheckRules(
        grades=grades,
        standard="standard",
        critical_divisor=c.critical_divisor,
        auto_success_max=c.automatic_success_max,
        auto_failure_min=c.automatic_failure_min,
        fumble_rolls=tuple(c.fumble_rolls),
        fumble_rolls_over_100=tuple(c.fumble_rolls_over_100),
        augment_share=_frac(c.augment),
    )


def _arms(model: Any) -> dict[str, Arm]:
    arms: dict[str, Arm] = {}
    for w in model.weapons:
        arms[w.id] = Arm(
            id=w.id,
            name=w.name,
            kind=w.kind,
            damage=w.damage,
            size=w.size,
            reach=w.reach,
            effects=frozenset(w.effects),
            traits=frozenset(w.traits),
            ap=w.ap or 0,
            hp=w.hp or 0,
            parries_ranged=False,
        )
    for s in model.shields:
        arms[s.id] = Arm(
            id=s.id,
            name=s.name,
            kind="shield",
            damage=s.damage,
            size=s.size,
            reach=s.reach,
            effects=frozenset(s.effects),
            traits=frozenset(),
            ap=s.ap,
            hp=s.hp,
            passive_block=s.passive_block,
            parries_ranged=s.parries_ranged,
        )
    for r in model.ranged_weapons:
        arms[r.id] = Arm(
            id=r.id,
            name=r.name,
            kind=r.kind,
            damage=r.damage,
            size=r.force,
            reach=None,
            effects=frozenset(r.effects),
            traits=frozenset(),
            ap=r.ap or 0,
            hp=r.hp or 0,
            damage_modifier=r.damage_modifier,
            ranges=(r.range.close, r.range.effective, r.range.long),
            load=r.load,
            impale_size=r.impale_size,
        )
    return arms


def _outcome(o: Any) -> WoundOutcome:
    timer = o.dies_unless_treated
    return WoundOutcome(
        prone=o.prone,
        endurance_test=o.endurance_test,
        on_failure=o.on_failure,
        unconscious_minutes_from_damage=o.unconscious_minutes == "damage",
        unconscious=o.unconscious,
        timer=(timer.multiple, timer.unit) if timer else None,
    )


def _body_plans(model: Any) -> dict[str, BodyPlan]:
    """Every hit-location table as a body plan."""
    locs = {loc.id: loc for loc in model.hit_locations}
    plans = {}
    for table in model.hit_location_tables:
        locations = tuple(
            Location(
                id=row.location,
                name=locs[row.location].name,
                low=row.range[0],
                high=row.range[1],
                limb=locs[row.location].kind == "limb",
                hp_offset=locs[row.location].hp_offset,
                hp_minimum=locs[row.location].hp_minimum,
                leg=locs[row.location].limb == "leg",
                adjacent=tuple(locs[row.location].adjacent),
            )
            for row in table.rows
        )
        plans[table.id] = BodyPlan(table.id, table.die, locations)
    return plans


def build(model: Any) -> RulesView:
    """Read every number the engine uses out of the model."""
    sizes = tuple(s.id for s in sorted(model.sizes, key=lambda s: s.rank))
    reaches = tuple(r.id for r in sorted(model.reaches, key=lambda r: r.rank))
    blocked = []
    for k in range(len(sizes)):
        row = next(r for r in model.parry_reduction if r.covers(k))
        blocked.append(1 - _frac(row.damage_taken))
    plans = _body_plans(model)
    default_plan = plans[model.combat.body_plan]
    combat = model.combat
    ladder = model.damage_modifier_ladder()
    fam = combat.familiarity
    cells = {
        (Level.named(c.protagonist), Level.named(c.antagonist)): c.effects
        for c in model.differential.cells
    }
    wounds = tuple(
        WoundRule(
            id=w.id,
            rank=w.rank,
            threshold=w.threshold,
            no_attack_die=w.no_attack_turns,
            incapacitated=w.incapacitated,
            limb=_outcome(w.limb),
            vital=_outcome(w.vital),
        )
        for w in sorted(model.wound_levels, key=lambda w: -w.rank)
    )
    kb = model.knockback
    ch = model.charging
    return RulesView(
        checks=_checks(model),
        differential=DifferentialTable(cells),
        no_defence_level=model.differential.no_defence_level,
        effects={e.id: e for e in model.special_effects},
        arms=_arms(model),
        unarmed_id=combat.unarmed_weapon,
        sizes=sizes,
        reaches=reaches,
        parry_reductions=tuple(blocked),
        locations=default_plan.locations,
        location_die=default_plan.die,
        body_plans=plans,
        only_shields_parry_ranged=combat.ranged.only_shields_parry,
        charge_receiving_traits=frozenset(
            t.id for t in model.weapon_traits if t.effect == "rules" and t.rules.receives_charge
        ),
        follow_ups={
            e.params.follow_up.action: (e.id, e.params.follow_up)
            for e in model.special_effects
            if e.params.follow_up is not None
        },
        luck_mitigation=LuckMitigation(
            combat.luck.mitigate_from, combat.luck.mitigate_to, combat.luck.points_per_use
        ),
        default_body_plan=default_plan.id,
        mounted_location_die=f"{combat.mounted.location_die}+{combat.mounted.location_add}",
        model=model,
        wounds=wounds,
        armors={a.id: (a.ap, a.enc) for a in model.armor},
        armor_penalty_divisor=model.initiative.armor_penalty_divisor,
        dm_bands=tuple((s.band.min, s.band.max, s.dice) for s in ladder),
        dm_ladder=tuple(normalize_modifier(s.dice) for s in ladder),
        knockback=Knockback(
            per_metre=kb.metres_per_points,
            avoid_fall=tuple((a.skill, a.grade) for a in kb.avoid_fall),
            brace_multiplier=_frac(kb.brace_siz_multiplier),
        ),
        charge=Charge(
            attack_grade_steps=ch.attack_grade_steps,
            dm_steps_biped=ch.damage_modifier_steps_biped,
            dm_steps_quadruped=ch.damage_modifier_steps_quadruped,
            size_steps=ch.weapon_size_steps,
        ),
        surprise_initiative=-abs(combat.surprise.initiative_penalty),
        surprise_bonus_effects=combat.surprise.bonus_effects,
        long_range_damage=_frac(combat.ranged.long_range_damage),
        long_range_force_steps=combat.ranged.long_range_force_steps,
        pulled_blow_damage=_frac(combat.pulled_blow.damage),
        swimming_damage=_frac(combat.swimming.thrusting_damage),
        swim_thrusting_effects=frozenset(combat.swimming.thrusting_effects),
        swim_thrusting_traits=frozenset(combat.swimming.thrusting_traits),
        swim_unaffected_kinds=frozenset(combat.swimming.unaffected_kinds),
        blind_strike_grade_steps=combat.cover.blind_strike_grade_steps,
        crouch_multiplier=combat.passive_block.crouch_multiplier,
        brace_vs_bash=_frac(kb.brace_siz_multiplier_vs_bash),
        fatigue=tuple(
            Fatigue(f.id, f.skill_grade, f.initiative, f.action_points, f.no_activity)
            for f in sorted(model.fatigue_levels, key=lambda f: f.rank)
        ),
        evade_ends_prone=combat.evading.ends_prone,
        grapple_body_grade=combat.grapple.body_grade,
        condition_situations=tuple(
            (s.while_condition, s.id)
            for s in model.situational_modifiers
            if s.while_condition and s.context == "close"
        ),
        ranged_condition_situations=tuple(
            (s.while_condition, s.id)
            for s in model.situational_modifiers
            if s.while_condition and s.context == "ranged"
        ),
        prepared_position={
            s.id: (
                frozenset(s.negated_from_prepared_position.weapons),
                frozenset(s.negated_from_prepared_position.kinds),
            )
            for s in model.situational_modifiers
            if s.negated_from_prepared_position is not None
        },
        checks_ids=frozenset(g.id for g in model.grades),
        inside_reach_can_parry=combat.reach.inside_reach_can_parry,
        inside_reach_damage_cap=combat.reach.inside_reach_damage_cap,
        inside_reach_size_drop_per_step=combat.reach.inside_reach_size_drop_per_step,
        ward_weapon_locations=combat.passive_block.weapon_locations,
        choose_location_bypasses_ward=combat.passive_block.choose_location_bypasses,
        default_action=combat.default_action,
        situations={s.id: s.grade for s in model.situational_modifiers},
        crowd_grades={
            "edge": combat.ranged.crowd_edge_grade,
            "through": combat.ranged.crowd_through_grade,
        },
        with_trained_weapon_steps=fam.with_trained_weapon,
        familiarity={
            "similar": fam.similar,
            "broadly_similar": fam.broadly_similar,
            "reasonably_different": fam.reasonably_different,
            "substantially_different": None,
        },
        actions={a.id: (a.kind, a.ap_cost) for a in model.actions},
        style_trait_ids=frozenset(t.id for t in model.style_traits),
        style_traits={t.id: t.rules for t in model.style_traits if t.effect == "rules"},
        withdraw_shares={
            t.id: _frac(t.rules.withdraw_damage)
            for t in model.weapon_traits
            if t.effect == "rules" and t.rules.withdraw_damage is not None
        },
        effect_conditions=combat.effect_conditions.model_dump(),
    )
