"""Admitting a request before its body is read: the served ruleset and request type, its
encounter's ruleset, scripted dice (:func:`admitted`); what refuses here refuses whatever the
body holds (:data:`BODY_BLIND`)."""

from __future__ import annotations

from typing import Any

from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.rules import RulesSnapshot, Served
from arbiter.bridge.stores import WorldStore

BODY_BLIND = frozenset({"unknown_ruleset", "scripted_dice_refused"})
"""The refusal codes only :func:`admitted` raises (nothing else in deciding or the engines
does), whose words and whose raising depend on nothing in the request's body, so on no stat
block it names: a player hears them verbatim even for a request naming the GM's blocks
(:mod:`arbiter.bridge.stat_block_vault`). ``unknown_request_type`` and
``encounter_mismatch``, raised there too, do not depend on a block either, but are not
listed: they are shielded like every other refusal."""


def admitted(
    message: RequestMessage, rules: RulesSnapshot, store: WorldStore, allow_scripted_dice: bool
) -> tuple[Served, Any]:
    """The served ruleset of a request whose id is not logged yet, and its encounter's state
    (None: a new encounter, or none); raises ProtocolError for what refuses it whatever its
    body holds, in this order: ``unknown_ruleset``, ``unknown_request_type``,
    ``encounter_mismatch``, ``scripted_dice_refused``. Reads the store, writes nothing."""
    request = message.request
    return _admitted(
        request.id,
        request.ruleset,
        request.type,
        request.encounter,
        message.dice is not None,
        rules,
        store,
        allow_scripted_dice,
    )


def _admitted(
    rid: str,
    ruleset: str,
    type_name: str,
    encounter_id: str | None,
    scripted: bool,
    rules: RulesSnapshot,
    store: WorldStore,
    allow_scripted_dice: bool,
) -> tuple[Served, Any]:
    """:func:`admitted` of a request's fields, read once by the caller."""
    served = rules.served.get(ruleset)
    if served is None:
        known = ", ".join(sorted(rules.served)) or "none"
        raise ProtocolError(
            "unknown_ruleset", f"unknown ruleset {ruleset!r} (served: {known})", rid
        )
    if type_name not in served.engine.requests:
        known = ", ".join(sorted(served.engine.requests))
        raise ProtocolError(
            "unknown_request_type",
            f"unknown request type {type_name!r} for ruleset {ruleset!r} (known: {known})",
            rid,
        )
    state = None
    if encounter_id is not None:
        encounter = store.encounter(encounter_id)
        if encounter is not None:
            if encounter.ruleset != ruleset:
                raise ProtocolError(
                    "encounter_mismatch",
                    f"encounter {encounter_id!r} is a {encounter.ruleset} encounter, not {ruleset}",
                    rid,
                )
            state = encounter.state
    if scripted and not allow_scripted_dice:
        raise ProtocolError(
            "scripted_dice_refused",
            "this server decides every die itself; 'dice' is accepted only when it runs "
            "with --allow-scripted-dice (tests)",
            rid,
        )
    return served, state
