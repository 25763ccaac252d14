"""Deciding one request message: idempotency, rules lookup, engine call, log row.

:func:`decide` runs synchronously between two awaits, so no other request interleaves with its
read-state → resolve → stage sequence (the single-writer rule for encounter state). It returns
the *staged* row: the caller answers only after the store has committed it (the server commits
every row staged in one event-loop turn at once — group commit).

A request id is decided once (:mod:`arbiter.bridge.refusals`): what can refuse before the first die
raises ProtocolError and logs nothing; a refusal after dice is staged as the id's outcome, and
the :class:`Decided` says so in ``refusal`` (the reply is then that error, on every resend).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError, to_json

from arbiter.bridge.admission import _admitted
from arbiter.bridge.engine.dice import (
    Dice,
    DiceSource,
    KeyedSource,
    ScriptedDiceError,
    ScriptedSource,
)
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.engine.field_errors import field_errors
from arbiter.bridge.jsontext import not_unicode
from arbiter.bridge.limits import BudgetedSource
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.reading import Sent
from arbiter.bridge.records import canonical_bytes
from arbiter.bridge.refusals import (
    REFUSED,
    UNUSABLE,
    Refusal,
    RefusedBeforeDice,
    pending_without_encounter,
    refusal_in,
    refused_outcome,
    settle,
)
from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.store import NewRoll, Roll, canonical
from arbiter.bridge.stores import WorldStore
from arbiter.bridge.views import OutcomeText

log = logging.getLogger("arbiter.decide")

_new_roll = tuple.__new__
"""``tuple.__new__(NewRoll, fields)``: a :class:`NewRoll` of its fields in column order."""
_new_decided = tuple.__new__
"""``tuple.__new__(Decided, fields)``: a :class:`Decided` without its Python-level __new__."""
# The positional build below writes the fields in column order: a reordered NewRoll would
# silently log (and hash) other columns, so arbiter.bridge.records stops the import instead
# (its check against arbiter.bridge.pure.chain.COLUMNS, which roll_hash reads by position too).


class Decided(NamedTuple):
    """A logged outcome: ``replayed`` when the id had been decided before.

    A named tuple, as immutable as a frozen dataclass and built without its per-field
    ``object.__setattr__`` (one per request)."""

    row: Roll
    outcome: dict[str, Any]
    text: OutcomeText
    """The outcome serialised: the logged text and every client's view come from it."""
    replayed: bool
    refusal: Refusal | None = None
    """Set when the logged outcome is a refusal after dice: the reply is this error, on the
    first send and on every resend of the id."""


@dataclass(frozen=True)
class Context:
    """Who asks, with which dice, under which limits."""

    session: str
    user: str
    keyed: KeyedSource
    allow_scripted_dice: bool
    max_dice: int
    player: str | None = None
    """The player record the request is decided for (his connection's, or the GM's relay for
    him); None for the GM's own. Logged as the row's ``player``: whose the row is."""


