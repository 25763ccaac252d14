"""Helpers for combat-styles engine tests: a request runner and stock fighters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.contract import JSON, Resolution
from arbiter.bridge.engine.dice import Dice, ScriptedSource
from arbiter.compiler.model.common import RulesetBase


class Table:
    """Resolves requests against the bundled rules with scripted dice, threading state."""

    def __init__(self, model: RulesetBase) -> None:
        self.model = model
        self.state: JSON | None = None
        self.dice: Dice | None = None

    def __call__(self, kind: str, body: dict[str, Any], dice: Iterable[int] = ()) -> JSON:
        return self.run_full(kind, body, dice).result

    def run_full(self, kind: str, body: dict[str, Any], dice: Iterable[int] = ()) -> Resolution:
        """Resolve one request and return the whole Resolution (result, state, private)."""
        source = ScriptedSource(dice)
        self.dice = Dice(source)
        parsed = ENGINE.requests[kind].model_validate(body)
        out: Resolution = ENGINE.resolve(self.model, kind, parsed, self.state, self.dice)
        assert source.remaining == 0, f"{source.remaining} scripted dice unused"
        if out.state is not None:
            self.state = out.state
        return out

    @property
    def rolled(self) -> list[tuple[str, int]]:
        assert self.dice is not None
        return [(r.expr, r.result) for r in self.dice.records]

    def who(self, cid: str) -> JSON:
        assert self.state is not None
        return self.state["combatants"][cid]

    def typed(self, cid: str) -> CombatantRecord:
        """``cid``'s record as the engine works on it (typed), for a test calling its parts."""
        return CombatantRecord.of(self.who(cid))


def fighter(cid: str, **over: Any) -> dict[str, Any]:
    """A plain human: STR+SIZ 23 (damage modifier +0), CON+SIZ 23 (base hit points 5)."""
    block: dict[str, Any] = {
        "id": cid,
        "characteristics": {"str": 11, "con": 11, "siz": 12, "dex": 12, "int": 12, "pow": 10},
        "skills": {
            "combat_style": 60,
            "evade": 40,
            "endurance": 40,
            "willpower": 40,
            "brawn": 30,
            "athletics": 30,
            "acrobatics": 20,
        },
        "weapons": ["broadsword", "heater"],
    }
    for key, value in over.items():
        if key == "skills":
            block["skills"] = {**block["skills"], **value}
        else:
            block[key] = value
    return block


def duel(table: Table, a: dict[str, Any], b: dict[str, Any]) -> None:
    """Start a free encounter (no initiative: turns and action points are not tracked)."""
    table("start_encounter", {"combatants": [a, b]})
    assert table.state is not None
    table.state["phase"] = "free"
