"""Test helpers: a duel driven through the engine with scripted shuffles and card orders."""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.contract import JSON, Resolution
from arbiter.bridge.engine.dice import Dice, ScriptedSource, SecureSource
from arbiter.bridge.engine.karmic import ENGINE
from arbiter.bridge.engine.karmic.rulebook import rulebook
from arbiter.compiler.model.karmic import KarmicRules
from arbiter.compiler.model.loader import load_ruleset

RULES: KarmicRules = load_ruleset("karmic").model  # type: ignore[assignment]
DECK: tuple[str, ...] = rulebook(RULES).deck


def shuffle_dice(items: list[str] | tuple[str, ...], first: list[str]) -> list[int]:
    """Die results that make Dice.shuffle(items) put ``first`` on top, in that order."""
    rest = [c for c in items if c not in first]
    target = list(first) + rest
    out = list(items)
    dice = []
    for i in range(len(out) - 1, 0, -1):
        j = out.index(target[i], 0, i + 1)
        dice.append(j + 1)
        out[i], out[j] = out[j], out[i]
    assert out == target
    return dice


def fighter(cid: str, side: str, **kw: Any) -> JSON:
    spec: JSON = {"id": cid, "name": cid.title(), "side": side, "vitality": 10, "main": "sword"}
    spec.update(kw)
    return spec


class Duel:
    """A duel whose state is threaded through every request, as the server would."""

    def __init__(
        self,
        combatants: list[JSON],
        first: list[str] | None = None,
        *,
        rules: KarmicRules = RULES,
        **kw: Any,
    ):
        self.rules = rules
        self.state: JSON | None = None
        self.results: list[JSON] = []
        dice = shuffle_dice(DECK, first or [])
        self.send("start_duel", {"combatants": combatants, **kw}, dice)

    def send(self, kind: str, body: JSON, dice: list[int] | None = None) -> Resolution:
        model = ENGINE.requests[kind].model_validate(body)
        source = ScriptedSource(dice) if dice is not None else SecureSource()
        res = ENGINE.resolve(self.rules, kind, model, self.state, Dice(source))
        if res.state is not None:
            self.state = res.state
        self.results.append(res.result)
        self.last = res
        return res

    def card(self, face: str) -> str:
        """The id of a card of ``face`` that is in a hand (first copy found)."""
        assert self.state is not None
        for c in self.state["combatants"].values():
            for card in c["hand"]:
                if card.split("#")[0] == face:
                    return card
        raise AssertionError(f"no {face} in any hand")

    def hand(self, cid: str) -> list[str]:
        assert self.state is not None
        return list(self.state["combatants"][cid]["hand"])

    def pair(self, a: str, b: str) -> JSON:
        assert self.state is not None
        key = f"{a}|{b}" if a < b else f"{b}|{a}"
        return self.state["pairs"][key]

    def declare(self, cid: str, *maneuvers: JSON, register: int | None = None) -> Resolution:
        body: JSON = {"combatant": cid, "maneuvers": list(maneuvers)}
        if register is not None:
            body["register"] = register
        return self.send("declare", body)

    def play(self, register: int | None = None) -> JSON:
        """Reveal and resolve the next register; the resolution's result."""
        body = {} if register is None else {"register": register}
        shown = self.send("reveal", body).result
        assert self.state is not None
        if self.state["round"]["registers"][shown["register"] - 1]["resolved"]:
            return shown  # everyone passed: nothing to resolve, the round is over
        return self.send("resolve_register", body).result


def ready(
    combatants: list[JSON],
    hands: dict[str, list[str]],
    initiative: tuple[str, str] | None = None,
    **kw: Any,
) -> Duel:
    """A duel at round 1 with these hands (drawn in combatant order); ``initiative`` =
    (winner, loser) draws +10 against -5 first."""
    first: list[str] = []
    if initiative is not None:
        first += ["plus-10#1", "minus-5#1"]
    for spec in combatants:
        first += hands.get(spec["id"], [])
    duel = Duel(combatants, first=first, **kw)
    if initiative is not None:
        duel.send("draw_initiative", {"between": list(initiative)})
    duel.send("draw_hands", {})
    for spec in combatants:
        if spec["id"] in hands:
            assert duel.hand(spec["id"]) == hands[spec["id"]], spec["id"]
    return duel


def attack(card: str, target: str, maneuver: str = "attack", **kw: Any) -> JSON:
    return {"maneuver": maneuver, "card": card, "target": target, **kw}
