"""Typed bodies of the karmic requests (see docs/requests-karmic.md)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from arbiter.bridge.engine.karmic.rulebook import rulebook
from arbiter.bridge.engine.rule_context import (
    VIEWS,
    refuse,
    unknown_ids,
    view_in,
    within_limits,
)
from arbiter.compiler.model.karmic import KarmicRules

Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*$", max_length=64)]
Slot = Literal["main", "off"]


def _limited(name: str) -> AfterValidator:
    """The bound ``name`` of the served rules' ``stat_block_limits`` (``stat_block_limits.toml``),
    checked as the field is validated."""
    return within_limits("karmic", KarmicRules, name)


class Body(BaseModel):
    """Base of every request body: frozen, unknown fields rejected.

    The JSON field ``register`` is ``register_number`` in Python (``register`` is taken by
    the ABC machinery of pydantic models).

    Every request body declares ``acting``: the fields naming the participant(s) the request
    acts for (``bridge/authority.py``); an empty tuple makes it a table action, the GM's alone.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


class CombatantSpec(Body):
    """A fighter entering the duel.

    ``armor``, ``main`` and ``off`` must be ids of the rule data (``armor.toml``,
    ``weapons.toml``).
    """

    id: Name
    name: str = Field(min_length=1, max_length=100)
    side: Name
    # A number left out takes its default, held to the served bound as a written one is
    # (validate_default): a house rule's bound that excludes the default refuses the block.
    finesse: Annotated[int, _limited("finesse")] = Field(default=0, validate_default=True)
    force: Annotated[int, _limited("force")] = Field(default=0, validate_default=True)
    armor: Name = "none"
    vitality: Annotated[int, _limited("vitality")]
    size: Annotated[int, _limited("size")] = Field(default=1, validate_default=True)
    skills: Annotated[dict[Name, int], _limited("skills")] = Field(default_factory=dict)
    main: Name | None = None
    """The weapon in hand; without one the fighter holds bare hands (``hands.toml``)."""
    off: Name | None = None

    def model_post_init(self, context: Any, /) -> None:
        """Under the served rules (:mod:`arbiter.bridge.engine.rule_context`), every unknown id
        is a problem at its own field, for ``check`` and ``start_duel`` alike."""
        try:  # the usual case: the context's index of its served rules, found before
            book = context[VIEWS]["karmic"]
        except (KeyError, TypeError):
            book = view_in(context, "karmic", KarmicRules, rulebook)  # the engine's own index
        if book is None:
            return
        weapons, armor = book.weapons, book.armor
        if (
            self.armor in armor
            and (self.main is None or self.main in weapons)
            and (self.off is None or self.off in weapons)
        ):
            return  # every id known: the usual case, checked without building anything
        refuse(
            "CombatantSpec",
            unknown_ids("armor", self.armor, "armor", armor)
            + unknown_ids("main", self.main, "weapon", weapons)
            + unknown_ids("off", self.off, "weapon", weapons),
        )


class StartDuel(Body):
    acting: ClassVar[tuple[str, ...]] = ()

    combatants: list[CombatantSpec] = Field(min_length=2, max_length=12)
    start_range: int | None = Field(default=None, ge=0, le=100)


class DrawInitiative(Body):
    acting: ClassVar[tuple[str, ...]] = ()

    between: tuple[Name, Name]
    showdown: bool = False


class DrawHands(Body):
    acting: ClassVar[tuple[str, ...]] = ()


class Declaration(Body):
    """One maneuver: the card from the hand, the target(s) and the options it takes."""

    maneuver: Name
    card: str = Field(min_length=1, max_length=80)
    target: Name | None = None
    targets: list[Name] | None = Field(default=None, max_length=12)
    weapon: Slot | None = None
    step: bool = True
    location: Name | None = None
    target_weapon: Slot = "main"
    new_weapon: Name | None = None
    frees: Name | None = None


class Declare(Body):
    """A player's sealed maneuvers for one register; an empty list passes."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: Name
    register_number: int | None = Field(default=None, ge=1, le=100, alias="register")
    maneuvers: list[Declaration] = Field(default_factory=list, max_length=12)


class Reveal(Body):
    acting: ClassVar[tuple[str, ...]] = ()

    register_number: int | None = Field(default=None, ge=1, le=100, alias="register")


class HitDraw(Body):
    """A draw on one revealed hit card, named by its id (``card``, which only its holder
    knows) or by its place among the combatant's plays of the register (``play``, from 0, the
    order the reveal lists them in): exactly one of the two."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: Name
    card: str | None = Field(default=None, min_length=1, max_length=80)
    play: int | None = Field(default=None, ge=0, le=11)
    register_number: int | None = Field(default=None, ge=1, le=100, alias="register")

    @model_validator(mode="after")
    def _one_card(self) -> HitDraw:
        if (self.card is None) == (self.play is None):
            raise ValueError(
                "name the hit card by exactly one of card (its id) and play (its place)"
            )
        return self


class ResolveRegister(Body):
    acting: ClassVar[tuple[str, ...]] = ()

    register_number: int | None = Field(default=None, ge=1, le=100, alias="register")


class ChargeBody(Body):
    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: Name
    target: Name


class SurpriseBody(Body):
    acting: ClassVar[tuple[str, ...]] = ("attacker",)

    attacker: Name
    target: Name
    weapon: Slot = "main"
    location: Name | None = None


class Hesitate(Body):
    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: Name
    opponent: Name


class Entangle(Body):
    acting: ClassVar[tuple[str, ...]] = ()

    combatant: Name
    by: Name
    limb_vitality: int = Field(ge=0, le=100)


class Odds(Body):
    acting: ClassVar[tuple[str, ...]] = ("viewer",)

    viewer: Name
    attacker: Name
    target: Name
    register_number: int | None = Field(default=None, ge=1, le=100, alias="register")


class View(Body):
    acting: ClassVar[tuple[str, ...]] = ("viewer",)

    viewer: Name


REQUESTS: dict[str, type[BaseModel]] = {
    "start_duel": StartDuel,
    "draw_initiative": DrawInitiative,
    "draw_hands": DrawHands,
    "declare": Declare,
    "reveal": Reveal,
    "hit_draw": HitDraw,
    "resolve_register": ResolveRegister,
    "charge": ChargeBody,
    "surprise": SurpriseBody,
    "hesitate": Hesitate,
    "entangle": Entangle,
    "odds": Odds,
    "view": View,
}
