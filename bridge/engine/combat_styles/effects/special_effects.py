"""The consequence of every special effect.

Numbers (durations, knockback rates, target limits, resistance skills, size-step grades) are read
from each effect's rule data; the handler for an effect id says what those numbers do. Effects
without a handler of their own get the generic treatment: their resistance roll (if any) is
made and, when it fails, the effect is recorded as a condition on the victim. Narrative effects
are recorded and change nothing.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.effects.bash import bash
from arbiter.bridge.engine.combat_styles.effects.effect_rolls import (
    Handler,
    condition_on,
    duration_turns,
    noop,
    resisted_condition,
    wound_gated,
)
from arbiter.bridge.engine.combat_styles.effects.manoeuvres import (
    arise,
    entangle,
    follow_up,
    force_failure,
    grip,
    kill_silently,
    overpenetration,
    pin_weapon,
    prepare_counter,
    reload,
    set_range,
    slip_free,
    withdraw,
)
from arbiter.bridge.engine.combat_styles.effects.weapon_effects import (
    damage_weapon_defender,
    disarm,
    take_weapon,
    weapon_malfunction,
)
from arbiter.bridge.engine.combat_styles.effects.wounding_effects import (
    accidental_injury,
    bleed,
    impale,
    stun,
)
from arbiter.bridge.engine.combat_styles.encounter import follow_ups
from arbiter.bridge.engine.combat_styles.encounter.blows import Blow, Finisher
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition
from arbiter.bridge.engine.contract import JSON
from arbiter.compiler.model.combat_styles.effects import SpecialEffect

HANDLERS: dict[str, Handler] = {
    "bleed": bleed,
    "stun_location": stun,
    "impale": impale,
    "disarm_opponent": disarm,
    "take_weapon": take_weapon,
    "bash": bash,
    "damage_weapon": damage_weapon_defender,
    "accidental_injury": accidental_injury,
    "entangle": entangle,
    "grip": grip,
    "pin_weapon": pin_weapon,
    "slip_free": slip_free,
    "arise": arise,
    "withdraw": withdraw,
    "close_range": set_range,
    "open_range": set_range,
    "prepare_counter": prepare_counter,
    "kill_silently": kill_silently,
    "force_failure": force_failure,
    "rapid_reload": reload,
    "flurry": follow_up,
    "remise": follow_up,
    "overpenetration": overpenetration,
    "trip_opponent": resisted_condition("prone"),
    "compel_surrender": resisted_condition("surrendered"),
    "blind_opponent": resisted_condition("blinded"),
    "drop_foe": resisted_condition("incapacitated", wound=True),
    "pin_down": resisted_condition("pinned_down"),
    "press_advantage": condition_on("victim", "cannot_attack"),
    "overextend_opponent": condition_on("victim", "cannot_attack", stack=True),
    "weapon_malfunction": weapon_malfunction,
    "duck_back": condition_on("taker", "in_cover"),
    "spoil_spell": wound_gated("the spell being cast is ruined"),
    "maximize_damage": noop("a damage die counts at its maximum"),
    "bypass_armor": noop("armour ignored"),
    "choose_location": noop("location chosen"),
    "marksman": noop("location moved to an adjoining one"),
    "circumvent_parry": noop("the parry is ignored"),
    "circumvent_cover": noop("the cover is ignored"),
    "enhance_parry": noop("the parry blocks all damage"),
    "select_target": noop("the blow strikes a bystander"),
    "stand_fast": noop("no knockback"),
    "sunder": noop("the damage goes against the armour first"),
}
"""Mechanic (an effect's ``mechanic`` in the rule data) → what it does; ``generic`` is added
below."""


def _generic(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    effect = fx.rules.effects[choice.id]
    if effect.params.sets_range is not None:
        set_range(fx, choice, blow, rec)
    elif effect.resisted_by is not None:
        resisted_condition(choice.id.replace("-", "_"), wound=effect.requires.blow_wounds)(
            fx, choice, blow, rec
        )
    else:
        add_condition(fx.victim, choice.id.replace("-", "_"), duration_turns(fx, choice.id, blow))
        rec["outcome"] = "applied"


HANDLERS["generic"] = _generic


def _handler(effect: SpecialEffect) -> Handler:
    # Only effects that are not narrative come here, and the cross-checks make each of them
    # name its mechanic; a narrative one (recorded, not dispatched) may still name a mechanic
    # the blow reads (Circumvent Cover ignores cover).
    return HANDLERS[effect.mechanic or "generic"]


ESCAPABLE = ("entangled", "gripped", "pinned")
"""Holds that winning an effect their governing effect's ``escape.also_by_effects`` lists
breaks (``combat.effect_conditions`` names that effect)."""


def apply_counter(fx: Finisher) -> None:
    """Prepare Counter sprung: the counter-taker's own effect replaces the cancelled one and
    succeeds automatically (its resistance roll, if any, is failed)."""
    counter = fx.out.get("counter")
    if not counter or not counter.get("substitute") or fx.loser is None or fx.winner is None:
        return
    substitute = counter["substitute"]
    side = "defender" if fx.side == "attacker" else "attacker"
    choices = [EffectChoice(id=substitute)]
    swapped = Finisher(fx.rules, fx.state, fx.pending, fx.dice, choices, side, fx.loser, fx.winner)
    swapped.out = fx.out  # shared: what the counter does is reported with the exchange
    swapped.forced = {substitute}
    effect = fx.rules.effects[substitute]
    rec: JSON = {"id": substitute, "name": effect.name, "by_counter": True}
    if effect.narrative:
        rec["narrative"] = True
        rec["outcome"] = "recorded"
    else:
        _handler(effect)(swapped, EffectChoice(id=substitute), None, rec)
    fx.applied.append(rec)


def escapes(fx: Finisher) -> None:
    """Winning certain effects also frees the winner from a hold (an Entangle escapes by
    Damage Weapon, Disarm Opponent or Slip Free), as each hold's ``escape`` data lists."""
    if fx.winner is None or not fx.choices:
        return
    chosen = {c.id for c in fx.choices}
    for condition in ESCAPABLE:
        hold = fx.taker.conditions.get(condition)
        escape = fx.rules.effects[fx.rules.effect_conditions[condition]].escape
        if hold and escape is not None and chosen & set(escape.also_by_effects):
            del fx.taker.conditions[condition]
            fx.out.setdefault("notes", []).append(f"{fx.taker.name} breaks free ({condition})")


def apply_all(fx: Finisher, blow: Blow | None) -> None:
    """Apply every chosen effect in the order chosen, recording what each did."""
    escapes(fx)
    for choice in fx.choices:
        effect = fx.rules.effects[choice.id]
        rec: JSON = {"id": choice.id, "name": effect.name}
        if effect.narrative:
            rec["narrative"] = True
            rec["outcome"] = "recorded"
            if fx.loser is not None:
                fx.loser.add_mark(choice.id)
        else:
            _handler(effect)(fx, choice, blow, rec)
            if fx.loser is not None:
                follow_ups.arm(fx.rules, rec, fx.loser, choice.id)
        fx.applied.append(rec)
