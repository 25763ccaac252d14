"""The karmic engine: dispatches each typed request to the module that decides it.

Every request works on a copy of the state (the caller's dict is never changed). ``result`` is
public and never holds a card that is not face up, nor the order of the draw pile;
``private`` gives each player his own hand (and the odds he asked for) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.karmic import declaring, immediate, resolving, rounds
from arbiter.bridge.engine.karmic import odds as odds_module
from arbiter.bridge.engine.karmic import requests as rq
from arbiter.bridge.engine.karmic.rulebook import rulebook
from arbiter.bridge.engine.karmic.table import FORMAT, Table, thaw
from arbiter.bridge.engine.karmic.views import private_view, private_views, public_view
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.karmic import KarmicRules


class KarmicEngine:
    """The engine of the ``karmic`` ruleset (see :mod:`arbiter.bridge.engine.contract`)."""

    ruleset_id = "karmic"
    requests: Mapping[str, type[BaseModel]] = rq.REQUESTS

    def resolve(
        self,
        rules: RulesetBase,
        kind: str,
        body: BaseModel,
        state: JSON | None,
        dice: Dice,
    ) -> Resolution:
        if type(rules) is not KarmicRules and not isinstance(rules, KarmicRules):
            raise EngineError("the karmic engine needs the karmic rules")
        book = rulebook(rules)
        if kind == "start_duel":
            assert isinstance(body, rq.StartDuel)
            table = rounds.start_duel(book, body, dice)
            result = {"kind": "duel", "view": public_view(table)}
            return Resolution(result, table.state, {})
        if state is None:
            raise EngineError(f"{kind!r} needs a duel: send start_duel first")
        if state.get("format") != FORMAT:
            raise EngineError(f"unknown karmic state format {state.get('format')!r}")
        handler = HANDLERS.get(kind)
        if handler is None or type(body) is not rq.REQUESTS[kind]:
            raise EngineError(f"unknown karmic request {kind!r} or a body of the wrong type")
        table = Table(book, thaw(state), dice)
        result, changed, private = handler(table, body)
        return Resolution(result, table.state if changed else None, private)


Outcome = tuple[JSON, bool, dict[str, JSON]]
"""(public result, whether the state changed, private data per participant)."""


def _declare(table: Table, body: rq.Declare) -> Outcome:
    result, stored = declaring.declare(table, body)
    at_once = immediate.resolve_immediately(table, body.combatant, result["register"], stored)
    if at_once:
        result["resolved_at_once"] = at_once
        result["duel_over"] = table.check_over()
    return result, True, private_views(table, [body.combatant])


def _odds(table: Table, body: rq.Odds) -> Outcome:
    answer = odds_module.odds(table, body)
    return {"kind": "odds", "viewer": body.viewer}, False, {body.viewer: answer}


def _view(table: Table, body: rq.View) -> Outcome:
    table.combatant(body.viewer)
    view = {"kind": "view", **public_view(table)}
    return view, False, {body.viewer: private_view(table, body.viewer)}


HANDLERS: dict[str, Callable[[Table, Any], Outcome]] = {
    "draw_initiative": lambda t, b: (rounds.draw_initiative(t, b), True, {}),
    "draw_hands": lambda t, b: (rounds.draw_hands(t), True, private_views(t)),
    "declare": _declare,
    "reveal": lambda t, b: (resolving.reveal(t, b), True, {}),
    "hit_draw": lambda t, b: (resolving.hit_draw(t, b), True, {}),
    "resolve_register": lambda t, b: (resolving.resolve_register(t, b), True, {}),
    "charge": lambda t, b: (rounds.charge(t, b), True, {}),
    "surprise": lambda t, b: (immediate.surprise(t, b), True, {}),
    "hesitate": lambda t, b: (rounds.hesitate(t, b), True, {}),
    "entangle": lambda t, b: (rounds.entangle(t, b), True, {}),
    "odds": _odds,
    "view": _view,
}
"""Every request type but start_duel, with the function that decides it."""


ENGINE = KarmicEngine()
