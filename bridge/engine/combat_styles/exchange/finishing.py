"""The exchange, second half: the winner's effects, damage, location, parry reduction, armour,
wound level, Endurance tests and knockback (in the order the rules give)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.core.checks import Level, ceil_div
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.damage import (
    ParryBlock,
    parry_block,
    size_step,
)
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.memo import memo_of, recalled
from arbiter.bridge.engine.combat_styles.core.traits import parry_size
from arbiter.bridge.engine.combat_styles.core.view import Arm, Location, RulesView
from arbiter.bridge.engine.combat_styles.effects import special_effects
from arbiter.bridge.engine.combat_styles.effects.effect_rolls import counter_prepared, stay_on_feet
from arbiter.bridge.engine.combat_styles.encounter import brace
from arbiter.bridge.engine.combat_styles.encounter.blows import (
    Blow,
    Finisher,
    apply_armor,
    roll_damage,
    strike_bystander,
    strike_weapon,
    wound_blow,
)
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition, combatant
from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import PendingExchange
from arbiter.bridge.engine.combat_styles.encounter.wounds import roll_location
from arbiter.bridge.engine.combat_styles.riding import riders
from arbiter.bridge.engine.combat_styles.riding.astride import displace
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice

ONE = Fraction(1)


def validate_choices(
    rules: RulesView, pending: PendingExchange, choices: list[EffectChoice]
) -> None:
    """The choice must fit what was won: count, eligibility, stacking, Force Failure pairing."""
    diff = pending.differential
    if diff["winner"] is None:
        if choices:
            raise EngineError("nobody won special effects in this exchange")
        return
    if not choices:
        return
    if len(choices) > diff["effects"]:
        raise EngineError(f"{len(choices)} effects chosen but only {diff['effects']} were won")
    eligible = {e["id"] for e in pending.eligible or ()}
    counts = Counter(c.id for c in choices)
    for choice in choices:
        if choice.id not in rules.effects:
            raise EngineError(f"unknown special effect {choice.id!r}")
        if choice.id not in eligible:
            why = (pending.ineligible or {}).get(choice.id, "not available to the winner")
            raise EngineError(f"{rules.effects[choice.id].name} cannot be chosen: {why}")
        effect = rules.effects[choice.id]
        if effect.params.chooses_location or effect.params.location_steps is not None:
            _check_location_choice(rules, pending, choice)
        if counts[choice.id] > 1 and not effect.stackable:
            raise EngineError(f"{effect.name} does not stack: choose it once")
        if effect.params.combines_with_opposed:
            partner = choice.with_effect
            if (
                partner is None
                or partner not in counts
                or rules.effects[partner].resisted_by is None
            ):
                raise EngineError(
                    f"{effect.name} must name (with_effect) another chosen effect that needs an opposed roll"
                )


def _check_location_choice(
    rules: RulesView, pending: PendingExchange, choice: EffectChoice
) -> None:
    if choice.location is None:
        raise EngineError(f"{rules.effects[choice.id].name} needs a location")
    rules.location(choice.location)
    ward = pending.warded
    chooses = rules.effects[choice.id].params.chooses_location
    if chooses and choice.location in ward and not rules.choose_location_bypasses_ward:
        name = rules.effects[choice.id].name
        raise EngineError(f"{name} cannot bypass the passive block on {choice.location}")


def finish(
    rules: RulesView,
    state: EncounterState,
    pending: PendingExchange,
    choices: list[EffectChoice],
    dice: Dice,
) -> Resolution:
    """Apply ``choices`` and resolve the blow; returns the completed exchange."""
    validate_choices(rules, pending, choices)
    side = pending.winner
    taker = victim = None
    if side is not None:
        taker = combatant(state, pending.attacker if side == "attacker" else pending.defender)
        victim = combatant(state, pending.defender if side == "attacker" else pending.attacker)
    fx = Finisher(rules, state, pending, dice, choices.copy(), side, taker, victim)
    if choices:
        counter_prepared(fx)
        fx.forced = {
            c.with_effect
            for c in fx.choices
            if c.with_effect and rules.effects[c.id].params.combines_with_opposed
        }

    blow = resolve_blow(fx)
    if choices:  # with nothing chosen there is nothing to apply (nor a counter to spring)
        special_effects.apply_all(fx, blow)
        special_effects.apply_counter(fx)
    wound_blow(fx, blow)
    knockback(fx, blow)
    # The state's parked exchanges read from its dict (pending_or_none without its call).
    parked: dict[str, JSON] | None = state.data.get("pending")
    if parked is not None:
        parked.pop(pending.token, None)
    result: JSON = {
        "kind": "exchange",
        "status": "complete",
        "token": pending.token,
        "attacker": pending.attacker,
        "defender": pending.defender,
        "weapon": pending.weapon,
        "defence": pending.defence,
        "parry_weapon": pending.parry_weapon,
        "attack": pending.attack,
        "defence_roll": pending.defence_roll,
        "defence_level": pending.defence_level,
        "differential": pending.differential,
        "effects": fx.applied,
        "blow": blow.to_json() if blow else None,
        "notes": pending.notes + fx.out.get("notes", []),
    }
    for key in (
        ("knockback", "self_injury", "weapon_damage", "counter", "grapple") if fx.out else ()
    ):
        if key in fx.out:
            result[key] = fx.out[key]
    return Resolution(result=result, state=state.data, private=fx.out.get("private", {}))


def resolve_blow(fx: Finisher) -> Blow | None:
    """Decide whether and where damage lands, and how much of it reaches hit points."""
    p = fx.pending
    if p.no_damage:
        return None  # a manoeuvre that deals no blow (a leaping attack)
    rules = fx.rules
    att, dfd = fx.attacker, fx.defender
    attack_level = Level.named(p.attack["level"])
    num, den = p.damage_factor
    factor = ONE if num == den else Fraction(num, den)
    arm = rules.arm(p.weapon)
    if fx.side == "defender" and fx.has("select_target"):
        return strike_bystander(fx, arm, factor, automatic=True)
    evaded = p.defence_roll
    if p.defence == "evade" and evaded is not None:
        evade_level = Level.named(evaded["level"])
        if evade_level > attack_level or (
            evade_level == attack_level and evaded["roll"] > p.attack["roll"]
        ):
            fx.out.setdefault("notes", []).append(f"{dfd.name} evades the blow")
            return None
    if p.grapple:
        grapple_hold(fx)
        return None
    if not p.hit_intended:
        return strike_bystander(fx, arm, factor, automatic=False)
    if not attack_level.succeeded:
        return None
    impale = (
        fx.side == "attacker"
        and bool(fx.choices)
        and any(rules.effects[c.id].params.damage_rolls for c in fx.choices)
    )
    rolls = max((rules.effects[c.id].params.damage_rolls or 1) for c in fx.choices) if impale else 1
    damage, totals = roll_damage(fx, arm, att, rolls, p.dm_steps, factor)
    blow = Blow(dfd.id, None, totals, damage, damage)
    if len(totals) > 1:
        blow.steps.append(f"impale: rolled {totals}, kept {damage}")
    parry = parry_share(fx, arm, blow)
    if (
        fx.side == "attacker"
        and fx.choices
        and fx.has("damage_weapon")
        and p.parry_weapon is not None
    ):
        return strike_weapon(fx, dfd, p.parry_weapon, blow)
    if p.outreached:
        target_weapon = p.parry_weapon or next(
            (w for w in dfd.weapons if w != rules.unarmed_id), None
        )
        if target_weapon is not None:
            blow.steps.append("outreached: only the longer weapon can be struck")
            return strike_weapon(fx, dfd, target_weapon, blow)
    location = choose_location(fx, dfd)
    blow.location = location.id
    # Passive blocking / Ward Location: a warded location is parried by the warding arm.
    ward = dfd.conditions.get("warding", {}).get("locations", {})
    if (
        parry is None
        and location.id in ward
        and parry_ignored_by(fx) is None
        and not (rules.choose_location_bypasses_ward and location_chosen(fx))
    ):
        ward_arm = rules.arm(ward[location.id])
        block = parry_block(
            rules.sizes,
            rules.parry_reductions,
            _attacking_size(rules, arm, p),
            ward_arm.size or rules.sizes[0],
        )
        blow.after_parry = block.remaining(blow.after_parry)
        blow.steps.append(f"warded by {ward_arm.name}: {blow.after_parry} gets through")
    elif parry is not None:
        blow.after_parry = parry
    cover = p.situation["cover"].get(location.id)
    if cover is not None and not fx.has("circumvent_cover"):
        blow.after_parry = max(0, blow.after_parry - cover)
        blow.steps.append(f"cover stops {cover}")
    apply_armor(fx, dfd, location, blow)
    return blow


def grapple_hold(fx: Finisher) -> None:
    """A grapple deals no damage: if the attacker wins the contest he holds a rolled location
    (a limb is useless, head or torso make every skill Hard), until the victim struggles free."""
    p = fx.pending
    attack = p.attack
    defence = p.defence_roll
    a_level = Level.named(attack["level"])
    won = a_level.succeeded and (
        defence is None
        or Level.named(defence["level"]) < a_level
        or (Level.named(defence["level"]) == a_level and attack["roll"] > defence["roll"])
    )
    if not won:
        fx.out.setdefault("notes", []).append("the grapple fails")
        return None
    location = roll_location(fx.rules, fx.dice, p.situation["mounted"], fx.defender)
    add_condition(fx.defender, "grappled", None, location=location.id, by=p.attacker)
    fx.out.setdefault("notes", []).append(f"{fx.defender.name} is grappled by the {location.name}")
    fx.out["grapple"] = {"location": location.id, "limb": location.limb}
    return None


def _attacking_size(rules: RulesView, arm: Arm, p: PendingExchange) -> str:
    size = arm.size or rules.sizes[0]
    return size_step(rules.sizes, size, p.size_steps) if p.size_steps else size


def parry_ignored_by(fx: Finisher) -> str | None:
    """The name of the attacker's effect whose ``ignores_parry`` sets the parry aside
    (Circumvent Parry), or None."""
    if fx.side != "attacker":
        return None
    for c in fx.choices:
        effect = fx.rules.effects[c.id]
        if effect.params.ignores_parry:
            return str(effect.name)
    return None


def parry_share(fx: Finisher, arm: Arm, blow: Blow) -> int | None:
    """Damage left after an active parry, or None when there was no successful parry."""
    p = fx.pending
    rules = fx.rules
    parried = p.defence_roll
    if p.defence != "parry" or parried is None:
        return None
    if not Level.named(parried["level"]).succeeded:
        return None
    ignoring = parry_ignored_by(fx)
    if ignoring is not None:
        blow.steps.append(f"{ignoring}: the parry is ignored")
        return None
    assert p.parry_weapon is not None  # a parry is always made with a named arm
    parry_arm = rules.arm(p.parry_weapon)
    blocking = (
        next((c.id for c in fx.choices if rules.effects[c.id].params.blocks_all_damage), None)
        if fx.side == "defender"
        else None
    )
    if blocking is not None:
        blow.parry = {"weapon": parry_arm.id, "blocked": "all", "by": blocking}
        blow.steps.append(f"{rules.effects[blocking].name} blocks everything")
        return 0
    attacking = _attacking_size(rules, arm, p)
    parrier = combatant(fx.state, p.defender)
    attacker = combatant(fx.state, p.attacker)
    parrying, by_traits = parry_size(rules, fx.state, parrier, attacker, parry_arm)
    if by_traits:
        blow.steps.append(f"{', '.join(by_traits)}: {parry_arm.name} parries as {parrying}")
    inside = p.inside_reach
    if inside > 0:
        attacking = size_step(
            rules.sizes, attacking, -inside * rules.inside_reach_size_drop_per_step
        )
    block, blocked = _parry_block(rules, attacking, parrying)
    through = block.remaining(blow.rolled)
    blow.parry = {
        "weapon": parry_arm.id,
        "attacking_size": attacking,
        "parrying_size": parrying,
        "blocked": blocked,
    }
    blow.steps.append(
        f"parried with {parry_arm.name} ({parrying} vs {attacking}): {through} gets through"
    )
    return through


def _parry_block(rules: RulesView, attacking: str, parrying: str) -> tuple[ParryBlock, str]:
    """:func:`parry_block` of two sizes and the text of its fraction, memoised per view (a
    pure function of the size ladder and the reduction table)."""
    found = recalled(rules.memo, "parry_block", (attacking, parrying))
    if found is None:
        block = parry_block(rules.sizes, rules.parry_reductions, attacking, parrying)
        found = memo_of(rules.memo, "parry_block").put(
            (attacking, parrying), (block, str(block.fraction))
        )
    return found


def choose_location(fx: Finisher, victim: CombatantRecord) -> Location:
    """Where the blow lands: the location Choose Location names, one within ``location_steps``
    of the rolled location (Marksman: 1, an adjoining one), else a rolled one."""
    rules = fx.rules
    if fx.side == "attacker" and fx.choices:
        # A chosen location (no steps) outranks a moved one, whatever order they were picked.
        picks = sorted(fx.choices, key=lambda c: rules.effects[c.id].params.location_steps or 0)
        for c in picks:
            effect = rules.effects[c.id]
            steps = effect.params.location_steps
            if not effect.params.chooses_location and steps is None:
                continue
            if c.location is None:
                raise EngineError(f"{effect.name} needs a location")
            loc = rules.location(c.location)
            if steps is None:
                ward = victim.conditions.get("warding", {}).get("locations", {})
                if loc.id in ward and not rules.choose_location_bypasses_ward:
                    raise EngineError(f"{effect.name} cannot bypass the passive block on {loc.id}")
                return loc
            rolled = roll_location(rules, fx.dice, fx.pending.situation["mounted"], victim)
            if rolled.adjacent and _steps_apart(rules, rolled, loc.id) > steps:
                where = "an adjoining location" if steps == 1 else f"{steps} steps"
                raise EngineError(f"{effect.name} moves a hit only to {where} of {rolled.id}")
            return loc
    return roll_location(rules, fx.dice, fx.pending.situation["mounted"], victim)


def location_chosen(fx: Finisher) -> bool:
    """Whether the winning attacker picked the location (an effect that ``chooses_location``)."""
    return fx.side == "attacker" and any(
        fx.rules.effects[c.id].params.chooses_location for c in fx.choices
    )


def _steps_apart(rules: RulesView, start: Location, goal: str) -> int:
    """Steps from ``start`` to the location ``goal`` along adjoining locations (a large number
    when they are not connected)."""
    seen = {start.id}
    frontier = [start.id]
    steps = 0
    while frontier:
        if goal in frontier:
            return steps
        steps += 1
        frontier = [n for loc in frontier for n in rules.location(loc).adjacent if n not in seen]
        seen.update(frontier)
    return len(rules.locations) + 1


def knockback(fx: Finisher, blow: Blow | None) -> None:
    """Damage over the target's SIZ (before parry and armour) knocks him back."""
    if blow is None or blow.weapon is not None:
        return
    rules = fx.rules
    victim = combatant(fx.state, blow.target)
    siz = victim.characteristics["siz"]
    flagged = fx.pending.situation["defender_braced"] and victim.id == fx.pending.defender
    if brace.is_braced(victim, flagged):
        braced = siz * rules.knockback.brace_multiplier
        siz = ceil_div(braced.numerator, braced.denominator)
    if blow.rolled <= siz:
        return
    bracing = fx.chosen_by("stand_fast") if fx.side == "defender" else None
    if bracing is not None:
        fx.out["knockback"] = {"metres": 0, "negated_by": bracing}
        return
    siz, ride = riders.knockback_siz(rules, fx.state, fx.dice, victim, siz)
    if blow.rolled <= siz:
        fx.out["knockback"] = {"target": victim.id, "metres": 0, "ride": ride}
        return
    metres = ceil_div(blow.rolled - siz, rules.knockback.per_metre)
    displace(victim)
    brace.lose(rules, victim, "knocked_back")
    out: JSON = {"target": victim.id, "metres": metres}
    if ride is not None:
        out["ride"] = ride
    stay = stay_on_feet(fx, victim, rules.knockback.avoid_fall)
    out["check"] = stay
    if not stay["success"]:
        victim.conditions["prone"] = {"turns": None}
        out["prone"] = True
    fx.out["knockback"] = out