def decide(
    message: RequestMessage | Sent,
    rules: RulesSnapshot,
    store: WorldStore,
    ctx: Context,
    now: float,
    unlogged: bool = False,
) -> Decided:
    """Decide and log ``message.request``; raises ProtocolError naming why it was refused.

    ``message`` read by the fast path (:class:`~arbiter.bridge.reading.Sent`) carries its body
    validated already; otherwise the body is validated here (:func:`strict_body`), after the
    idempotency lookup and the checks of the ruleset, type and encounter, as it always was.
    ``unlogged``: the caller has just found the id not logged (no await since), so the
    idempotency lookup is not made again.
    """
    written: dict[str, Any] | str | None
    typed: Request | None
    if isinstance(message, Sent):
        # The log's text of the envelope when the reader made it (Sent.text); else its values.
        written = message.text
        if written is None:
            written = message.request
        # Its request and dice as read: the message around them is not built for deciding.
        request = typed = message.typed
    else:
        written, typed = None, None
        request = message.request
    # Each field read once: a pydantic model's attribute goes through its __getattr__ hook.
    rid, ruleset_name, type_name, encounter = (
        request.id,
        request.ruleset,
        request.type,
        request.encounter,
    )
    scripted_dice = message.dice
    # ``unlogged``: looked up by the caller in the same synchronous turn, not logged.
    stored = None if unlogged else store.find(rid)
    if stored is not None:
        sent = request_json(request, written)
        if stored.entry.request.encode() != sent and canonical(
            envelope_values(stored.entry.request)
        ) != canonical(envelope_values(sent)):
            # The same request may be written with its keys in another order, other
            # whitespace, or its defaults left out: compare the canonical forms of its values
            # when the texts differ.
            raise ProtocolError(
                "id_conflict",
                f"request id {rid!r} was already used (log row {stored.seq}) for a different "
                "request; a retry must resend the same request, a new request needs a new id",
                rid,
            )
        # The logged texts as they are: a resend is answered with the outcome's logged text,
        # not a second serialisation of it (as a gap replay of the row is).
        text = OutcomeText.of_row(stored.entry)
        outcome = text.outcome
        return Decided(stored, outcome, text, replayed=True, refusal=refusal_in(outcome))

    served, state = _admitted(
        rid,
        ruleset_name,
        type_name,
        encounter,
        scripted_dice is not None,
        rules,
        store,
        ctx.allow_scripted_dice,
    )
    source: DiceSource
    counter: int | None
    if scripted_dice is not None:
        source, counter = ScriptedSource(scripted_dice), None
    else:
        keyed = ctx.keyed
        source, counter = keyed, keyed.counter

    model = served.engine.requests[type_name]
    if typed is None:
        typed = strict_body(model, request, rules.context)
    if encounter is None:
        pending = pending_without_encounter(model, request, typed.body)
        if pending is not None:
            raise ProtocolError("encounter_required", pending, rid)
    ruleset = served.ruleset
    # From the first die on, the id's outcome is decided: settle() logs a refusal after dice
    # as the outcome (see arbiter.bridge.refusals), so a resend of the id can never roll again.
    dice = Dice(BudgetedSource(source, ctx.max_dice))
    try:
        outcome = settle(typed, served.engine, ruleset.model, ruleset.content_hash, state, dice)
    except RefusedBeforeDice as refused:
        raise ProtocolError(refused.refusal.code, refused.refusal.message, rid) from None
    except ScriptedDiceError as err:
        # The dice the client scripted do not fit the request: nothing is decided (with the
        # same dice, a resend is refused the same way).
        raise ProtocolError("dice_error", str(err), rid) from None
    if isinstance(source, ScriptedSource) and source.remaining and refusal_in(outcome) is None:
        # Dice left over are the script's fault too (a refusal after dice stays logged).
        raise ProtocolError(
            "dice_error", f"{source.remaining} scripted dice were not used by the request", rid
        )
    try:
        text = OutcomeText(outcome)
    except (TypeError, ValueError) as err:
        # An engine bug, not the client's fault: say so without leaking internals.
        log.exception("engine %s returned an outcome that is not JSON", ruleset_name)
        reason = UNUSABLE.format(ruleset_name)
        if not dice.records:
            raise ProtocolError("internal", reason, rid) from err
        outcome = refused_outcome(
            typed, ruleset.model, ruleset.content_hash, Refusal("internal", reason), dice
        )
        text = OutcomeText(outcome)

    if type(written) is str:
        # The compact JSON of the envelope's values, made by the reader: logged and hashed.
        logged_text, logged_request = written, written.encode()
    else:
        logged_request = request_json(request, written)
        logged_text = logged_request.decode()
    # The row's fields in column order (NewRoll's), built without NamedTuple's keyword
    # constructor: a Python-level __new__ taking 14 keywords, for every decided request.
    roll = _new_roll(
        NewRoll,
        (
            rid,  # request_id
            ctx.session,
            ctx.user,
            ruleset_name,
            type_name,
            encounter,
            ruleset.content_hash,  # rules_hash
            logged_text,  # request
            text.dice,
            text.logged,  # outcome
            counter,
            counter is None,  # scripted
            now,  # time
            ctx.player,
        ),
    )
    row = store.stage(roll, (logged_request, text.dice_bytes, text.logged_bytes))
    result = outcome.get("result")
    refusal = (
        refusal_in(outcome) if isinstance(result, dict) and result.get("kind") == REFUSED else None
    )
    return _new_decided(Decided, (row, outcome, text, False, refusal))


