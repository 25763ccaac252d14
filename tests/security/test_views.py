"""Nothing a player's connection receives shows the opponent's hand or the order of the deck.

Hostile clients: Devon's player keeps every frame he is sent (his replies, everybody's outcome
events, his errors, the replays of ids he resends) and tries to rebuild the deal from the dice
(``arbiter replay`` did it from start_duel's 47 shuffle dice), to widen his view by declaring
more ``participants`` in his hello, and to read the soldier's hand off a replay after a
reconnect.
"""

from __future__ import annotations

import copy
import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.bridge.authority import authorize
from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.dice import DiceError, KeyedSource, ScriptedSource
from arbiter.bridge.engine.envelope import Request, RequestError, resolve
from arbiter.bridge.engine.karmic import ENGINE
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.records import kept
from arbiter.bridge.views import OutcomeText, Viewer
from arbiter.compiler.model.loader import load_ruleset
from tests.bridge.support import Running
from tests.security.support import (
    DECK,
    DEVON,
    SOLDIER,
    Client,
    bundled_server,
    dice_of,
    encounter_state,
    karmic,
    strings,
)

START = {"combatants": [DEVON, SOLDIER]}
DEVON_VIEW = Viewer(gm=False, participants=frozenset({"devon"}), player="devon-player")


def test_the_karmic_deal_reaches_no_client_as_dice_so_no_replay_rebuilds_the_hands(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        devon_token = srv.player("devon-player", "devon")
        assert devon_token is not None
        gm = Client(srv, srv.server.secret, events=[])
        devon = Client(srv, devon_token, events=["outcome"])
        start = gm.ask(karmic("k-01", "start_duel", START))
        gm.ask(karmic("k-02", "draw_initiative", {"between": ["devon", "soldier"]}))
        gm.ask(karmic("k-03", "draw_hands", {}))
        # Resending the GM's start_duel id as the GM replays the stored outcome: no dice either.
        replay = gm.ask(karmic("k-01", "start_duel", START))
        devon.drain()
        state = encounter_state(srv)
        gm.close()
        devon.close()
    shuffled = len(DECK) - 1
    for view in (start["outcome"], replay["outcome"]):
        assert view["dice"] == [] and view["hidden_dice"] == shuffled
    events = [m for m in devon.received if m.get("event") == "outcome"]
    assert [e["outcome"]["type"] for e in events] == ["start_duel", "draw_initiative", "draw_hands"]
    assert events[0]["outcome"]["hidden_dice"] == shuffled
    seen = dice_of(devon.received)
    assert seen == []
    # The attack of issue #12: replay start_duel on the dice the player saw. There are none.
    rules = load_ruleset("karmic")
    request = Request(id="k-01", ruleset="karmic", type="start_duel", body=START)
    source = ScriptedSource([d["result"] for d in seen])
    with pytest.raises(DiceError):
        resolve(request, ENGINE, rules.model, rules.content_hash, None, source)
    hidden = set(state["combatants"]["soldier"]["hand"]) | set(state["deck"]["draw"])
    assert not strings(devon.received) & hidden


def test_declaring_participants_in_the_hello_gets_no_other_hand_not_even_on_a_reconnect_replay(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        devon_token = srv.player("devon-player", "devon")
        soldier_token = srv.player("soldier-player", "soldier")
        assert devon_token is not None and soldier_token is not None
        gm = Client(srv, srv.server.secret, events=[])
        # A player token with role "gm" and the soldier among its participants is still Devon's.
        devon = Client(
            srv, devon_token, role="gm", participants=["devon", "soldier"], events=["outcome"]
        )
        soldier = Client(srv, soldier_token, events=[])
        gm.ask(karmic("k-01", "start_duel", START))
        gm.ask(karmic("k-02", "draw_initiative", {"between": ["devon", "soldier"]}))
        dealt = gm.ask(karmic("k-03", "draw_hands", {}))
        state = encounter_state(srv)
        order = ["devon", "soldier"]
        if state["pairs"]["devon|soldier"]["initiative"] == "soldier":
            order.reverse()
        clients = {"devon": devon, "soldier": soldier}
        for cid in order:
            clients[cid].ask(karmic(f"pass-{cid}", "declare", {"combatant": cid, "maneuvers": []}))
        devon.drain()
        devon.close()
        # Reconnect, claiming the soldier this time, and resend ids to have them replayed.
        again = Client(srv, devon_token, participants=["soldier"], events=[])
        own = again.ask(karmic("pass-devon", "declare", {"combatant": "devon", "maneuvers": []}))
        theirs = again.ask(
            karmic("pass-soldier", "declare", {"combatant": "soldier", "maneuvers": []})
        )
        deal_again = again.ask(karmic("k-03", "draw_hands", {}))
        for client in (gm, soldier, again):
            client.close()
    you = {"player": "devon-player", "gm": False, "participants": ["devon"]}
    assert devon.welcome["you"] == you and again.welcome["you"] == you
    assert devon.welcome["players"] is None
    assert set(dealt["outcome"]["private"]) == {"devon", "soldier"}  # the GM sees every hand
    hands = [m for m in devon.received if m.get("event") == "outcome"]
    assert hands and all(set(m["outcome"]["private"]) <= {"devon"} for m in hands)
    assert own["replayed"] is True and set(own["outcome"]["private"]) == {"devon"}
    for refused in (theirs, deal_again):
        assert refused["code"] == "forbidden"
    soldier_cards = set(state["combatants"]["soldier"]["hand"]) | set(state["deck"]["draw"])
    everything = devon.received + again.received
    assert not strings(everything) & soldier_cards
    assert "soldier" not in json.dumps([m["outcome"]["private"] for m in hands])


# --- random duels -------------------------------------------------------------------------------

MANEUVERS = ["attack", "attack", "feint", "disarm", "parry", "parry", "dodge"]
FORBIDDEN = ("forbidden", "this connection does not act for 'soldier'")


class SocketDuel:
    """A duel played over sockets: the GM deals, reveals and resolves, each player declares and
    draws for himself on his own connection, and Devon's player probes the soldier's side."""

    def __init__(self, srv: Running, rng: random.Random, tokens: dict[str, str]) -> None:
        self.srv = srv
        self.rng = rng
        self.tag = uuid.uuid4().hex  # hypothesis may run one seed twice: ids must not repeat
        self.encounter = f"duel-{self.tag}"
        self.gm = Client(srv, srv.server.secret, events=[])
        self.players = {
            "devon": Client(srv, tokens["devon"], participants=["soldier"], events=["outcome"]),
            "soldier": Client(srv, tokens["soldier"], events=[]),
        }
        self.devon = self.players["devon"]
        self.sent = 0
        self.refusals: set[tuple[str, str]] = set()
        self.devon_cards: set[str] = set()
        """Every card Devon has held or sealed: the only card ids he may ever be shown."""

    def ask(self, client: Client, type: str, body: dict[str, Any]) -> dict[str, Any]:
        self.sent += 1
        rid = f"{self.tag}-{self.sent}"
        reply = client.ask(karmic(rid, type, body, self.encounter))
        if self.rng.random() < 0.1:
            # A retry of the same id: the replay must be the same view.
            again = client.ask(karmic(rid, type, body, self.encounter))
            if reply["type"] == "outcome":
                assert again["replayed"] is True
                assert (again["seq"], again["outcome"]) == (reply["seq"], reply["outcome"])
            else:
                assert again == reply
        return reply

    def state(self) -> dict[str, Any]:
        state = encounter_state(self.srv, self.encounter)
        devon = state["combatants"]["devon"]
        self.devon_cards |= set(devon["hand"])
        return state

    def probe(self, state: dict[str, Any]) -> None:
        """Devon's player tries to act for the soldier with a card of the soldier's hand."""
        hand = state["combatants"]["soldier"]["hand"] or list(DECK)
        card = self.rng.choice(hand)
        kind, body = self.rng.choice(
            [
                ("declare", {"combatant": "soldier", "maneuvers": []}),
                (
                    "declare",
                    {
                        "combatant": "soldier",
                        "maneuvers": [{"maneuver": "attack", "card": card, "target": "devon"}],
                    },
                ),
                ("hit_draw", {"combatant": "soldier", "card": card}),
                ("odds", {"viewer": "soldier", "attacker": "devon", "target": "soldier"}),
                ("view", {"viewer": "soldier"}),
            ]
        )
        reply = self.ask(self.devon, kind, body)
        self.refusals.add((reply["code"], reply["message"]))

    def declare(self, cid: str) -> None:
        state = self.state()
        hand = state["combatants"][cid]["hand"]
        foe = "soldier" if cid == "devon" else "devon"
        maneuvers: list[dict[str, Any]] = []
        if hand and self.rng.random() < 0.85:
            maneuvers = [
                {
                    "maneuver": self.rng.choice(MANEUVERS),
                    "card": self.rng.choice(hand),
                    "target": foe,
                }
            ]
        client = self.players[cid]
        reply = self.ask(client, "declare", {"combatant": cid, "maneuvers": maneuvers})
        if reply["type"] == "error" and maneuvers:
            self.ask(client, "declare", {"combatant": cid, "maneuvers": []})
        if cid == "devon" and self.rng.random() < 0.3:
            self.ask(client, "odds", {"viewer": "devon", "attacker": foe, "target": "devon"})
            self.ask(client, "view", {"viewer": "devon"})

    def play(self, rounds: int) -> None:
        self.ask(self.gm, "start_duel", START)
        for _ in range(rounds):
            if self.rng.random() < 0.3:
                self.ask(self.gm, "draw_initiative", {"between": ["devon", "soldier"]})
            if self.ask(self.gm, "draw_hands", {})["type"] == "error":
                return
            self.state()  # Devon's new hand: cards he may be shown by id
            for _ in range(6):
                state = self.state()
                if state["over"] or state["round"]["over"]:
                    break
                self.probe(state)
                for cid in [*self.rng.sample(["devon", "soldier"], 2), "devon", "soldier"]:
                    self.declare(cid)
                self.devon_cards |= {
                    d["card"]
                    for reg in self.state()["round"]["registers"]
                    for d in reg["declarations"].get("devon", ())
                }
                self.ask(self.gm, "reveal", {})
                for reg in self.state()["round"]["registers"]:
                    if reg["revealed"] and not reg["resolved"]:
                        for cid, decls in reg["declarations"].items():
                            for d in decls:
                                if self.rng.random() < 0.5:
                                    body = {"combatant": cid, "card": d["card"]}
                                    self.ask(self.players[cid], "hit_draw", body)
                self.ask(self.gm, "resolve_register", {})
            if self.state()["over"]:
                return

    def close(self) -> None:
        for client in (self.gm, *self.players.values()):
            client.close()


@pytest.fixture(scope="module")
def duel_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Running, dict[str, str]]]:
    with bundled_server(tmp_path_factory.mktemp("duels")) as srv:
        tokens = {cid: srv.player(f"{cid}-player", cid) for cid in ("devon", "soldier")}
        yield srv, {cid: token for cid, token in tokens.items() if token is not None}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_in_random_duels_over_sockets_a_player_receives_no_hidden_die_and_no_card_not_his(
    duel_server: tuple[Running, dict[str, str]], seed: int
) -> None:
    srv, tokens = duel_server
    duel = SocketDuel(srv, random.Random(seed), tokens)
    try:
        duel.play(rounds=3)
        duel.state()
        duel.devon.drain()
    finally:
        duel.close()
    received = duel.devon.received
    outcomes = [m for m in received if m.get("type") == "outcome" or m.get("event") == "outcome"]
    assert outcomes
    assert not any(d.get("hidden") or "shuffle" in d["expr"] for d in dice_of(received))
    assert all(m["outcome"]["state"] is None for m in outcomes)
    assert all(set(m["outcome"]["private"]) <= {"devon"} for m in outcomes)
    shown_ids = strings(received) & set(DECK)
    assert shown_ids <= duel.devon_cards, shown_ids - duel.devon_cards
    assert duel.sent > 10 and duel.refusals == {FORBIDDEN}


