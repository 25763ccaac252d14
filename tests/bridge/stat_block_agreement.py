"""Does ``check`` agree with the requests? A harness for the per-ruleset property tests.

A stat block is judged twice, by the server's own functions under the served rules: by the
``check`` message (:func:`arbiter.bridge.checking.checked`, as ``put_stat_block`` is too) and
by every request of its ruleset that carries it, read and decided as the server does (the
one-pass reader, the slow path's :func:`~arbiter.bridge.deciding.strict_body`, then
:func:`~arbiter.bridge.refusals.settle` with keyed dice). :func:`verdict` says whether a
request refused the block *for a stat-block reason*: a body problem inside the block, or an
engine refusal in :data:`BLOCK_REFUSALS` (the words the engines use for a block they cannot
use), or an engine failure (``internal``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from pydantic_core import to_json

from arbiter.bridge.checking import Check, checked
from arbiter.bridge.deciding import strict_body
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.reading import Sent
from arbiter.bridge.refusals import RefusedBeforeDice, refusal_in, settle
from arbiter.bridge.rules import RuleSource, RulesSnapshot, snapshot

JSON = dict[str, Any]
Problems = set[tuple[str, str]]

BLOCK_REFUSALS = re.compile(
    r"unknown (weapon|armor|armour|skill|style|trait|location|hit location|body plan|fatigue"
    r"|hand)|is listed twice|needs \d+ hand\(s\)|not in the weapons list"
)
"""Engine words for a stat block naming what the rule data lacks (or holding its weapons in
hands it cannot): the body's validation says these for every ruleset, so the engine never
should."""


def served() -> RulesSnapshot:
    """The bundled rules, served as the server serves them."""
    return snapshot(RuleSource().load())


def check(rules: RulesSnapshot, ruleset: str, block: JSON) -> Problems:
    """The ``check`` message's problems for ``block``: (field, message) pairs."""
    message = Check(v=1, type="check", id="c", ruleset=ruleset, stat_block=block)
    answer = checked(message, rules.models)
    assert answer.ok == (not answer.problems)
    return {(p.field, p.message) for p in answer.problems}


@dataclass
class Verdict:
    """How one request judged the block placed at ``slot`` (a path into its body)."""

    kind: str
    block_problems: Problems = field(default_factory=set)
    """Body problems inside the block, as (field from the block's root, message)."""
    refusal: str | None = None
    """Any refusal: its code and message."""
    for_block: bool = False
    """Refused for a stat-block reason."""


def _inside(loc: tuple[Any, ...], slot: tuple[Any, ...]) -> str | None:
    """The field path of ``loc`` from the block's root when ``loc`` is inside ``slot`` (a
    union's ``StatBlock`` branch counts; its other branches, which the block is not, don't)."""
    if loc[: len(slot)] != slot:
        return None
    rest = loc[len(slot) :]
    if rest and rest[0] == "StatBlock":
        rest = rest[1:]
    elif rest and isinstance(rest[0], str) and "str" in rest[0]:
        return None  # the branch naming a combatant by id: not the block's problem
    return ".".join(str(p) for p in rest)


def verdict(
    rules: RulesSnapshot, ruleset: str, kind: str, body: JSON, slot: tuple[Any, ...]
) -> Verdict:
    """Read and decide a ``kind`` request carrying the block at ``slot`` of ``body``, as the
    server does; the fast path and the slow path must agree on whether the body is valid."""
    server = rules.served[ruleset]
    model = server.engine.requests[kind]
    request = Request(id=f"r-{kind}", ruleset=ruleset, type=kind, body=body)
    frame = json.dumps({"v": 1, "type": "request", "request": request.model_dump()})
    fast = rules.reader.read(frame)
    found = Verdict(kind)
    try:
        typed = strict_body(model, request, rules.context)
    except ProtocolError as err:
        assert fast is None, f"the fast path accepted what strict_body refused: {err}"
        assert err.code == "invalid_request"
        found.refusal = f"{err.code}: {err}"
        try:
            text = to_json(body, inf_nan_mode="constants")
            model.model_validate_json(text, strict=True, context=rules.context)
        except ValidationError as problems:
            for e in problems.errors():
                path = _inside(tuple(e["loc"]), slot)
                if path is not None:
                    found.block_problems.add((path, e["msg"]))
        found.for_block = bool(found.block_problems)
        return found
    assert isinstance(fast, Sent), "strict_body accepted what the fast path refused"
    assert fast.message.request.body == typed.body
    dice = Dice(KeyedSource(b"agreement" * 4))
    try:
        outcome = settle(typed, server.engine, server.ruleset.model, "h", None, dice)
    except RefusedBeforeDice as refused:
        code, message = refused.refusal.code, refused.refusal.message
    else:
        refusal = refusal_in(outcome)
        if refusal is None:
            return found
        code, message = refusal.code, refusal.message
    found.refusal = f"{code}: {message}"
    found.for_block = code == "internal" or bool(BLOCK_REFUSALS.search(message))
    return found


def agree(rules: RulesSnapshot, ruleset: str, block: JSON, verdicts: list[Verdict]) -> Problems:
    """Assert the two properties for one block; returns check's problems.

    * Whatever ``check`` accepts, no request refuses for a stat-block reason.
    * Whatever a request refuses for a stat-block reason, ``check`` refuses with exactly the
      same fields and messages (the same validation of the same model, under the same rules).
    """
    problems = check(rules, ruleset, block)
    for v in verdicts:
        if not problems:
            assert not v.for_block, f"check accepts {block!r} but {v.kind} refused: {v.refusal}"
        if v.for_block:
            assert v.block_problems == problems, (block, v.kind, v.refusal)
        if problems:
            # And the other way round: a block check refuses is refused by every request.
            assert v.block_problems == problems, (block, v.kind, v.refusal)
    return problems
