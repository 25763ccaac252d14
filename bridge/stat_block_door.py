"""A request naming stored stat blocks, read without validating those blocks again.

A request may name the GM's stored block where a stat block goes (``{"id": "orc-1",
"stored": true}``, :mod:`arbiter.bridge.stat_block_references`). Filling the blocks into the
body and validating it whole would validate every stored block again on every request (most
of a combat-styles exchange's validation: its two blocks). Instead:

* :func:`referencing` makes, for a request type whose body holds stat blocks, a *referencing*
  body model: the same model (a subclass, its other fields, constraints and validators as
  they are), where each place holding a stat block also takes a reference
  (:class:`StoredRef`). The fast path of :mod:`arbiter.bridge.reading` validates a frame
  naming stored blocks with it, strictly, in one pass; a reference costs two fields.
* :func:`validated_block` validates a stored block once per rules snapshot (the vault keeps
  it, :meth:`arbiter.bridge.stat_block_vault.Vault.resolve`), exactly as a block inside a body
  is validated (strict, from its JSON text, under the served rules).
* :func:`plugged` then builds the request type's own body model from the referencing one,
  each reference replaced by the stored block's validated model (and, for a player, each
  block of a participant he does not hold by the GM's). The result equals what validating the
  filled-in body whole gives, field for field, ``model_fields_set`` included: a stat block
  inside a body is validated by its own model's validator, independently of its siblings.

Anything this cannot take (a reference where a block does not go, a stored block the rules
now refuse, a place of a shape it does not know) is left to the full validation of the
filled-in body, so every refusal keeps its words. The engines only read the blocks they are
given (each builds its own records from them), so one validated block serves every request.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from functools import cache
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic_core import PydanticSerializationError, to_json

from arbiter.bridge.stat_blocks import STAT_BLOCKS


class StoredRef(BaseModel):
    """A reference to a stored block, as :func:`~arbiter.bridge.stat_block_references.is_reference`
    reads one: exactly ``id`` (a string) and ``stored`` (``true``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str
    stored: Literal[True]


_REAL: dict[type[BaseModel], type[BaseModel]] = {}
"""Each referencing model → the model it stands for."""
_HOLDING: dict[type[BaseModel], tuple[str, ...]] = {}
"""Each model that has a referencing variant → its fields that may hold a stat block."""


def referencing(ruleset: str, model: type[BaseModel]) -> type[BaseModel] | None:
    """``model`` (a ``ruleset`` request body) whose stat-block places also take a reference
    (None: it holds no stat block, or one in a place this module does not rebuild)."""
    block = STAT_BLOCKS.get(ruleset)
    return None if block is None else _variant(model, block)


@cache
def _variant(model: type[BaseModel], block: type[BaseModel]) -> type[BaseModel] | None:
    changed: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        annotation = _annotation(field.annotation, block)
        if annotation is None:
            continue
        if field.alias not in (None, name) or field.validation_alias not in (None, name):
            return None  # plugged() rebuilds by field name
        info = FieldInfo.merge_field_infos(field)
        changed[name] = (annotation, info)
    if (
        not changed
        or model.__pydantic_post_init__ is not None
        or model.__private_attributes__
        or model.model_config.get("extra") == "allow"
    ):
        # No block; or a model whose instances hold more than their fields (_built).
        return None
    variant: type[BaseModel] = create_model(
        f"Referencing{model.__name__}", __base__=model, __module__=__name__, **changed
    )
    if list(variant.model_fields) != list(model.model_fields):
        return None  # _built keeps the validated fields in their order
    _REAL[variant] = model
    _HOLDING[model] = tuple(changed)
    return variant


def _annotation(annotation: Any, block: type[BaseModel]) -> Any:
    """``annotation`` with each stat block taking a reference too (None: unchanged)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if issubclass(annotation, block):
            # A reference first (the usual value here, cheap to refuse otherwise). The two are
            # exclusive (no block has a ``stored`` field, and each requires more than an id),
            # so an inline block is validated exactly as before.
            return Annotated[
                Union[StoredRef, annotation],  # noqa: UP007
                Field(union_mode="left_to_right"),
            ]
        return _variant(annotation, block)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        inner = _annotation(args[0], block)
        return None if inner is None else Annotated[(inner, *annotation.__metadata__)]
    if origin is Union or origin is types.UnionType:
        members = [_annotation(arg, block) for arg in args]
        if all(m is None for m in members):
            return None
        return Union[tuple(m if m is not None else a for m, a in zip(members, args, strict=True))]  # noqa: UP007
    if origin is list and len(args) == 1:
        inner = _annotation(args[0], block)
        return None if inner is None else list[inner]  # type: ignore[valid-type]
    if origin is dict and len(args) == 2:
        inner = _annotation(args[1], block)
        return None if inner is None else dict[args[0], inner]  # type: ignore[valid-type]
    return None


def is_referencing(body: object) -> bool:
    """Whether ``body`` was validated by a referencing model (:func:`referencing`): it must
    be :func:`plugged` before it is decided."""
    return type(body) in _REAL


def validated_block(ruleset: str, block: Any, context: Mapping[str, Any]) -> BaseModel | None:
    """``block`` (a stored block as JSON values) validated as a request body's stat block is:
    strict, from its JSON text, under ``context`` (the served rules); None when refused."""
    try:
        text = to_json(block, inf_nan_mode="constants")
        return STAT_BLOCKS[ruleset].model_validate_json(text, strict=True, context=context)
    except (ValidationError, PydanticSerializationError):
        return None


_set = object.__setattr__
_new = object.__new__
"""A pydantic model class's ``__new__`` (BaseModel defines none), without its lookup."""
_Model = TypeVar("_Model", bound=BaseModel)


def replaced(model: _Model, **update: Any) -> _Model:
    """``model`` with ``update`` in place of its fields (a shallow copy, not validated: what
    ``model_copy(update=…)`` makes, without its generic copying)."""
    out = _new(type(model))
    _set(out, "__dict__", {**model.__dict__, **update})
    _set(out, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    _set(out, "__pydantic_extra__", model.__pydantic_extra__)
    _set(out, "__pydantic_private__", model.__pydantic_private__)
    return out


def _built(model: type[BaseModel], fields: dict[str, Any], given: set[str]) -> BaseModel:
    """An instance of ``model`` holding ``fields`` (validated already, every field in the
    model's order), ``given`` the fields the client wrote: what validation leaves, as
    ``model_construct`` builds it (without its per-field defaults and alias lookups, which
    validation did). Only for models without private attributes, extra fields or
    ``model_post_init`` (:func:`_variant` makes no variant of others)."""
    out = _new(model)
    _set(out, "__dict__", fields)
    _set(out, "__pydantic_fields_set__", set(given))
    _set(out, "__pydantic_extra__", None)
    _set(out, "__pydantic_private__", None)
    return out


class Plugging:
    """One request's plugging: where the stored blocks' models come from, and who holds what."""

    def __init__(
        self,
        ruleset: str,
        lookup: Callable[[str], BaseModel],
        holds: frozenset[str] | None,
    ) -> None:
        """``lookup``: the stored block's model of a participant (KeyError: none to plug);
        ``holds``: the participants a player holds (None: the GM, whose blocks written in are
        his own)."""
        self.block = STAT_BLOCKS[ruleset]
        self.lookup = lookup
        self.holds = holds
        self.references = 0
        """How many references took a stored block."""
        self.foreign = 0
        """How many blocks a player wrote in for somebody he does not hold took the GM's."""

    def model(self, value: BaseModel) -> BaseModel:
        """``value`` as its request type's own model, every reference plugged."""
        kind = type(value)
        real = _REAL.get(kind, kind)
        fields = _HOLDING.get(real)
        if fields is None:
            return value
        given = value.__dict__
        update = {}
        for name in fields:
            before = given[name]
            after = self.value(before)
            if after is not before:
                update[name] = after
        if real is kind and not update:
            return value
        # Validated already, field by field: built as validation would have left it.
        return _built(real, {**given, **update}, value.__pydantic_fields_set__)

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind is StoredRef:
            self.references += 1
            return self.lookup(value.__dict__["id"])
        if kind is self.block:
            ident: str = value.__dict__["id"]  # every ruleset's block has an id
            if self.holds is not None and ident not in self.holds:
                self.foreign += 1  # his numbers for somebody he does not hold: the GM's
                return self.lookup(ident)
            return value
        if kind is list:
            items = [self.value(item) for item in value]
            for new, old in zip(items, value, strict=True):
                if new is not old:
                    return items
            return value
        if kind is dict:
            mapping = {key: self.value(item) for key, item in value.items()}
            for key, item in value.items():
                if mapping[key] is not item:
                    return mapping
            return value
        if kind in _REAL or kind in _HOLDING:
            return self.model(value)
        return value


def plugged(body: object, plugging: Plugging) -> BaseModel | None:
    """``body`` (a request body, referencing or not) as its request type's own model with each
    reference replaced by the stored block's model, and, for a player, each block of a
    participant he does not hold by the GM's (``plugging`` counts them); None when a block has
    none to plug (``plugging.lookup`` raised KeyError), or ``body`` was not read by a model: the
    caller then validates the filled-in body whole."""
    if not isinstance(body, BaseModel):
        return None
    try:
        out = plugging.model(body)
    except KeyError:
        return None
    return None if is_referencing(out) else out


__all__ = [
    "Plugging",
    "StoredRef",
    "is_referencing",
    "plugged",
    "referencing",
    "replaced",
    "validated_block",
]
