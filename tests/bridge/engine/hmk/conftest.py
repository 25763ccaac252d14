"""A small harness for hmk engine tests: real rules, real envelope, scripted dice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from arbiter.bridge.engine.dice import ScriptedSource
from arbiter.bridge.engine.envelope import Request, resolve
from arbiter.bridge.engine.hmk import ENGINE
from arbiter.compiler.model.loader import Ruleset, load_ruleset

JSON = dict[str, Any]


def stats(ident: str, **changes: Any) -> JSON:
    """A stat block: STR 50 and skill 80 give +5 and +8 injury; 200 IP so blows do not kill."""
    block: JSON = {
        "id": ident,
        "name": ident.title(),
        "party": "heroes",
        "attributes": {"STR": 50, "DEX": 50, "AGL": 50, "HEA": 40, "INT": 50, "AWA": 50},
        "ip": 200,
        "defensive_tactics": 20,
        "skills": {"long-sword": 80, "short-bow": 80, "dagger": 80, "light-crossbow": 80},
        "weapon": "long-sword",
        "weapons": ["dagger"],
        "armor": "leather",
    }
    attributes = changes.pop("attributes", None)
    if attributes:
        block["attributes"] = {**block["attributes"], **attributes}
    block.update(changes)
    return block


class Table:
    """Sends requests through the envelope; every scripted die must be used."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.state: JSON | None = None

    def run(self, kind: str, body: JSON, dice: Sequence[int] = (), *, keep: bool = True) -> JSON:
        source = ScriptedSource(dice)
        request = Request(id="t", ruleset="hmk", type=kind, body=body, encounter="e")
        outcome = resolve(
            request, ENGINE, self.ruleset.model, self.ruleset.content_hash, self.state, source
        )
        assert source.remaining == 0, f"{source.remaining} scripted dice were not used"
        if keep and outcome["state"] is not None:
            self.state = outcome["state"]
        return outcome

    def start(self, *blocks: JSON) -> JSON:
        return self.run("start", {"combatants": list(blocks)})

    def who(self, ident: str) -> JSON:
        assert self.state is not None
        return self.state["combatants"][ident]


@pytest.fixture(scope="session")
def hmk() -> Ruleset:
    return load_ruleset("hmk")


@pytest.fixture
def table(hmk: Ruleset) -> Table:
    return Table(hmk)


@pytest.fixture
def fight(table: Table) -> Table:
    """An encounter: Ana (attacker), Bo (defender, other party), Cy (Ana's friend, no armor)."""
    table.start(
        stats("ana"),
        stats("bo", party="villains"),
        stats("cy", armor=None),
    )
    return table


@pytest.fixture
def block() -> Any:
    """The stat-block maker, for tests that need their own combatants."""
    return stats
