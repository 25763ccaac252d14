"""The rule data a request body is validated against: pydantic's validation context.

A stat block names weapons, armour and skills by their ids in the rule data, and which ids
exist depends on the rules the server serves (``bridge/rules.py``; a reload may change them).
The request models are shared by every snapshot of the rules, so the rules reach their
validators through pydantic's validation context: every place that validates a body or a
stat block for the server (the fast path of ``bridge/reading.py``, ``bridge/deciding.py``'s
``strict_body``, the ``check`` message of ``bridge/checking.py``, the engine envelope's
``validate_body``) passes :func:`validation_context` of the rules it decides with. A stat
block ``check`` accepts is then one every request of its ruleset accepts as a stat block.

Without a context (a body built by hand in a test) only the shape is checked; the engines
still refuse what they cannot decide. This module imports pydantic, so mypyc leaves it
interpreted, like the request models that use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError, ValidationInfo
from pydantic_core import InitErrorDetails, PydanticCustomError

from arbiter.compiler.model.common import RulesetBase

RULES = "arbiter.rules"
"""The context key under which the served rule models are found, by ruleset id."""

R = TypeVar("R", bound=RulesetBase)


def validation_context(rules: Mapping[str, RulesetBase]) -> dict[str, Any]:
    """The validation context carrying ``rules`` (ruleset id → its loaded rule model)."""
    return {RULES: rules}


def rules_of(info: ValidationInfo, ruleset: str, kind: type[R]) -> R | None:
    """The ``ruleset`` rules the validation runs under, or None without them (or when the id
    is served with another kind of rules, as a test's small ruleset may be)."""
    context = info.context
    if not isinstance(context, Mapping):
        return None
    served = context.get(RULES)
    if not isinstance(served, Mapping):
        return None
    found = served.get(ruleset)
    return found if isinstance(found, kind) else None


def check_ids(value: object, what: str, known: Sequence[str]) -> None:
    """Refuse every id in a field's ``value`` that is no ``what`` of the rule data (``known``):
    ``value`` is one id (or None), a list of ids (each problem at its index) or a mapping keyed
    by ids (each at its key). Raised from a field validator, pydantic reports each problem under
    the field (``skills.x``, ``weapons.1``), with the engine's own words: ``unknown weapon 'x'
    (known: a, b)``."""
    if value is None:
        return
    if isinstance(value, str):
        found: list[tuple[tuple[str | int, ...], str]] = [((), value)]
    elif isinstance(value, Mapping):
        found = [((k,), k) for k in value]
    elif isinstance(value, list | tuple):
        found = [((i,), v) for i, v in enumerate(value)]
    else:
        return
    allowed = set(known)
    problems = [
        InitErrorDetails(
            # A custom error type with no context: pydantic shows the message as it is (no
            # "Value error, " prefix, and braces in an id are not taken for a template).
            type=PydanticCustomError(
                "unknown_id", f"unknown {what} {v!r} (known: {', '.join(known)})"
            ),
            loc=loc,
            input=v,
        )
        for loc, v in found
        if v not in allowed
    ]
    if problems:
        raise ValidationError.from_exception_data(what, problems)
