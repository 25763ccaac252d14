"""The karmic engine: dispatches each typed request to the module that decides it.

Every request works on a copy of the state (the caller's dict is never changed). ``result`` is
public and never holds a card that is not face up, nor the order of the draw pile;
``private`` gives each player his own hand (and the odds he asked for) and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from bridge.engine.contract import JSON, EngineError, Resolution
from bridge.engine.dice import Dice
from bridge.engine.karmic import declaring, immediate, resolving, rounds
from bridge.engine.karmic import odds as odds_module
from bridge.engine.karmic import requests as rq
from bridge.engine.karmic.rulebook import rulebook
from bridge.engine.karmic.table import FORMAT, Table, thaw
from bridge.engine.karmic.views import private_view, private_views, public_view
from compiler.model.common import RulesetBase
from compiler.model.karmic import KarmicRules


class KarmicEngine:
    """The engine of the ``karmic`` ruleset (see :mod:`bridge.engine.contract`)."""

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
        if not isinstance(rules, KarmicRules):
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
        table = Table(book, thaw(state), dice)
        result, changed, private = self._dispatch(table, kind, body)
        return Resolution(result, table.state if changed else None, private)

    def _dispatch(
        self, table: Table, kind: str, body: BaseModel
    ) -> tuple[JSON, bool, dict[str, JSON]]:
        """(public result, whether the state changed, private data per participant)."""
        if isinstance(body, rq.DrawInitiative):
            return rounds.draw_initiative(table, body), True, {}
        if isinstance(body, rq.DrawHands):
            return rounds.draw_hands(table), True, private_views(table)
        if isinstance(body, rq.Declare):
            result, stored = declaring.declare(table, body)
            at_once = immediate.resolve_immediately(
                table, body.combatant, result["register"], stored
            )
            if at_once:
                result["resolved_at_once"] = at_once
                result["duel_over"] = table.check_over()
            return result, True, private_views(table, [body.combatant])
        if isinstance(body, rq.Reveal):
            return resolving.reveal(table, body), True, {}
        if isinstance(body, rq.HitDraw):
            return resolving.hit_draw(table, body), True, {}
        if isinstance(body, rq.ResolveRegister):
            return resolving.resolve_register(table, body), True, {}
        if isinstance(body, rq.ChargeBody):
            return rounds.charge(table, body), True, {}
        if isinstance(body, rq.SurpriseBody):
            return immediate.surprise(table, body), True, {}
        if isinstance(body, rq.Hesitate):
            return rounds.hesitate(table, body), True, {}
        if isinstance(body, rq.Entangle):
            return rounds.entangle(table, body), True, {}
        if isinstance(body, rq.Odds):
            answer = odds_module.odds(table, body)
            public = {"kind": "odds", "viewer": body.viewer}
            return public, False, {body.viewer: answer}
        if isinstance(body, rq.View):
            table.combatant(body.viewer)
            view = {"kind": "view", **public_view(table)}
            return view, False, {body.viewer: private_view(table, body.viewer)}
        raise EngineError(f"unknown karmic request {kind!r}")


ENGINE = KarmicEngine()
