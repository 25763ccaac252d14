"""Review of :func:`native_bounds` (issue #16): it looks each ``function-after`` validator up in
the table of bound checks; a validator that is not one must be left alone whatever it is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, TypeAdapter

from arbiter.bridge.engine.rule_context import native_bounds


@dataclass
class Clamp:
    """A validator object of the kind pydantic takes anywhere: a callable dataclass instance
    (``eq=True`` without ``frozen``, so without a hash)."""

    high: int

    def __call__(self, value: int) -> int:
        return min(value, self.high)


class Body(BaseModel):
    x: Annotated[int, AfterValidator(Clamp(5))]


def test_a_validator_without_a_hash_is_left_as_it_is_and_the_schema_unchanged() -> None:
    schema: Any = TypeAdapter(Body).core_schema
    changed: set[type] = set()
    assert native_bounds(schema, {}, changed) is schema
    assert changed == set()
