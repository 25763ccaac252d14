"""Deciding one request message: idempotency, rules lookup, engine call, log row.

:func:`decide` runs synchronously between two awaits, so no other request interleaves with its
read-state → resolve → stage sequence (the single-writer rule for encounter state). It returns
the *staged* row: the caller answers only after the store has committed it (the server commits
every row staged in one event-loop turn at once — group commit).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError, to_json

from bridge.engine.contract import EngineError
from bridge.engine.dice import DiceError, DiceSource, KeyedSource, ScriptedSource
from bridge.engine.envelope import Request, RequestError, resolve
from bridge.jsontext import not_unicode
from bridge.limits import BudgetedSource
from bridge.outcomes import OutcomeText
from bridge.protocol import ProtocolError, RequestMessage
from bridge.rules import RulesSnapshot
from bridge.store import NewRoll, Roll, Store, canonical, kept

log = logging.getLogger("arbiter.decide")


@dataclass(frozen=True)
class Decided:
    """A logged outcome: ``replayed`` when the id had been decided before."""

    row: Roll
    outcome: dict[str, Any]
    text: OutcomeText
    """The outcome serialised: the logged text and every client's view come from it."""
    replayed: bool


@dataclass(frozen=True)
class Context:
    """Who asks, with which dice, under which limits."""

    session: str
    user: str
    keyed: KeyedSource
    allow_scripted_dice: bool
    max_dice: int


def decide(
    message: RequestMessage, rules: RulesSnapshot, store: Store, ctx: Context, now: float
) -> Decided:
    """Decide and log ``message.request``; raises ProtocolError naming why it was refused."""
    request = message.request
    rid = request.id
    stored = store.find(rid)
    if stored is not None:
        try:
            sent = canonical(request.model_dump(mode="json"))
        except (TypeError, ValueError):
            # Not Unicode (a lone surrogate in the body): never the logged request, which was
            # written as UTF-8; name the field as a new request's validation would.
            raise ProtocolError(
                "invalid_request",
                f"invalid {request.type!r} request: "
                f"{not_unicode(request.body, 'body') or 'body: not JSON'}",
                rid,
            ) from None
        if canonical(json.loads(stored.entry.request)) != sent:
            raise ProtocolError(
                "id_conflict",
                f"request id {rid!r} was already used (log row {stored.seq}) for a different "
                "request; a retry must resend the same request, a new request needs a new id",
                rid,
            )
        outcome = json.loads(stored.entry.outcome)
        return Decided(stored, outcome, OutcomeText(outcome), replayed=True)

    served = rules.served.get(request.ruleset)
    if served is None:
        known = ", ".join(sorted(rules.served)) or "none"
        raise ProtocolError(
            "unknown_ruleset", f"unknown ruleset {request.ruleset!r} (served: {known})", rid
        )
    if request.type not in served.engine.requests:
        known = ", ".join(sorted(served.engine.requests))
        raise ProtocolError(
            "unknown_request_type",
            f"unknown request type {request.type!r} for ruleset {request.ruleset!r} "
            f"(known: {known})",
            rid,
        )

    state = None
    if request.encounter is not None:
        encounter = store.encounter(request.encounter)
        if encounter is not None:
            if encounter.ruleset != request.ruleset:
                raise ProtocolError(
                    "encounter_mismatch",
                    f"encounter {request.encounter!r} is a {encounter.ruleset} encounter, "
                    f"not {request.ruleset}",
                    rid,
                )
            state = encounter.state

    source: DiceSource
    counter: int | None
    if message.dice is not None:
        if not ctx.allow_scripted_dice:
            raise ProtocolError(
                "scripted_dice_refused",
                "this server decides every die itself; 'dice' is accepted only when it runs "
                "with --allow-scripted-dice (tests)",
                rid,
            )
        source, counter = ScriptedSource(message.dice), None
    else:
        source, counter = ctx.keyed, ctx.keyed.counter

    typed = strict_body(served.engine.requests[request.type], request)
    budget = BudgetedSource(source, ctx.max_dice)
    ruleset = served.ruleset
    try:
        outcome = resolve(typed, served.engine, ruleset.model, ruleset.content_hash, state, budget)
    except RequestError as err:
        raise ProtocolError("invalid_request", str(err), rid) from None
    except EngineError as err:
        raise ProtocolError("rules_forbid", str(err), rid) from None
    except DiceError as err:
        raise ProtocolError("dice_error", str(err), rid) from None
    status = outcome["result"].get("status")
    if request.encounter is None and isinstance(status, str) and status.startswith("awaiting"):
        # Only an encounter keeps the state a later request continues from; without one the
        # pending choice could never be made, so refuse before anything is logged.
        raise ProtocolError(
            "encounter_required",
            f"this {request.type!r} ends {status!r} and needs a later request to finish it, "
            "which only works inside an encounter: name one in the request's 'encounter'",
            rid,
        )
    outcome = kept(outcome, request.encounter)
    if isinstance(source, ScriptedSource) and source.remaining:
        raise ProtocolError(
            "dice_error", f"{source.remaining} scripted dice were not used by the request", rid
        )
    try:
        text = OutcomeText(outcome)
    except (TypeError, ValueError) as err:
        # An engine bug, not the client's fault: say so without leaking internals.
        log.exception("engine %s returned an outcome that is not JSON", request.ruleset)
        raise ProtocolError(
            "internal", f"the {request.ruleset} engine produced an unusable outcome", rid
        ) from err

    row = store.stage(
        NewRoll(
            request_id=rid,
            session=ctx.session,
            user=ctx.user,
            ruleset=request.ruleset,
            type=request.type,
            encounter=request.encounter,
            rules_hash=ruleset.content_hash,
            request=request.model_dump_json(),
            dice=text.dice,
            outcome=text.logged,
            counter=counter,
            scripted=counter is None,
            time=now,
        )
    )
    return Decided(row, outcome, text, replayed=False)


def strict_body(model: type[BaseModel], request: Request) -> Request:
    """``request`` with its body validated by ``model`` in strict JSON mode, or ProtocolError.

    Strict as the rule files are: a number is a JSON number (``"5"`` is not 5), a string a JSON
    string, ``true`` a boolean. The body is validated from its JSON text, so JSON's own forms
    (an array for a tuple, a string for an enum) are accepted as they are in every message.
    The request handed back carries the validated body, so the engine's own validation
    (:func:`~bridge.engine.envelope.validate_body`) takes it as it is instead of validating it
    a second time; the request as the client sent it is what the log keeps.
    """
    try:
        try:
            # pydantic's own serialiser: several times faster than json.dumps for a body.
            text = to_json(request.body, inf_nan_mode="constants")
        except PydanticSerializationError:
            # Only text that is not Unicode (a lone surrogate) cannot be written: the
            # Python-mode validation names the field holding it.
            model.model_validate(request.body)
            problems = not_unicode(request.body, "body") or "body: not JSON"
        else:
            return request.model_copy(update={"body": model.model_validate_json(text, strict=True)})
    except ValidationError as err:
        problems = "; ".join(
            f"body.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors()
        )
    raise ProtocolError(
        "invalid_request", f"invalid {request.type!r} request: {problems}", request.id
    )
