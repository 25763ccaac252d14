"""``duel``: the small ruleset the client e2e tests serve while the real engines are elsewhere.

It has what a chat card needs to show: a d100 ``check`` against a skill, and an ``exchange``
whose winner must choose special effects (a pending choice answered by a ``choose`` request
that reads and updates the encounter state). The server, store, protocol and module build are
the real ones; only the rules are this small test ruleset.

Like the bundled rulesets' bodies, each body declares ``acting`` (the fields naming the
participants it acts for, bridge/authority.py): a check acts for its optional ``who``, an
exchange for its attacker's ``id``, a choice for its ``by`` (the exchange's pending choice
names it). A body naming nobody is the GM's to send.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from bridge.engine import registry
from bridge.engine.contract import JSON, EngineError, Resolution
from bridge.engine.dice import Dice
from compiler.model.common import DieTable, RulesetBase

RULESET = "duel"
META = '[ruleset]\nid = "duel"\ntitle = "Duel"\nversion = "1.2.0"\nsource = "e2e tests"\n'
TABLES = """
[[tables]]
id = "effects"
name = "Special effects"
die = "1d4"
rows = [
  { range = [1, 2], text = "Bleed" },
  { range = [3, 4], text = "Disarm" },
]
"""
EFFECTS = {"bleed": "Bleed", "disarm": "Disarm", "trip": "Trip"}


class DuelRules(RulesetBase):
    tables: list[DieTable]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Check(Body):
    acting: ClassVar[tuple[str, ...]] = ("who",)
    skill: int = Field(ge=1, le=200)
    who: str | None = None


class Fighter(Body):
    """A combatant's stat block as the exchange dialog sends it (``id``: the participant)."""

    name: str = Field(min_length=1)
    skill: int = Field(ge=0, le=200)
    id: str | None = None


class Exchange(Body):
    acting: ClassVar[tuple[str, ...]] = ("attacker",)
    attacker: Fighter
    defender: Fighter


class Choose(Body):
    acting: ClassVar[tuple[str, ...]] = ("by",)
    choice: str
    by: str | None = None


class DuelEngine:
    ruleset_id = RULESET
    requests: dict[str, type[BaseModel]] = {  # noqa: RUF012 - the contract's mapping
        "check": Check,
        "exchange": Exchange,
        "choose": Choose,
    }

    def resolve(
        self, rules: RulesetBase, kind: str, body: BaseModel, state: JSON | None, dice: Dice
    ) -> Resolution:
        if isinstance(body, Check):
            roll = dice.d100()
            ok = roll <= body.skill
            return Resolution({"kind": "check", "roll": roll, "skill": body.skill, "success": ok})
        if isinstance(body, Exchange):
            attack, parry = dice.d100(), dice.d100()
            hit = attack <= body.attacker.skill and not parry <= body.defender.skill
            result: dict[str, Any] = {
                "kind": "exchange",
                "attacker": body.attacker.name,
                "defender": body.defender.name,
                "attack": attack,
                "parry": parry,
                "hit": hit,
            }
            if hit:
                result["pending"] = {
                    "by": body.attacker.name,
                    "type": "choose",
                    "body": {"by": body.attacker.id} if body.attacker.id else {},
                    "options": [{"id": k, "label": v} for k, v in EFFECTS.items()],
                }
            return Resolution(result, state={"pending": body.attacker.name if hit else None})
        if isinstance(body, Choose):
            if not (state or {}).get("pending"):
                raise EngineError("no special effect is waiting to be chosen")
            if body.choice not in EFFECTS:
                raise EngineError(f"no special effect {body.choice!r}")
            damage = dice.roll("1d6+1").total
            summary = f"{EFFECTS[body.choice]}: {damage} damage"
            result = {"kind": "effect", "effect": body.choice, "damage": damage, "summary": summary}
            return Resolution(result, state={"pending": None})
        raise EngineError(f"unknown request {kind!r}")


ENGINE = DuelEngine()


def get_engine(ruleset_id: str) -> Any:
    """The registry lookup with ``duel`` added (and nothing else: the real ones may be absent)."""
    if ruleset_id == RULESET:
        return ENGINE
    raise registry.UnknownRuleset(f"unknown ruleset {ruleset_id!r}")
