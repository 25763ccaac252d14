"""The strike and injury formula's numbers, initiative, and the strike penalties."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from arbiter.compiler.model.common import Assumable, Entry, RuleModel, die_span


class AttributeRollRule(Assumable):
    """How an attribute roll (AGL, DEX…) is made: a roll at or under the attribute on this die."""

    die: int = Field(ge=2)


class WalkOnlyRounding(Assumable):
    rounding: Literal["up", "down"]


class Combat(RuleModel):
    """The formula's numbers, as the text gives them (a GM may house-rule any of them).

    Effective chance = skill − DT / ``undefended_dt_divisor`` (or − full DT + the defender's
    specializations when defending) − range − movement, never below ``minimum_chance``.
    Critical: natural roll × ``critical_divisor`` < unmodified skill. Fumble: roll ≥
    ``fumble_from``. Injury = weapon column + STR / ``strength_divisor`` + skill /
    ``skill_divisor`` − armor PV. Unconscious at 0 IP for HEA / ``death_rounds_divisor`` rounds;
    dead below −(HEA / ``terminal_injury_divisor``). Fractions round down.
    """

    strike_die: int = Field(ge=2)
    undefended_dt_divisor: int = Field(ge=1)
    minimum_chance: int = Field(ge=0)
    critical_divisor: int = Field(ge=1)
    fumble_from: int = Field(ge=1)
    strength_divisor: int = Field(ge=1)
    skill_divisor: int = Field(ge=1)
    death_rounds_divisor: int = Field(ge=1)
    terminal_injury_divisor: int = Field(ge=1)
    stand_actions: int = Field(ge=1)
    attribute_roll: AttributeRollRule
    walk_only: WalkOnlyRounding

    @model_validator(mode="after")
    def _fumble_on_die(self) -> Combat:
        if self.fumble_from > self.strike_die:
            raise ValueError(f"fumble_from {self.fumble_from} is above the d{self.strike_die}")
        return self


class InitiativeModifier(Entry):
    """A circumstance that changes a party's initiative.

    kinds: ``consecutive`` (+``value`` per round the party had initiative in a row, at most
    ``maximum``), ``automatic_win``/``automatic_loss`` (ambush), ``fixed`` (``value``),
    ``chosen`` (the GM picks a value from ``minimum`` to ``maximum``).
    """

    circumstance: str
    modifier: str
    kind: Literal["consecutive", "automatic_win", "automatic_loss", "fixed", "chosen"]
    value: int | None = None
    minimum: int | None = None
    maximum: int | None = None

    @model_validator(mode="after")
    def _fields_fit_kind(self) -> InitiativeModifier:
        need: dict[str, tuple[str, ...]] = {
            "consecutive": ("value", "maximum"),
            "fixed": ("value",),
            "chosen": ("minimum", "maximum"),
            "automatic_win": (),
            "automatic_loss": (),
        }
        wanted = need[self.kind]
        for name in ("value", "minimum", "maximum"):
            present = getattr(self, name) is not None
            if present != (name in wanted):
                verb = "needs" if name in wanted else "does not take"
                raise ValueError(f"a {self.kind!r} modifier {verb} {name!r}")
        low, high = self.minimum, self.maximum
        if self.kind == "chosen" and low is not None and high is not None and low > high:
            raise ValueError("minimum must not exceed maximum")
        return self


class TieRule(Assumable):
    rule: Literal["simultaneous"]


class Initiative(RuleModel):
    """Initiative: each party (or, optionally, each individual) rolls ``die`` + modifiers."""

    die: str
    ties: TieRule
    modifiers: list[InitiativeModifier]

    @model_validator(mode="after")
    def _die_ok(self) -> Initiative:
        die_span(self.die)
        return self


class StrikePenalty(Entry):
    """A row of the range or movement penalty table."""

    name: str
    penalty: int = Field(le=0)


class MovementPenalty(StrikePenalty):
    """``attacker_may_attack``: whether one moving this fast may still strike (up to a trot)."""

    attacker_may_attack: bool = True
