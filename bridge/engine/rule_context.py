"""The rule data a request body is validated against: pydantic's validation context.

A stat block names weapons, armour and skills by their ids in the rule data, and which ids
exist depends on the rules the server serves (``bridge/rules.py``; a reload may change them);
so do the bounds of its numbers where the data gives them (combat-styles' ``stat_block_limits``).
The request models are shared by every snapshot of the rules, so the rules reach their
validators through pydantic's validation context: every place that validates a body or a
stat block for the server (the fast path of ``bridge/reading.py``, ``bridge/deciding.py``'s
``strict_body``, the ``check`` message of ``bridge/checking.py``, the engine envelope's
``validate_body``) passes :func:`validation_context` of the rules it decides with. A stat
block ``check`` accepts is then one every request of its ruleset accepts as a stat block.

The server's one-pass frame reader writes the same bounds into its own validator instead
(:func:`native_bounds`, once per snapshot): the request models keep their per-field checks, and
the error replies they give.

Without a context (a body built by hand in a test) only the shape is checked; the engines
still refuse what they cannot decide. This module imports pydantic, so mypyc leaves it
interpreted, like the request models that use it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from pydantic import AfterValidator, ValidationError, ValidationInfo
from pydantic_core import InitErrorDetails, PydanticCustomError, PydanticKnownError

from arbiter.compiler.model.common import RulesetBase

RULES = "arbiter.rules"
"""The context key under which the served rule models are found, by ruleset id."""

R = TypeVar("R", bound=RulesetBase)


def rules_of(context: object, ruleset: str, kind: type[R]) -> R | None:
    """The ``ruleset`` rules a validation runs under (``context``: its validation context, as
    ``model_post_init`` receives it), or None without them (or when the id is served with
    another kind of rules, as a test's small ruleset may be)."""
    # The exact types first (a dict, the served rules' mappingproxy): the usual case, without
    # the ABC's isinstance (every stat block of every request comes through here).
    if type(context) is not dict and not isinstance(context, Mapping):
        return None
    served: Any = context.get(RULES)
    if not (
        type(served) is dict or type(served) is MappingProxyType or isinstance(served, Mapping)
    ):
        return None
    found = served.get(ruleset)
    # pydantic models' isinstance goes through ABCMeta: the exact type is checked first.
    return found if type(found) is kind or isinstance(found, kind) else None


def unknown_ids(
    field: str, value: object, what: str, known: Mapping[str, object]
) -> list[InitErrorDetails]:
    """The problems of one field's ``value`` holding ids that must be keys of ``known`` (the
    engine's own index of the rule data's ``what`` entries by id, in the data's order):
    ``value`` is one id (or None), a list of ids (each problem at its index) or a mapping keyed
    by ids (each at its key). Each says, in the engine's own words,
    ``unknown weapon 'x' (known: a, b)``."""
    if value is None or (isinstance(value, str) and value in known):
        return []  # the usual cases, without building anything
    if isinstance(value, str):
        found: list[tuple[tuple[str | int, ...], str]] = [((field,), value)]
    elif isinstance(value, Mapping):
        found = [((field, k), k) for k in value if k not in known]
    elif isinstance(value, list | tuple):
        found = [((field, i), v) for i, v in enumerate(value) if v not in known]
    else:
        return []
    return [
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
    ]


BOUNDS = "arbiter.bounds"
"""The context key of the bounds :func:`within_limits` has read from its served rules: a cache
filled on first use, one per context, so a snapshot's bounds are read from its rules once."""

_UNBOUNDED: tuple[float, float] = (-math.inf, math.inf)
"""A cached "nothing to check": no served rules of the kind (the field is taken as it is)."""


VIEWS = "arbiter.views"
"""The context key of each ruleset's engine view of its served rules (None: not served), by
ruleset id: a cache the ruleset's stat block fills on first use (:func:`view_in`), so a block's
rule-data check starts with one lookup instead of finding the rules and their view again."""


def validation_context(rules: Mapping[str, RulesetBase]) -> dict[str, Any]:
    """The validation context carrying ``rules`` (ruleset id → its loaded rule model), with
    empty caches of the bounds read from them (:data:`BOUNDS`) and of their engines' views
    (:data:`VIEWS`)."""
    return {RULES: rules, BOUNDS: {}, VIEWS: {}}


V = TypeVar("V")


def view_in(
    context: object, ruleset: str, kind: type[RulesetBase], view: Callable[[Any], V]
) -> V | None:
    """``view`` of the ``ruleset`` rules in ``context`` (:func:`rules_of`), or None without
    them; kept in the context's :data:`VIEWS` cache when it has one. The usual caller looks the
    cache up itself first (``context[VIEWS][ruleset]``) and comes here on a miss."""
    rules = rules_of(context, ruleset, kind)
    found = None if rules is None else view(rules)
    cache = context.get(VIEWS) if isinstance(context, Mapping) else None
    if type(cache) is dict:
        cache[ruleset] = found
    return found


def _bound_of(
    context: object, ruleset: str, kind: type[RulesetBase], name: str
) -> tuple[float, float]:
    """The bound ``name`` of the ``ruleset`` rules in ``context``'s ``stat_block_limits`` as
    ``(min, max)`` (no max: infinity), or :data:`_UNBOUNDED` without those rules; kept in the
    context's :data:`BOUNDS` cache when it has one."""
    rules = rules_of(context, ruleset, kind)
    if rules is None:
        found = _UNBOUNDED
    else:
        bound = rules.__dict__["stat_block_limits"].__dict__[name]  # a Bound
        found = (bound.min, math.inf if bound.max is None else bound.max)
    cache = context.get(BOUNDS) if isinstance(context, Mapping) else None
    if type(cache) is dict:
        cache[_key(ruleset, kind, name)] = found
    return found


def _key(ruleset: str, kind: type[RulesetBase], name: str) -> str:
    """The :data:`BOUNDS` cache key of a bound: a string, whose hash Python keeps (a tuple's
    is computed on every lookup)."""
    return f"{ruleset}:{kind.__module__}.{kind.__qualname__}:{name}"


def within_limits(ruleset: str, kind: type[RulesetBase], name: str) -> AfterValidator:
    """A validator holding a stat-block field to the bound ``name`` of the served ``ruleset``
    rules' ``stat_block_limits`` (a :class:`~arbiter.compiler.model.common.Bound`): the field is
    a number, a mapping of numbers or a model of numbers (hmk ``attributes``), each held to the
    bound. A number outside is pydantic's own ``greater_than_equal``/``less_than_equal`` error
    at its own place (``skills.evade: Input should be less than or equal to 500``), reported
    with every other field's problem, as a bound written on the field would be. One call per
    field, not per number: a mapping within its bound costs a ``min`` and a ``max``. Without
    served rules in the context (a body built by hand) the field is taken as it is, as an
    unknown id is.

    Every stat block of every request passes here once per bounded field, so the usual case
    is kept short: the bound comes from the context's cache (:data:`BOUNDS`, read from the
    rules on the context's first use of it), and a value within it returns at once."""
    key = _key(ruleset, kind, name)

    def check(value: Any, info: ValidationInfo) -> Any:
        if value is None:
            return value
        context = info.context
        if context is None:
            return value  # a body built by hand: the shape alone
        try:
            low, high = context[BOUNDS][key]
        except (KeyError, TypeError):  # the context's first use of it, or a context without cache
            low, high = _bound_of(context, ruleset, kind, name)
        if type(value) is int:
            if low <= value <= high:
                return value  # the usual case
            if value < low:
                raise PydanticKnownError("greater_than_equal", {"ge": low})
            raise PydanticKnownError("less_than_equal", {"le": high})
        numbers: dict[str, Any] = value if type(value) is dict else value.__dict__
        if not numbers or (low <= min(numbers.values()) and max(numbers.values()) <= high):
            return value  # the usual case
        # Raised from a field's validator, each problem is reported under the field's place.
        raise ValidationError.from_exception_data(
            name,
            [
                InitErrorDetails(type="greater_than_equal", loc=(k,), input=v, ctx={"ge": low})
                if v < low
                else InitErrorDetails(type="less_than_equal", loc=(k,), input=v, ctx={"le": high})
                for k, v in numbers.items()
                if v < low or v > high
            ],
        )

    _LIMITED[check] = (ruleset, kind, name)
    return AfterValidator(check)


_LIMITED: dict[Any, tuple[str, type[RulesetBase], str]] = {}
"""Every :func:`within_limits` check made, to the bound it holds its field to: how
:func:`native_bounds` finds them in a core schema."""


def native_bounds(schema: Any, context: Mapping[str, Any], models: set[type]) -> Any:
    """``schema`` (a pydantic core schema) with each :func:`within_limits` check replaced by
    the same bound written on the field (``ge``/``le`` of its ints), read from ``context``'s
    rules: pydantic-core checks it in Rust, without a call into Python per field. A frame the
    result accepts is one ``schema`` accepts under ``context``, validated into the same models
    (their classes and ``model_post_init`` are the schema's own), and the other way round; a
    number out of bounds is the same ``greater_than_equal``/``less_than_equal`` error at the
    same place. A check whose field is not a number or a mapping of numbers is kept as it is.
    A number's default validated against its bound (``validate_default``: a block leaving it out
    is held to the bound) stays validated only when the served bound excludes it: one it takes
    would only be given back, on every block.

    The schema given is not changed: the result shares its unchanged parts (the very objects).
    Every model class whose schema changed is added to ``models``: pydantic-core must be kept
    from reusing such a class's own validator (``__pydantic_validator__``, which holds the
    checks) when it builds the result (:func:`arbiter.bridge.reading_validators.bounded_validator`).

    Built once per snapshot of the rules (:class:`arbiter.bridge.reading.FrameReader`)."""
    if type(schema) is list:
        items = [native_bounds(item, context, models) for item in schema]
        return schema if all(a is b for a, b in zip(items, schema, strict=True)) else items
    if type(schema) is not dict:
        return schema
    if schema.get("type") == "function-after":
        function = schema.get("function")
        limit = _limit_of(function.get("function")) if type(function) is dict else None
        if limit is not None:
            inner = native_bounds(schema["schema"], context, models)
            low, high = _bound_of(context, *limit)
            bounded = _bounded(inner, low, high)
            return {**schema, "schema": inner} if bounded is None else bounded
    changed = {key: native_bounds(value, context, models) for key, value in schema.items()}
    if (
        schema.get("type") == "default"
        and schema.get("validate_default") is True
        and _takes(changed["schema"], schema.get("default"))
    ):
        # A default validated against its bound (a number a block left out) that the served
        # bound takes: validating it on every block would only give it back.
        del changed["validate_default"]
    if all(changed.get(key) is value for key, value in schema.items()):
        return schema
    if schema.get("type") in ("model", "dataclass"):
        models.add(schema["cls"])
    return changed


def _limit_of(function: object) -> tuple[str, type[RulesetBase], str] | None:
    """The bound a :func:`within_limits` check holds its field to; None for any other function
    (one that cannot be hashed, a callable object pydantic accepts as well, among them)."""
    try:
        return _LIMITED.get(function)
    except TypeError:
        return None


def _bounded(schema: dict[str, Any], low: float, high: float) -> dict[str, Any] | None:
    """``schema`` with every number it takes held to ``low``–``high``, as :func:`within_limits`
    would hold it, or None when that cannot be written as a bound on the schema (then the
    check stays)."""
    kind = schema.get("type")
    if kind == "int":
        if any(key in schema for key in ("ge", "gt", "le", "lt", "multiple_of")):
            return None  # a bound of its own already: the check stays
        bounded = dict(schema)
        if low != -math.inf:
            bounded["ge"] = int(low)
        if high != math.inf:
            bounded["le"] = int(high)
        return bounded
    if kind == "model":
        # A bound on a field holding a model (hmk ``attributes``) stays a check: written into the
        # nested model's schema, it would hold only while pydantic-core builds that model from
        # this schema and not from the class's own validator (which lacks the parent's bound).
        # Kept as a check, a pydantic that reuses the class's validator loses speed, never a bound.
        return None
    part = _PARTS.get(kind) if type(kind) is str else None
    if part is not None:
        inner = schema.get(part)
        found = _bounded(inner, low, high) if type(inner) is dict else None
        return None if found is None else {**schema, part: found}
    return None


def _takes(schema: object, value: object) -> bool:
    """Whether ``schema`` is a plain int schema (bounded by :func:`_bounded` at most) that
    takes ``value`` as it is."""
    if type(schema) is not dict or schema.get("type") != "int" or type(value) is not int:
        return False
    if set(schema) - {"type", "ge", "le", "strict", "ref", "metadata"}:
        return False
    return schema.get("ge", value) <= value <= schema.get("le", value)


_PARTS = {"nullable": "schema", "dict": "values_schema"}
"""The part of a schema of each of these kinds that holds its numbers."""


def refuse(model: str, problems: list[InitErrorDetails]) -> None:
    """Raise ``problems`` as one ValidationError, when there are any. Raised from a model's
    ``model_post_init``, pydantic reports each under the model's place in the body
    (``body.combatants.0.skills.x``; a union's branch keeps its model's name,
    ``body.attacker.StatBlock.skills.x``)."""
    if problems:
        raise ValidationError.from_exception_data(model, problems)
