"""The working state of an exchange being finished, and the blows it deals: damage rolls,
armour, wounds, blows on weapons and on bystanders."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.core.checks import (
    ceil_div,
)
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.damage import (
    expr_of,
    maximize,
    modifier_expr,
    step_modifier,
)
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.memo import memo_of, recalled
from arbiter.bridge.engine.combat_styles.core.view import Arm, Location, RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import combatant, records_of
from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import PendingExchange
from arbiter.bridge.engine.combat_styles.encounter.wounds import (
    apply_wound,
    armor_points,
    roll_location,
)
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice, DiceExpr


# mypyc compiles a dataclass's own __init__ but not the one dataclasses generates: the
# constructor is written out (built on every exchange); eq and repr stay generated.
@dataclass(slots=True, init=False)
class Finisher:
    """Working state of one exchange being finished (internal, discarded afterwards)."""

    rules: RulesView
    state: EncounterState
    pending: PendingExchange
    dice: Dice
    choices: list[EffectChoice]
    side: str | None
    winner: CombatantRecord | None
    """The record of whoever won special effects (None when nobody did)."""
    loser: CombatantRecord | None
    """The record of the other fighter (None when nobody won special effects)."""
    out: JSON
    applied: list[JSON]
    forced: set[str]

    def __init__(
        self,
        rules: RulesView,
        state: EncounterState,
        pending: PendingExchange,
        dice: Dice,
        choices: list[EffectChoice],
        side: str | None,
        winner: CombatantRecord | None,
        loser: CombatantRecord | None,
    ) -> None:
        self.rules = rules
        self.state = state
        self.pending = pending
        self.dice = dice
        self.choices = choices
        self.side = side
        self.winner = winner
        self.loser = loser
        self.out = {}
        self.applied = []
        self.forced = set()

    @property
    def taker(self) -> CombatantRecord:
        """The record of whoever takes the special effects; only asked for once someone won
        them (``finish`` refuses choices when nobody did)."""
        if self.winner is None:
            raise EngineError("nobody won special effects in this exchange")
        return self.winner

    @property
    def victim(self) -> CombatantRecord:
        """The record of whoever suffers the special effects (see :attr:`taker`)."""
        if self.loser is None:
            raise EngineError("nobody won special effects in this exchange")
        return self.loser

    def chosen(self, effect_id: str) -> list[EffectChoice]:
        return [c for c in self.choices if c.id == effect_id]

    def has(self, mechanic: str) -> bool:
        """Whether a chosen effect works by ``mechanic`` (its rule data's ``mechanic``)."""
        return self.chosen_by(mechanic) is not None

    def chosen_by(self, mechanic: str) -> str | None:
        """The id of the first chosen effect that works by ``mechanic``, if any."""
        effects = self.rules.effects
        for c in self.choices:
            if effects[c.id].mechanic == mechanic:
                return c.id
        return None

    @property
    def attacker(self) -> CombatantRecord:
        return combatant(self.state, self.pending.attacker)

    @property
    def defender(self) -> CombatantRecord:
        return combatant(self.state, self.pending.defender)

    @property
    def original_roll(self) -> JSON:
        """The taker's own roll, which resistance rolls are opposed to."""
        # A defender who won effects rolled his defence (typed as optional for the others).
        roll: Any = self.pending.attack if self.side == "attacker" else self.pending.defence_roll
        return roll


# mypyc compiles a dataclass's own __init__ but not the one dataclasses generates: the
# constructor is written out (built on every exchange); eq and repr stay generated.
@dataclass(slots=True, init=False)
class Blow:
    """A blow that landed on a body (or on a weapon, for Damage Weapon)."""

    target: str
    location: str | None
    rolls: list[int]
    rolled: int
    after_parry: int
    armor: int
    to_hp: int
    wound: JSON | None
    parry: JSON | None
    steps: list[str]
    weapon: str | None

    def __init__(
        self, target: str, location: str | None, rolls: list[int], rolled: int, after_parry: int
    ) -> None:
        self.target = target
        self.location = location
        self.rolls = rolls
        self.rolled = rolled
        self.after_parry = after_parry
        self.armor = 0
        self.to_hp = 0
        self.wound = None
        self.parry = None
        self.steps = []
        self.weapon = None

    def to_json(self) -> JSON:
        out: JSON = {
            "target": self.target,
            "location": self.location,
            "damage_rolls": self.rolls,
            "damage": self.rolled,
            "after_parry": self.after_parry,
            "armor": self.armor,
            "to_hit_points": self.to_hp,
            "steps": self.steps,
        }
        if self.wound is not None:
            out["wound"] = self.wound
        if self.parry is not None:
            out["parry"] = self.parry
        if self.weapon is not None:
            out["weapon"] = self.weapon
        return out


def damage_expr(
    rules: RulesView,
    arm: Arm,
    attacker: CombatantRecord,
    maximized: int,
    dm_steps: int,
    with_dm: bool = True,
    dm_base: str | None = None,
) -> tuple[DiceExpr, DiceExpr | None]:
    """The weapon's damage dice (Maximize Damage applied) and the attacker's damage modifier."""
    if arm.damage is None:
        raise EngineError(f"{arm.name} deals no damage of its own")
    dm_text = dm_base or attacker.damage_modifier
    # A pure function of these rules and the key: memoised per view (few weapons and modifiers
    # are in play), which spares the parse, Maximize and ladder lookups on every blow.
    key = (arm.id, maximized, dm_text, dm_steps, with_dm)
    found = recalled(rules.memo, "damage_expr", key)
    if found is None:
        weapon = maximize(expr_of(arm.damage), maximized)
        if dm_steps:
            dm_text = step_modifier(rules.dm_ladder, dm_text, dm_steps)
        dm = modifier_expr(dm_text) if (with_dm and arm.damage_modifier) else None
        found = memo_of(rules.memo, "damage_expr").put(key, (weapon, dm))
    return found


def roll_damage(
    fx: Finisher,
    arm: Arm,
    attacker: CombatantRecord,
    rolls: int,
    dm_steps: int,
    factor: Fraction,
    effects: bool = True,
) -> tuple[int, list[int]]:
    """Roll damage ``rolls`` times (Impale: 2) and keep the best; DM rolled with each.
    Maximize Damage counts only when the winner's ``effects`` apply to this blow."""
    maximized = (
        sum(fx.rules.effects[c.id].params.maximized_dice or 0 for c in fx.choices)
        if effects and fx.side == "attacker" and fx.choices
        else 0
    )
    own = attacker.id == fx.pending.attacker
    dm_base = fx.pending.damage_modifier if own else None
    weapon, dm = damage_expr(fx.rules, arm, attacker, maximized, dm_steps, dm_base=dm_base)
    if own and fx.pending.inside_reach > 0:
        # Inside its own reach a long weapon's blow is capped (rule data, e.g. 1d3+1).
        cap = maximize(expr_of(fx.rules.inside_reach_damage_cap), maximized)
        if cap.bounds()[1] < weapon.bounds()[1]:
            weapon = cap
    totals = []
    roll = fx.dice.total
    for _ in range(rolls):
        total = roll(weapon)
        if dm is not None:
            total += roll(dm)
        totals.append(max(0, total))
    best = max(totals)
    if factor.numerator != factor.denominator:
        best = ceil_div(best * factor.numerator, factor.denominator)
    return best, totals


def apply_armor(
    fx: Finisher, victim: CombatantRecord, location: Location, blow: Blow, effects: bool = True
) -> None:
    """Armour (with Bypass Armor and Sunder when ``effects`` apply to this victim) decides
    how much of the blow reaches hit points."""
    rules = fx.rules
    bypass: list[str] = []
    winner_effects = effects and fx.side == "attacker" and fx.choices
    if winner_effects:
        for c in fx.choices:
            if rules.effects[c.id].params.ignores_armor:
                bypass.append(c.bypass or ("worn" if "worn" not in bypass else "natural"))
    worn, _natural, counted = armor_points(victim, location.id, bypass)
    blow.armor = counted
    damage = blow.after_parry
    if winner_effects and fx.has("sunder") and worn and "worn" not in bypass:
        surplus = damage - counted
        if surplus > 0:
            cut = min(surplus, worn)
            victim.armor[location.id] = worn - cut
            blow.steps.append(f"Sunder: armour on {location.id} loses {cut} AP")
            damage = surplus - cut
        else:
            damage = 0
        blow.to_hp = damage
    else:
        blow.to_hp = max(0, damage - counted)
    if bypass:
        blow.steps.append(f"Bypass Armor: {' and '.join(bypass)} armour ignored")


def wound_blow(fx: Finisher, blow: Blow | None) -> None:
    """Apply the wound of a blow that reached hit points (after the effects, as the rules
    order it: Endurance rolls come after the special effects are applied)."""
    if blow is None or blow.weapon is not None or blow.to_hp <= 0 or blow.wound is not None:
        return
    rules = fx.rules
    victim = combatant(fx.state, blow.target)
    assert blow.location is not None
    kill = (
        fx.side == "attacker"
        and bool(fx.choices)
        and blow.target == fx.pending.defender
        and any(rules.effects[c.id].params.auto_fails_endurance for c in fx.choices)
    )
    blow.wound = apply_wound(
        rules,
        fx.dice,
        victim,
        rules.location(blow.location),
        blow.to_hp,
        fx.pending.attack,
        kill,
        mitigate=victim.id in fx.pending.mitigate,
    )


def strike_bystander(fx: Finisher, arm: Arm, factor: Fraction, automatic: bool) -> Blow | None:
    """The blow lands on a bystander (Select Target, or a shot into a crowd gone astray)."""
    p = fx.pending
    name = p.bystander
    if name is None:
        fx.out.setdefault("notes", []).append("the blow goes astray (no bystander named)")
        return None
    victim = combatant(fx.state, name)
    if name not in records_of(fx.state) or victim is fx.attacker:
        raise EngineError("the bystander must be someone other than the attacker")
    damage, totals = roll_damage(fx, arm, fx.attacker, 1, p.dm_steps, factor, effects=False)
    blow = Blow(name, None, totals, damage, damage)
    blow.steps.append(
        "Select Target: an adjacent bystander is struck" if automatic else "a bystander is struck"
    )
    location = roll_location(fx.rules, fx.dice, victim=victim)
    blow.location = location.id
    apply_armor(fx, victim, location, blow, effects=False)
    wound_blow(fx, blow)
    return blow


def strike_weapon(fx: Finisher, owner: CombatantRecord, weapon_id: str, blow: Blow) -> Blow:
    """Damage Weapon: the damage goes to the opposing weapon, less its own armour points."""
    arm = fx.rules.arm(weapon_id)
    through = max(0, blow.rolled - arm.ap)
    state = owner.weapons[weapon_id]
    state["hp"] -= through
    if state["hp"] <= 0:
        state["broken"] = True
    blow.weapon = weapon_id
    blow.armor = arm.ap
    blow.to_hp = through
    blow.after_parry = blow.rolled
    blow.steps.append(
        f"Damage Weapon: {arm.name} takes {through} ({state['hp']} HP left{', broken' if state['broken'] else ''})"
    )
    return blow
