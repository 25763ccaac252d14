"""Outcome event frames shared between listeners never carry what one of them may not see.

The server frames an outcome event once for every listener entitled to the same bytes (the
logged text when nothing is withheld, the GM's view, the public view, a player's view for every
player owning the same of its private entries) and joins a batch of events once for every
listener holding the same ones. Hostile clients: the soldier's player listens to every outcome,
on one connection as himself and on another that claims to be the GM and to hold Devon; two
players owning Devon listen beside them, and so does the GM, while the GM deals a karmic duel
and each side declares. Each keeps every frame he is sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arbiter.bridge.limits import Limits
from arbiter.bridge.rules import RuleSource
from tests.bridge.support import running, tiny_config
from tests.security.support import DEVON, SOLDIER, Client, encounter_state, karmic, strings

START = {"combatants": [DEVON, SOLDIER]}


def outcome_events(client: Client) -> list[dict[str, Any]]:
    return [m for m in client.received if m.get("event") == "outcome"]


def test_no_listener_gets_a_private_entry_a_hidden_die_or_state_another_view_holds(
    tmp_path: Path,
) -> None:
    # The batches' timer waits an hour: after the first event, every listener's events wait
    # until the test flushes them, all at once, joined once per sequence of frames held.
    limits = Limits(rate_per_second=100_000.0, burst=100_000, event_flush_seconds=3600.0)
    with running(tiny_config(tmp_path, rules=RuleSource(), limits=limits)) as srv:
        tokens = {
            "devon-player": srv.player("devon-player", "devon"),
            "devon-friend": srv.player("devon-friend", "devon", "ally"),
            "soldier-player": srv.player("soldier-player", "soldier"),
        }
        assert None not in tokens.values()
        dealer = Client(srv, srv.server.secret, events=[])
        gm = Client(srv, srv.server.secret, events=["outcome"])
        devon = Client(srv, tokens["devon-player"], events=["outcome"])
        friend = Client(srv, tokens["devon-friend"], events=["outcome"])
        soldier = Client(srv, tokens["soldier-player"], events=["outcome"])
        posing = Client(
            srv,
            tokens["soldier-player"],
            role="gm",
            participants=["devon", "soldier"],
            events=["outcome"],
        )
        dealer.ask(karmic("k-01", "start_duel", START))
        dealer.ask(karmic("k-02", "draw_initiative", {"between": ["devon", "soldier"]}))
        dealer.ask(karmic("k-03", "draw_hands", {}))
        state = encounter_state(srv)
        order = ["devon", "soldier"]
        if state["pairs"]["devon|soldier"]["initiative"] == "soldier":
            order.reverse()
        sides = {"devon": devon, "soldier": soldier}
        for cid in order:
            sides[cid].ask(karmic(f"pass-{cid}", "declare", {"combatant": cid, "maneuvers": []}))
        listeners = (gm, devon, friend, soldier, posing)

        async def flush() -> None:
            srv.server.event_batches.flush()

        srv.call(flush())
        for client in listeners:
            client.drain()
        for client in (dealer, *listeners):
            client.close()
    devon_cards = set(state["combatants"]["devon"]["hand"])
    soldier_cards = set(state["combatants"]["soldier"]["hand"]) | set(state["deck"]["draw"])
    assert devon_cards and soldier_cards
    for client, own, hidden in (
        (devon, {"devon"}, soldier_cards),
        (friend, {"devon"}, soldier_cards),
        (soldier, {"soldier"}, devon_cards),
        (posing, {"soldier"}, devon_cards),
    ):
        events = outcome_events(client)
        assert [e["outcome"]["type"] for e in events][:3] == [
            "start_duel",
            "draw_initiative",
            "draw_hands",
        ]
        for event in events:
            assert set(event["outcome"]["private"]) <= own
            assert event["outcome"]["state"] is None
            assert not any(d.get("hidden") for d in event["outcome"]["dice"])
        assert not strings(client.received) & hidden
    # The GM's listener got the very events with every hand: the players' frames are not his.
    dealt = [e for e in outcome_events(gm) if e["outcome"]["type"] == "draw_hands"]
    assert [set(e["outcome"]["private"]) for e in dealt] == [{"devon", "soldier"}]
    # Devon's two players own the same entries: the same view of the deal, Devon's hand in it.
    [for_devon] = [e for e in outcome_events(devon) if e["outcome"]["type"] == "draw_hands"]
    [for_friend] = [e for e in outcome_events(friend) if e["outcome"]["type"] == "draw_hands"]
    assert for_devon == for_friend and set(for_devon["outcome"]["private"]) == {"devon"}
