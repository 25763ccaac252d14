"""The engine object: request types, their body models, and the dispatcher."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.request_types import REQUESTS
from arbiter.bridge.engine.combat_styles.bodies.requests import (
    ActBody,
    CheckBody,
    ChooseEffectsBody,
    EffectChoice,
    EmptyBody,
    InitiativeBody,
    OddsBody,
    OpposedBody,
    Side,
    StartEncounterBody,
)
from arbiter.bridge.engine.combat_styles.core.checks import (
    Level,
    contest_penalty,
    opposed_winner,
    roll_check,
    target,
)
from arbiter.bridge.engine.combat_styles.core.differential import differential
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.rules import view_of
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    combatant,
    needs_encounter,
    records_of,
    taken_in,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.lasting import released_lasting
from arbiter.bridge.engine.combat_styles.encounter.pending import parked_record
from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import (
    PendingExchange,
    PendingSpiritCombat,
)
from arbiter.bridge.engine.combat_styles.encounter.phases import TURNS
from arbiter.bridge.engine.combat_styles.exchange.choices import pending_choices
from arbiter.bridge.engine.combat_styles.exchange.finishing import finish
from arbiter.bridge.engine.combat_styles.exchange.odds import exchange_odds
from arbiter.bridge.engine.combat_styles.grades.burdens import burdens
from arbiter.bridge.engine.combat_styles.moves import mounted
from arbiter.bridge.engine.combat_styles.moves.aerial import aerial_pass
from arbiter.bridge.engine.combat_styles.moves.leaping import leaping_attack
from arbiter.bridge.engine.combat_styles.moves.outmaneuvering import outmaneuver
from arbiter.bridge.engine.combat_styles.moves.sweeping import sweep_attack
from arbiter.bridge.engine.combat_styles.riding import astride
from arbiter.bridge.engine.combat_styles.rounds import death_timers, fatigue_checks
from arbiter.bridge.engine.combat_styles.spirit.spirit import finish_spirit_combat, spirit_combat
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.compiler.model.common import RulesetBase


def _grade(rules: RulesView, grades: list[str], steps: int):
    try:
        return rules.checks.shifted(rules.checks.most_severe(grades), steps)
    except ValueError as err:
        raise EngineError(str(err)) from None


def _check(
    rules: RulesView, body: CheckBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    grades, steps = list(body.grades), body.grade_steps
    notes: list[str] = []
    if body.combatant is not None:
        c = combatant(needs_encounter(state), body.combatant)
        more, extra = burdens(rules, c, body.skill_name, notes)
        grades, steps = grades + more, steps + extra
    grade = _grade(rules, grades, steps)
    tgt = target(rules.checks, body.skill, grade, body.augment)
    if tgt.impossible:
        raise EngineError(f"the check is {grade.name}: no attempt is possible")
    luck = Level.named(body.luck) if body.luck else None
    result = roll_check(rules.checks, dice, tgt, f"1d100 {body.label}".strip(), luck)
    out: JSON = {"kind": "check", "label": body.label, "grade": grade.id, **result.to_json()}
    if notes:
        out["notes"] = notes
    return Resolution(out)


def _side(rules: RulesView, side: Side, penalty: int, dice: Dice, label: str):
    grade = _grade(rules, side.grades, side.grade_steps)
    tgt = target(rules.checks, side.skill, grade, side.augment, penalty)
    luck = Level.named(side.luck) if side.luck else None
    return roll_check(rules.checks, dice, tgt, f"1d100 {label}", luck), grade


def _opposed(
    rules: RulesView, body: OpposedBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    penalty = contest_penalty([body.protagonist.skill, body.antagonist.skill])
    a, ga = _side(rules, body.protagonist, penalty, dice, "protagonist")
    b, gb = _side(rules, body.antagonist, penalty, dice, "antagonist")
    winner = {1: "protagonist", -1: "antagonist", 0: None}[opposed_winner(a, b)]
    result: JSON = {
        "kind": "opposed",
        "protagonist": {**a.to_json(), "grade": ga.id},
        "antagonist": {**b.to_json(), "grade": gb.id},
        "penalty_over_100": penalty,
        "winner": winner,
    }
    if body.differential:
        d = differential(rules.differential, a.level, b.level)
        result["differential"] = {
            "winner": {"attacker": "protagonist", "defender": "antagonist"}.get(d.winner or ""),
            "effects": d.count,
        }
    return Resolution(result)


def _choose(
    rules: RulesView, body: ChooseEffectsBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    # The body's fields read from its __dict__: a pydantic attribute read costs a hook call
    # (see exchange.start_exchange).
    given: dict[str, Any] = body.__dict__
    token: str = given["token"]
    by: str | None = given["by"]
    effects: list[EffectChoice] = given["effects"]
    record = parked_record(state, token)
    assert state is not None  # the exchange was found in it
    if record.get("kind") == "spirit_combat":  # is_spirit(record), without its call
        spirit = PendingSpiritCombat.of(record)
        _chosen_by(token, by, spirit.chooser)
        new = writable(state)
        return finish_spirit_combat(rules, new, spirit, list(effects), dice)
    pending = PendingExchange.of(record)
    _chosen_by(token, by, pending.chooser)
    new = writable(state)  # its parked exchanges a copy of the state's (finish drops this one)
    done = finish(rules, new, pending, effects.copy(), dice)
    # A manoeuvre parked like an exchange (a leaping attack) finishes as what it is.
    if pending.move_result is not None:
        done.result.update(pending.move_result)
    return done


def _chosen_by(token: str, by: str | None, chooser: str | None) -> None:
    """Refuse a choice of the effects of ``token`` sent ``by`` someone other than the winner."""
    if by is not None and by != chooser:
        # Who won is on the card (public): refusing says nothing the sender cannot see.
        raise EngineError(f"{by} does not choose the effects of {token!r}: {chooser} does")


def _start(
    rules: RulesView, body: StartEncounterBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    new = rounds.start(rules, body)
    if body.fatigue_checks:
        new.fatigue_checks = True
    return Resolution({"kind": "start_encounter", "combatants": list(records_of(new))}, new.data)


def _wrap(
    fn: Callable[..., tuple[EncounterState, JSON]], *args_from_body: str
) -> Callable[..., Resolution]:
    def handler(
        rules: RulesView, body: object, state: EncounterState | None, dice: Dice
    ) -> Resolution:
        st = needs_encounter(state)
        args = [getattr(body, a) for a in args_from_body]
        new, result = fn(st, *args, rules=rules)
        return Resolution(result, new.data)

    return handler


def _initiative(
    rules: RulesView, body: InitiativeBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    new, result = rounds.roll_initiative(rules, needs_encounter(state), dice)
    return Resolution(result, new.data)


def _act(rules: RulesView, body: ActBody, state: EncounterState | None, dice: Dice) -> Resolution:
    st = needs_encounter(state)
    combatant(st, body.combatant)
    new, result = rounds.act(rules, st, body, dice)
    return Resolution(result, new.data)


def _state(
    rules: RulesView, body: EmptyBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    st = needs_encounter(state)
    return Resolution({"kind": "state", **rounds.snapshot(st)}, st.data)


def _odds(rules: RulesView, body: OddsBody, state: EncounterState | None, dice: Dice) -> Resolution:
    return Resolution(exchange_odds(rules, body))


HANDLERS: Mapping[str, Callable[..., Resolution]] = {
    "check": _check,
    "opposed": _opposed,
    "exchange": mounted.exchange,
    "choose_effects": _choose,
    "odds": _odds,
    "spirit_combat": spirit_combat,
    "start_encounter": _start,
    "initiative": _initiative,
    "act": _act,
    "spend_ap": _act,
    "delay": _wrap(rounds.delay, "combatant"),
    "interrupt": _wrap(rounds.interrupt, "combatant"),
    "next_turn": _wrap(rounds.next_turn),
    "next_cycle": _wrap(rounds.next_cycle),
    "next_round": _wrap(rounds.next_round),
    "state": _state,
    "leaping_attack": leaping_attack,
    "outmaneuver": outmaneuver,
    "sweep_attack": sweep_attack,
    "aerial_pass": aerial_pass,
    "mount": mounted.mount,
    "mounted_withdraw": mounted.mounted_withdraw,
}


_CHOOSING = frozenset({"sweep_attack", "state"})
"""Requests whose outcome may leave choices open whatever its status (see
:func:`~arbiter.bridge.engine.combat_styles.exchange.choices.pending_choices`)."""


def _view(done: Resolution, last: EncounterState | None) -> EncounterState | None:
    """The view of ``done``'s state: ``last`` when it views that very state (the steps after
    the handler mostly hand it on unchanged), else a new one."""
    if done.state is None:
        return None
    if last is not None and last.data is done.state:
        return last
    return EncounterState(done.state)


class CombatStylesEngine:
    """The combat-styles engine (see :mod:`arbiter.bridge.engine.contract`)."""

    ruleset_id = "combat-styles"
    requests = REQUESTS

    def resolve(
        self, rules: RulesetBase, kind: str, body: object, state: JSON | None, dice: Dice
    ) -> Resolution:
        """Decide one request; raises EngineError for a move the rules forbid."""
        handler = HANDLERS.get(kind)
        if handler is None:
            raise EngineError(f"unknown request type {kind!r}")
        view = view_of(rules)
        # The state typed once on the way in (a view, its records typed), written back once on
        # the way out (released): a handler hands back its view's data.
        st = taken_in(state)
        try:
            done = handler(view, body, st, dice)
            done = astride.settle(view, kind, body, done)
            after: EncounterState | None = None
            # Rounds close (and with them fatigue checks and death timers) only for a request
            # begun in the turns phase: outside it both steps hand ``done`` on unchanged, so
            # they are not called (nor a view of its state made for them).
            # (The stored state's phase read from it directly: tracks_turns, without its call.)
            if state is not None and state.get("phase") == TURNS:
                # The round the request began in, read from the stored state: the state taken
                # in is the request's own, and writable() made it the handler's (in place).
                begun: int | None = state.get("round")
                # The view of each step's state, made anew only when a step hands on another
                # state (most hand theirs on unchanged); the checks written out, not a call each.
                after = _view(done, None)
                done = fatigue_checks.after_request(view, begun, done, after, dice)
                if after is None or done.state is not after.data:
                    after = _view(done, after)
                done = death_timers.after_request(view, begun, done, after)
                if after is None or done.state is not after.data:
                    after = _view(done, after)
            # Every choice the outcome leaves open, in the shape all rulesets share: only a
            # sweep, a state request or an exchange parked for its winner's choice leaves one
            # (see pending_choices), so no other outcome asks.
            result = done.result
            choices: list[JSON] = []
            if kind in _CHOOSING or result.get("status") == "awaiting_effects":
                choices = pending_choices(view, kind, result, done.state)
        except LookupError as err:
            raise EngineError(str(err).strip("'\"")) from None
        # What lasts on each combatant the request wrote, for the tabletop (a condition shows
        # until the state ends it, whatever later results restate), found as the state is
        # written back (released) in the same loop.
        held = released_lasting(state, done.state)
        if held:
            done.result["lasting"] = held
        if choices or kind == "state":
            done.result["pending"] = choices
        return done


ENGINE = CombatStylesEngine()
