"""Combat rounds: actions and their costs, action points, initiative, combat styles."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from arbiter.compiler.model.combat_styles.basics import Band, Skill, ceil_div, implemented_only
from arbiter.compiler.model.combat_styles.body import AttributeFormula
from arbiter.compiler.model.combat_styles.effects import HOLD_CONDITIONS, Hold
from arbiter.compiler.model.common import Assumable, Entry, Id, RuleModel


class Action(Entry):
    """A combat action: proactive (own Turn), reactive (answers a threat) or free."""

    name: str
    kind: Literal["proactive", "reactive", "free"]
    ap_cost: int = Field(ge=0)
    turns: int = Field(1, ge=1)
    """Turns the action takes at least (each Turn costs its own AP)."""
    requires: Literal["unengaged", "engaged", "delayed", "magic_held"] | None = None
    description: str


BraceEnd = Literal[
    "evading", "knocked_back", "charging", "leaping", "outmaneuvering", "withdrawing"
]
"""Events that move a braced fighter from his spot: he evades, is knocked back (by the blow's
knockback or Bash), charges, leaps, outmanoeuvres, or withdraws (the effect, a mounted
withdrawal)."""


class Brace(Assumable):
    """Brace (text "Brace"): the action leaves the fighter ``braced`` — SIZ counted larger
    against Knockback, Leaping Attacks and Bash (``knockback``, ``combat.leaping_attack``) —
    until he "moves away from the place [he] planted [himself]": he takes one of
    ``lost_on_actions`` or one of the ``lost_when`` events happens to him."""

    action: Id
    """The ``actions`` id that braces."""
    lost_on_actions: tuple[Id, ...] = ()
    lost_when: tuple[BraceEnd, ...] = ()


class RegainFooting(Assumable):
    """Regain Footing (text "Regain Footing"): unengaged, a prone fighter stands; engaged, he
    must first win an opposed test of these skills against the opponent. Each side rolls his
    better listed skill unless the request names one."""

    skills: tuple[Skill, ...] = Field(min_length=1)
    """The stander's skills."""
    opponent_skills: tuple[Skill, ...] = Field(min_length=1)
    """The engaged opponent's skills."""
    needs_working_legs: bool = False
    """True: a fighter with a leg that is useless (Serious Wound) or stunned (Stun Location)
    cannot stand until it works again."""


class Struggle(Assumable):
    """Struggle (text "Struggle"): on his turn a held victim tries to break one hold; ``holds``
    is the order the holds are tried in when several bind him. Every hold is listed once."""

    holds: tuple[Hold, ...] = Field(min_length=1)

    @field_validator("holds")
    @classmethod
    def _every_hold_once(cls, holds: tuple[str, ...]) -> tuple[str, ...]:
        doubled = sorted({h for h in holds if holds.count(h) > 1})
        if doubled:
            raise ValueError(f"each hold is tried once; listed twice: {', '.join(doubled)}")
        missing = [h for h in HOLD_CONDITIONS if h not in holds]
        if missing:
            raise ValueError(
                f"a victim could never struggle free of {', '.join(missing)}: list every hold "
                f"({', '.join(HOLD_CONDITIONS)})"
            )
        return holds


class ApBand(RuleModel):
    """Action points for an attribute total in ``band``."""

    band: Band
    points: int = Field(ge=0)


class ActionPoints(Assumable):
    """Action points per Combat Round: the default, and the optional attribute table."""

    default: int = Field(ge=1)
    method: Literal["fixed", "table"] = "fixed"
    """Which of the two the ruleset uses; ``table`` reads ``table``."""
    table_attributes: tuple[Literal["int", "dex", "pow"], ...]
    table: tuple[ApBand, ...]
    table_beyond_every: int = Field(gt=0)
    """Beyond the last band, one more point per this many attribute points."""
    carry_over: Annotated[
        bool, implemented_only(False, "unused Action Points are lost when the Round ends")
    ] = False
    description: str = ""

    def points(self, stats: dict[str, int]) -> int:
        """Action points of a stat block under the chosen method (before fatigue)."""
        if self.method == "fixed":
            return self.default
        total = sum(stats[a] for a in self.table_attributes)
        for row in self.table:
            if row.band.contains(total):
                return row.points
        last = self.table[-1]
        if last.band.max is None or total < self.table[0].band.min:
            raise KeyError(f"no action-point band for {total}")
        return last.points + ceil_div(total - last.band.max, self.table_beyond_every)


class Initiative(Assumable):
    """How Initiative is rolled and what modifies it."""

    die: str = Field(pattern=r"^1d\d+$")
    bonus: AttributeFormula
    armor_penalty_divisor: int = Field(gt=0)
    """Penalty = total ENC of worn armour / this, rounded up (each location ENC/5)."""
    armor_penalty_rounding: Literal["up"] = "up"
    tie_break: Literal["higher_dex_then_roll", "concurrent"]
    reroll: Literal["when_forced"] = "when_forced"
    description: str = ""

    def armor_penalty(self, enc_per_location: list[int]) -> int:
        """The initiative penalty for armour worn on locations of the given ENC."""
        total = sum(enc_per_location)
        return ceil_div(total, self.armor_penalty_divisor)


class StyleWeapon(RuleModel):
    """A weapon named by a sample style, and the bundled weapons it covers (none for
    natural weapons and gear the equipment lists do not have)."""

    name: str
    covers: tuple[Id, ...] = ()


class CombatStyle(Entry):
    """A sample combat style from the text."""

    name: str
    weapons: tuple[StyleWeapon, ...] = Field(min_length=1)
    traits: tuple[Id, ...] = ()
    description: str = ""