class EngineDuel:
    """A duel played on the engine, each request of Devon's player (for Devon, and probes for
    the soldier) answered as the server would (authority, then the engine, then Devon's view)
    twice: against the real state, and against one where the soldier's hand was swapped with
    cards from deep in the draw pile. The two answers (outcome or error) must be the same text."""

    DEPTH = 4
    """Cards on top of the pile left in place: a request of Devon's draws at most one."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rules = load_ruleset("karmic")
        self.seed = rng.randbytes(32)
        self.source = KeyedSource(self.seed)
        self.state: dict[str, Any] | None = None
        self.n = 0
        self.compared = 0

    def answer(self, type: str, body: dict[str, Any], state: Any, counter: int) -> str:
        """What Devon's connection would be sent for this request (its text)."""
        request = Request(
            id=f"e-{self.n}", ruleset="karmic", type=type, body=body, encounter="duel"
        )
        source = KeyedSource(self.seed, counter)
        try:
            # The server's own order: who may act first, then the engine.
            authorize(request, ENGINE.requests[type], DEVON_VIEW)
        except ProtocolError as err:
            return json.dumps([err.code, err.message])
        try:
            outcome = resolve(
                request, ENGINE, self.rules.model, self.rules.content_hash, state, source
            )
        except (EngineError, RequestError) as err:
            return json.dumps(["error", str(err)])
        return OutcomeText(kept(outcome, "duel")).shown(DEVON_VIEW)

    def swapped(self) -> dict[str, Any]:
        assert self.state is not None
        other = copy.deepcopy(self.state)
        hand = other["combatants"]["soldier"]["hand"]
        draw = other["deck"]["draw"]
        pool = hand + draw[self.DEPTH :]
        self.rng.shuffle(pool)
        other["combatants"]["soldier"]["hand"] = pool[: len(hand)]
        other["deck"]["draw"] = draw[: self.DEPTH] + pool[len(hand) :]
        return other

    def send(self, type: str, body: dict[str, Any], by_devon: bool = False) -> bool:
        counter = self.source.counter
        self.n += 1
        request = Request(
            id=f"s-{self.n}", ruleset="karmic", type=type, body=body, encounter="duel"
        )
        if by_devon and self.state is not None:
            seen = self.answer(type, body, self.state, counter)
            assert seen == self.answer(type, body, self.swapped(), counter), (type, body)
            self.compared += 1
        try:
            outcome = resolve(
                request, ENGINE, self.rules.model, self.rules.content_hash, self.state, self.source
            )
        except (EngineError, RequestError):
            return False
        if outcome["state"] is not None:
            self.state = outcome["state"]
        return True

    def devon_moves(self) -> None:
        assert self.state is not None
        hand = self.state["combatants"]["devon"]["hand"]
        cards = [*hand, *self.rng.sample(DECK, 3)]  # his cards, and probes with others
        moves: list[tuple[str, dict[str, Any]]] = [
            ("declare", {"combatant": "devon", "maneuvers": []}),
            ("odds", {"viewer": "devon", "attacker": "soldier", "target": "devon"}),
            ("odds", {"viewer": "devon", "attacker": "devon", "target": "soldier"}),
            ("view", {"viewer": "devon"}),
            ("hit_draw", {"combatant": "devon", "card": self.rng.choice(cards)}),
            ("hit_draw", {"combatant": "devon", "play": 0}),
            ("hesitate", {"combatant": "devon", "opponent": "soldier"}),
            ("charge", {"combatant": "devon", "target": "soldier"}),
        ]
        # Probes for the soldier, with his cards and others: the answer must not tell them apart.
        theirs = [*self.state["combatants"]["soldier"]["hand"], *self.rng.sample(DECK, 2)]
        for card in self.rng.sample(theirs, min(2, len(theirs))):
            decl = {"maneuver": "attack", "card": card, "target": "devon"}
            moves.append(("declare", {"combatant": "soldier", "maneuvers": [decl]}))
            moves.append(("hit_draw", {"combatant": "soldier", "card": card}))
        for card in self.rng.sample(cards, min(3, len(cards))):
            maneuver = self.rng.choice(MANEUVERS)
            moves.append(
                (
                    "declare",
                    {
                        "combatant": "devon",
                        "maneuvers": [{"maneuver": maneuver, "card": card, "target": "soldier"}],
                    },
                )
            )
        self.rng.shuffle(moves)
        for kind, body in moves[:6]:
            self.send(kind, body, by_devon=True)

    def play(self, rounds: int) -> None:
        assert self.send("start_duel", START)
        for _ in range(rounds):
            self.send("draw_initiative", {"between": ["devon", "soldier"]})
            if not self.send("draw_hands", {}):
                return
            for _ in range(4):
                assert self.state is not None
                if self.state["over"] or self.state["round"]["over"]:
                    break
                for _ in range(2):
                    self.devon_moves()
                    hand = self.state["combatants"]["soldier"]["hand"]
                    if hand:
                        decl = {
                            "maneuver": self.rng.choice(MANEUVERS),
                            "card": self.rng.choice(hand),
                            "target": "devon",
                        }
                        if not self.send("declare", {"combatant": "soldier", "maneuvers": [decl]}):
                            self.send("declare", {"combatant": "soldier", "maneuvers": []})
                    else:
                        self.send("declare", {"combatant": "soldier", "maneuvers": []})
                self.send("declare", {"combatant": "devon", "maneuvers": []})
                self.send("reveal", {})
                self.devon_moves()
                self.send("resolve_register", {})
            if self.state is None or self.state["over"]:
                return


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_no_answer_to_a_player_s_own_request_depends_on_the_opponent_s_hand(seed: int) -> None:
    duel = EngineDuel(random.Random(seed))
    duel.play(rounds=3)
    assert duel.compared > 0
