"""No view and no public result ever shows a card its viewer may not see, nor the deck order.

A randomized game of 1,000 rounds (three fighters, random legal and illegal moves, restarts
when a duel ends) is played through the engine; after every request the public result and
each player's private data are searched for any card that is in another player's hand, sealed
in an unrevealed register, or still in the draw pile. Public data names no card by id at all
(faces only), and a player's private data holds only his own cards. No request may change the
state it was given (the engine works on a copy).
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from karmic_duel import DECK, RULES, fighter

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.bridge.engine.karmic import ENGINE
from arbiter.bridge.engine.karmic.rulebook import rulebook
from arbiter.bridge.engine.karmic.table import Table

ROUNDS = 1000
ALL_CARDS = set(DECK)
MANEUVERS = ["attack", "attack", "feint", "disarm", "parry", "parry", "dodge", "change-weapon"]
WEAPONS = ["sword", "dagger", "spear", "medium-axe"]


def strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(k) | strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def secrets_of(state: JSON) -> dict[str, set[str]]:
    """Per combatant: his hand and sealed cards; "deck": the draw pile."""
    out: dict[str, set[str]] = {cid: set(c["hand"]) for cid, c in state["combatants"].items()}
    rnd = state["round"]
    if rnd is not None:
        for reg in rnd["registers"]:
            if reg["revealed"]:
                continue
            for cid, decls in reg["declarations"].items():
                out[cid] |= {d["card"] for d in decls if not d.get("open")}
    out["deck"] = set(state["deck"]["draw"])
    return out


class Game:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.dice_source = KeyedSource(seed.to_bytes(16, "big"))
        self.state: JSON | None = None
        self.requests = 0

    def send(self, kind: str, body: JSON) -> bool:
        model = ENGINE.requests[kind].model_validate(body)
        before = json.dumps(self.state, sort_keys=True)
        try:
            res = ENGINE.resolve(RULES, kind, model, self.state, Dice(self.dice_source))
        except EngineError:
            return False
        finally:
            assert json.dumps(self.state, sort_keys=True) == before, f"{kind} changed its input"
        self.requests += 1
        if res.state is not None:
            self.state = res.state
        self.check(res.result, res.private)
        return True

    def check(self, result: JSON, private: Any) -> None:
        assert self.state is not None
        secret = secrets_of(self.state)
        everything = set().union(*secret.values())
        shown = strings(result)
        leaked = shown & everything
        assert not leaked, f"public result shows unseen cards {leaked}"
        ids = {s for s in shown if s in ALL_CARDS}
        assert not ids, f"public result names cards by id: {ids}"
        for viewer, data in private.items():
            hidden = everything - secret[viewer]
            assert not strings(data) & hidden, f"{viewer} was shown another's card or the deck"

    def start(self) -> None:
        specs = [
            fighter(
                "ann",
                "heroes",
                vitality=10**6,
                main=self.rng.choice(WEAPONS),
                skills={w: self.rng.randint(1, 5) for w in WEAPONS},
            ),
            fighter(
                "bob",
                "villains",
                vitality=10**6,
                main=self.rng.choice(WEAPONS),
                skills={w: self.rng.randint(1, 5) for w in WEAPONS},
            ),
            fighter(
                "cat",
                "villains",
                vitality=10**6,
                main="dagger",
                off="small-shield",
                skills={"dagger": 3, "small-shield": 2, "combat_training": 2},
            ),
        ]
        self.state = None
        assert self.send("start_duel", {"combatants": specs})

    def round(self) -> None:
        assert self.state is not None
        ids = list(self.state["combatants"])
        if self.rng.random() < 0.3:
            a, b = self.rng.sample(ids, 2)
            self.send("draw_initiative", {"between": [a, b]})
        if not self.send("draw_hands", {}):
            self.start()
            return
        if self.rng.random() < 0.05:
            self.send("charge", {"combatant": "ann", "target": self.rng.choice(["bob", "cat"])})
        for _ in range(12):
            if self.state["round"]["over"] or self.state["over"]:
                break
            for cid in self.rng.sample(ids, len(ids)):
                self.declare(cid)
            for cid in ids:  # whoever was blocked by initiative order declares now
                self.declare(cid)
            self.send("view", {"viewer": self.rng.choice(ids)})
            if not self.send("reveal", {}):
                for cid in ids:
                    self.send("declare", {"combatant": cid, "maneuvers": []})
                self.send("reveal", {})
            self.hits()
            self.send("resolve_register", {})
        if self.rng.random() < 0.03:
            holder = next(
                (p["initiative"] for p in self.state["pairs"].values() if p["initiative"]), None
            )
            if holder:
                for foe in ids:
                    self.send("hesitate", {"combatant": holder, "opponent": foe})
        if self.state["over"]:
            self.start()

    def declare(self, cid: str) -> None:
        assert self.state is not None
        c = self.state["combatants"][cid]
        foes = [o for o, f in self.state["combatants"].items() if f["side"] != c["side"]]
        if not c["hand"] or self.rng.random() < 0.15:
            self.send("declare", {"combatant": cid, "maneuvers": []})
            return
        maneuver = self.rng.choice(MANEUVERS)
        decl: JSON = {"maneuver": maneuver, "card": self.rng.choice(c["hand"])}
        if maneuver == "change-weapon":
            decl["new_weapon"] = self.rng.choice(WEAPONS)
        else:
            decl["target"] = self.rng.choice(foes)
        if maneuver in ("attack", "parry") and self.rng.random() < 0.2:
            decl["step"] = False
        if c["off"] and self.rng.random() < 0.5 and maneuver != "dodge":
            decl["weapon"] = "off"
        if self.send("declare", {"combatant": cid, "maneuvers": [decl]}):
            if self.rng.random() < 0.2:
                self.send(
                    "odds", {"viewer": cid, "attacker": cid, "target": decl.get("target", cid)}
                )
        else:
            self.send("declare", {"combatant": cid, "maneuvers": []})

    def hits(self) -> None:
        assert self.state is not None
        regs = [r for r in self.state["round"]["registers"] if r["revealed"] and not r["resolved"]]
        for reg in regs:
            for cid, decls in reg["declarations"].items():
                for d in decls:
                    if self.rng.random() < 0.5:
                        self.send("hit_draw", {"combatant": cid, "card": d["card"]})


@settings(max_examples=2, deadline=None, derandomize=True, phases=(Phase.generate,))
@given(st.integers(min_value=1, max_value=2**63))
def test_no_view_or_result_shows_an_unseen_card_in_a_randomized_thousand_round_game(
    seed: int,
) -> None:
    game = Game(seed)
    game.start()
    for _ in range(ROUNDS):
        game.round()
    assert game.requests > ROUNDS * 5


def test_the_deck_shuffle_and_every_reshuffle_roll_only_hidden_dice() -> None:
    body = ENGINE.requests["start_duel"].model_validate(
        {"combatants": [fighter("ann", "heroes"), fighter("bob", "villains")]}
    )
    dice = Dice(KeyedSource(b"\x02" * 32))
    res = ENGINE.resolve(RULES, "start_duel", body, None, dice)
    assert len(dice.records) == len(DECK) - 1
    assert all(d.hidden for d in dice.records)
    state = res.state
    assert state is not None
    state["deck"]["discard"] = [[card, "*"] for card in state["deck"]["draw"][:5]]
    state["deck"]["draw"] = []
    again = Dice(KeyedSource(b"\x03" * 32))
    Table(rulebook(RULES), state, again).draw("hit ann")
    assert len(again.records) == 4 and all(d.to_json()["hidden"] for d in again.records)
