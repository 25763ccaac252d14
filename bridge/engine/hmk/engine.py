"""The hmk engine: request types and the dispatch to their resolvers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.hmk import rounds
from arbiter.bridge.engine.hmk.attack import attack
from arbiter.bridge.engine.hmk.index import Index, index
from arbiter.bridge.engine.hmk.initiative import initiative
from arbiter.bridge.engine.hmk.odds import odds
from arbiter.bridge.engine.hmk.requests import (
    AidBody,
    AttackBody,
    CombatantBody,
    DeclareBody,
    InitiativeBody,
    NextRoundBody,
    ReadyBody,
    StartBody,
)
from arbiter.compiler.model.common import RulesetBase

Resolver = Callable[[Index, Any, "JSON | None", Dice], Resolution]

_RESOLVERS: dict[str, tuple[type[BaseModel], Resolver]] = {
    "start": (StartBody, lambda ix, b, s, d: rounds.start(ix, b)),
    "initiative": (InitiativeBody, initiative),
    "declare": (DeclareBody, lambda ix, b, s, d: rounds.declare(ix, b, s)),
    "attack": (AttackBody, attack),
    "odds": (AttackBody, lambda ix, b, s, d: odds(ix, b, s)),
    "reload": (CombatantBody, lambda ix, b, s, d: rounds.reload(ix, b, s)),
    "ready": (ReadyBody, lambda ix, b, s, d: rounds.ready(ix, b, s)),
    "stand": (CombatantBody, lambda ix, b, s, d: rounds.stand(ix, b, s)),
    "aid": (AidBody, lambda ix, b, s, d: rounds.aid(ix, b, s)),
    "round": (NextRoundBody, lambda ix, b, s, d: rounds.next_round(ix, b, s)),
}


class HmkEngine:
    """Hurting, Maiming, and Killing. Pure: rules, body, state and dice in; a Resolution out."""

    ruleset_id = "hmk"
    requests: Mapping[str, type[BaseModel]] = {k: v[0] for k, v in _RESOLVERS.items()}

    def resolve(
        self,
        rules: RulesetBase,
        kind: str,
        body: BaseModel,
        state: JSON | None,
        dice: Dice,
    ) -> Resolution:
        entry = _RESOLVERS.get(kind)
        if entry is None:
            raise EngineError(f"unknown hmk request {kind!r} (known: {', '.join(_RESOLVERS)})")
        model, resolver = entry
        if not isinstance(body, model):
            raise EngineError(f"a {kind!r} request needs a {model.__name__} body")
        return resolver(index(rules), body, state, dice)


ENGINE = HmkEngine()
