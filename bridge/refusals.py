"""One decision per request id: a refusal after the first die is the id's logged outcome.

A request id is decided once. Whatever can refuse a request is checked before its first die
where that is possible (the body, the encounter, a choice that could never be made:
:func:`pending_without_encounter`). What the engine can only find out while resolving (a move
the rules forbid once the dice are known, a request over the dice budget, an engine fault) may
come after dice; then the refusal is decided, not retryable: :func:`settle` turns it into the
*refused outcome* the roll log keeps like any other, with the dice that were rolled::

    {"id": …, "ruleset": …, "type": …, "encounter": …, "rules_version": …, "rules_hash": …,
     "result": {"kind": "refused", "code": "dice_error", "message": "…"},
     "dice": [{"expr": …, "faces": …, "result": …}, …], "state": null, "private": {}}

Its ``state`` is null, so the encounter's state is left as it was. The client gets the
``error`` with that code and message, on the first send and on every resend of the id.
A refusal before any die decides nothing: it is raised (:class:`RefusedBeforeDice`), not logged,
and the id may be sent again.

``arbiter replay --from-log`` re-derives a refused row with :func:`settle` from the same request,
state and recorded dice, under a dice budget of exactly the dice recorded (a row refused for the
budget rolled exactly the budget), and compares the refused outcome byte for byte.
"""

from __future__ import annotations

import logging
from typing import Any, Final, NamedTuple

from pydantic import BaseModel

from arbiter.bridge.engine.contract import JSON, Engine, EngineError
from arbiter.bridge.engine.dice import Dice, DiceError, ScriptedDiceError
from arbiter.bridge.engine.envelope import Request, RequestError, resolve_with
from arbiter.bridge.protocol_parsing import printable
from arbiter.compiler.model.common import RulesetBase

log = logging.getLogger("arbiter.decide")

REFUSED: Final = "refused"
"""The ``kind`` of a refused outcome's result."""


class Refusal(NamedTuple):
    """Why a request was refused: an error ``code`` of the protocol and its message."""

    code: str
    message: str


class RefusedBeforeDice(Exception):
    """Refused before any die was rolled: nothing was decided, nothing is logged."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def refusal_of(err: Exception, ruleset: str) -> Refusal:
    """The refusal an exception raised while resolving stands for.

    The engine's own refusals keep their message; anything else is an engine fault, said
    without its internals (the server's log has the traceback).
    """
    if isinstance(err, RequestError):
        return Refusal("invalid_request", printable(str(err)))
    if isinstance(err, EngineError):
        return Refusal("rules_forbid", printable(str(err)))
    if isinstance(err, DiceError):
        return Refusal("dice_error", printable(str(err)))
    return Refusal("internal", f"the {ruleset} engine failed on this request")


UNUSABLE = "the {} engine produced an unusable outcome"
"""The message of an ``internal`` refusal for an outcome that is not JSON."""


def pending_without_encounter(model: type[BaseModel], request: Request, body: Any) -> str | None:
    """Why ``request`` is refused before its dice when it could end awaiting a choice without
    an encounter to keep it in, else None.

    A request type that may stop halfway for a participant's choice (a combat-styles exchange
    whose winner picks special effects) names, as ``awaits_unless`` on its body model, the field
    that makes that choice in advance. Without an encounter the pending choice could never be
    made, and whether it would pend depends on the dice: so such a request names an encounter
    or carries that field (``[]`` for no choice), whatever its dice would be.
    """
    field: str | None = getattr(model, "awaits_unless", None)
    if request.encounter is not None or field is None or getattr(body, field) is not None:
        return None
    return (
        f"{request.type!r} without an encounter must carry {field!r} (the choice made in "
        "advance; [] for none): it may end awaiting a choice, which only an encounter can "
        f"keep. Name an encounter in the request's 'encounter', or send {field!r}"
    )


def settle(
    request: Request,
    engine: Engine,
    rules: RulesetBase,
    rules_hash: str,
    state: JSON | None,
    dice: Dice,
) -> JSON:
    """The outcome of ``request`` as the roll log keeps it (:func:`~arbiter.bridge.records.kept`).

    A refusal after at least one die is returned as the refused outcome; a refusal before any
    die raises :class:`RefusedBeforeDice`. :class:`~arbiter.bridge.engine.dice.ScriptedDiceError` (the
    dice given ran out or do not fit) propagates: it judges the dice, not the request.
    """
    try:
        outcome = resolve_with(request, engine, rules, rules_hash, state, dice)
    except ScriptedDiceError:
        raise
    except Exception as err:
        refusal = refusal_of(err, request.ruleset)
        if refusal.code == "internal":
            log.error("engine %s failed on %r", request.ruleset, request.type, exc_info=err)
        if not dice.records:
            raise RefusedBeforeDice(refusal) from err
        return refused_outcome(request, rules, rules_hash, refusal, dice)
    encounter = request.encounter  # once: a pydantic model's attribute goes through a hook
    status = outcome["result"].get("status")
    if encounter is None and isinstance(status, str) and status.startswith("awaiting"):
        # Only an encounter keeps the state a later request continues from. Requests that may
        # pend are refused before their dice (pending_without_encounter); this catches the rest.
        refusal = Refusal(
            "encounter_required",
            f"this {request.type!r} ends {status!r} and needs a later request to finish it, "
            "which only works inside an encounter: name one in the request's 'encounter'",
        )
        if not dice.records:
            raise RefusedBeforeDice(refusal)
        return refused_outcome(request, rules, rules_hash, refusal, dice)
    if encounter is None and outcome.get("state") is not None:
        # records.kept, without its copy of the envelope: resolve_with built this one for
        # this call (outcome_of), and nothing else holds it, so its state is dropped in place
        # (the key keeps its place, so the text is the copy's byte for byte).
        outcome["state"] = None
    return outcome  # kept (records.kept) without the call per request


def refused_outcome(
    request: Request, rules: RulesetBase, rules_hash: str, refusal: Refusal, dice: Dice
) -> JSON:
    """The outcome envelope that logs ``refusal`` as the decision of ``request``."""
    return {
        "id": request.id,
        "ruleset": request.ruleset,
        "type": request.type,
        "encounter": request.encounter,
        "rules_version": rules.ruleset.version,
        "rules_hash": rules_hash,
        "result": {"kind": REFUSED, "code": refusal.code, "message": refusal.message},
        "dice": [d.to_json() for d in dice.records],
        "state": None,
        "private": {},
    }


def refusal_in(outcome: JSON) -> Refusal | None:
    """The refusal a logged outcome records, or None for a decided outcome."""
    result = outcome.get("result")
    if isinstance(result, dict) and result.get("kind") == REFUSED:
        return Refusal(str(result.get("code")), str(result.get("message")))
    return None


__all__ = [
    "REFUSED",
    "UNUSABLE",
    "Refusal",
    "RefusedBeforeDice",
    "pending_without_encounter",
    "refusal_in",
    "refusal_of",
    "refused_outcome",
    "settle",
]