def request_json(request: Request, written: dict[str, Any] | str | None) -> bytes:
    """The request as the roll log keeps it (UTF-8): the compact JSON of the envelope's values
    the reader made (``written`` a str: :attr:`Sent.text`); else compact JSON of
    the envelope the client wrote, its keys in the order written (``written``, from the fast
    path; else ``request``, whose body is still as written).

    Raises ProtocolError ``invalid_request`` naming the field for text that is not Unicode
    (a lone surrogate), which the log, written as UTF-8, can never hold.
    """
    if type(written) is str:
        return written.encode()  # the reader refuses text that is not Unicode
    if written is None:
        written = {
            "id": request.id,
            "ruleset": request.ruleset,
            "type": request.type,
            "body": request.body,
            "encounter": request.encounter,
        }
    assert isinstance(written, dict)
    try:
        return orjson.dumps(written)
    except TypeError:
        pass  # an integer beyond 64 bits (or text that is not Unicode): see canonical
    try:
        return canonical_bytes(written)
    except (TypeError, ValueError):
        raise ProtocolError(
            "invalid_request",
            f"invalid {request.type!r} request: "
            f"{not_unicode(written['body'], 'body') or 'body: not JSON'}",
            request.id,
        ) from None


def envelope_values(text: str | bytes) -> dict[str, Any]:
    """The request envelope a log row's ``request`` text holds, as values, its defaults filled
    in (``body`` ``{}``, ``encounter`` null): a row written by an older server always wrote
    them, one the reader made may leave them out (as the client did); the same request either way."""
    values: dict[str, Any] = json.loads(text)
    if isinstance(values, dict):
        values.setdefault("body", {})
        values.setdefault("encounter", None)
    return values


def strict_body(
    model: type[BaseModel], request: Request, context: dict[str, Any] | None = None
) -> Request:
    """``request`` with its body validated by ``model`` in strict JSON mode, or ProtocolError.
    ``context``: the served rules (:attr:`RulesSnapshot.context`), so a stat block naming an id
    the rule data lacks is refused here, field by field, before any die.

    Strict as the rule files are: a number is a JSON number (``"5"`` is not 5), a string a JSON
    string, ``true`` a boolean. The body is validated from its JSON text, so JSON's own forms
    (an array for a tuple, a string for an enum) are accepted as they are in every message.
    The request handed back carries the validated body, so the engine's own validation
    (:func:`~arbiter.bridge.engine.envelope.validate_body`) takes it as it is instead of validating it
    a second time; the request as the client sent it is what the log keeps.
    """
    try:
        try:
            # pydantic's own serialiser: several times faster than json.dumps for a body.
            text = to_json(request.body, inf_nan_mode="constants")
        except PydanticSerializationError:
            # Only text that is not Unicode (a lone surrogate) cannot be written: the
            # Python-mode validation names the field holding it.
            model.model_validate(request.body, context=context)
            problems = not_unicode(request.body, "body") or "body: not JSON"
        else:
            body = model.model_validate_json(text, strict=True, context=context)
            return request.model_copy(update={"body": body})
    except ValidationError as err:
        problems = "; ".join(
            f"body.{path}: {message}" for path, message in field_errors(model, request.body, err)
        )
    raise ProtocolError(
        "invalid_request", f"invalid {request.type!r} request: {problems}", request.id
    )
