"""Review of the kept stat-block resolutions (bridge/stat_block_plugs.py, issue #16), as hostile
players and as an auditor of the roll log.

The server resolves a request naming the GM's stored blocks once per text and viewer and keeps
the result while the blocks it used stay the ones kept. Hostile and honest clients, over real
websockets against a real server of the bundled rules, send the very same request text (a new
id each time) from the GM, from players holding different participants, relayed by the GM, on
two connections of one player, across a put staged in the same group commit, across a commit
that fails and rolls the put back, and in floods of distinct texts. Each decision must use the
blocks its own sender is decided with, as they are when it comes; the roll log must be, byte
for byte, what the same requests give with the cache turned off (the same keyed dice); no
player's frames may hold the GM's block; and the cache must stay bounded.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import threading
import types
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge import session as session_module
from arbiter.bridge.rules import RuleSource
from arbiter.bridge.stat_block_plugs import Plugs
from arbiter.bridge.stat_block_resolving import Resolver
from arbiter.bridge.stat_block_shield import SHIELDED
from tests.bridge.support import Running, running, tiny_config
from tests.security.support import (
    DEVON,
    SOLDIER,
    Client,
    bundled_server,
    karmic,
    remove_hmk_weapon,
    served_rules_copy,
)
from tests.security.test_fudged_blocks import FUDGED, logged_request
from tests.security.test_stat_block_vault import ANA, ORC, REFERENCE, ask, attack, orc_blocks, put

EDITED = {**ORC, "defensive_tactics": 61, "armor": "leather", "skills": {"war-hammer": 40}}
"""The orc after the GM's edit."""
ODD = {**ORC, "name": 'Orc \U0001f600 </script> \u2028 \u00e9 \\ " \x7f'}
"""The orc with a name orjson must write and read back as it is (non-BMP, line separator,
escapes, DEL)."""
ROUNDS = 5
"""Sends of each text: the reader keeps a body the second time, the vault its resolution the
third, taken from the fourth on."""


def by_reference(rid: str) -> dict[str, Any]:
    """Ana attacks the orc, both named by reference (what the GM's client sends)."""
    sent = attack(rid, REFERENCE)
    sent["request"]["body"]["attacker"] = {"id": "ana", "stored": True}
    return sent


def fudged(rid: str) -> dict[str, Any]:
    """Ana (by reference) attacks the orc written in with a hostile player's numbers."""
    sent = attack(rid, FUDGED)
    sent["request"]["body"]["attacker"] = {"id": "ana", "stored": True}
    return sent


def relayed(player: str, message: Callable[[str], dict[str, Any]]) -> Callable[[str], Any]:
    """``message`` relayed by the GM's connection for ``player``."""
    return lambda rid: {**message(rid), "player": player}


def twice(first: dict[str, Any], last: dict[str, Any]) -> Callable[[str], str]:
    """A frame (as text) whose body writes ``defender`` twice: ``first``, then ``last`` (JSON's
    rule, pydantic's parser: the last counts; the log must keep only what was decided)."""

    def frame(rid: str) -> str:
        text = json.dumps(attack(rid, last))
        return text.replace('"defender": ', f'"defender": {json.dumps(first)}, "defender": ', 1)

    return frame


def asked(client: Client, message: dict[str, Any] | str) -> dict[str, Any]:
    """:func:`ask`, for a message given as values or as the frame's text."""
    if isinstance(message, dict):
        return ask(client, message)
    ident = json.loads(message)["request"]["id"]
    client.ws.send(message)
    while True:
        reply = client._next(5)
        answered = reply.get("id") or (reply.get("outcome") or {}).get("id")
        if reply["type"] != "event" and answered == ident:
            return reply


def hits(srv: Running) -> list[int]:
    """A counter of the requests answered from a kept resolution (patched on the server)."""
    resolver = srv.server.vault.resolver
    taken = [0]
    again = resolver._again

    def counting(*args: Any) -> Any:
        found = again(*args)
        taken[0] += found is not None
        return found

    resolver._again = counting  # type: ignore[method-assign]
    return taken


def plugs(srv: Running) -> Plugs:
    return srv.server.vault.resolver.plugs  # type: ignore[no-any-return]


def entries(srv: Running) -> int:
    async def count() -> int:
        return len(plugs(srv)._entries)

    found: int = srv.call(count())
    return found


@pytest.fixture
def same_dice(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], None]]:
    """Every connection's dice seed and session id from a counter (reset by the function
    yielded): two servers fed the same frames in the same order roll the same dice."""
    made = [0]

    def token_bytes(n: int) -> bytes:
        made[0] += 1
        return hashlib.sha256(f"seed-{made[0]}".encode()).digest()[:n]

    def uuid4() -> Any:
        return types.SimpleNamespace(hex=hashlib.md5(f"id-{made[0]}".encode()).hexdigest())

    monkeypatch.setattr(session_module, "secrets", types.SimpleNamespace(token_bytes=token_bytes))
    monkeypatch.setattr(session_module, "uuid", types.SimpleNamespace(uuid4=uuid4))

    def reset() -> None:
        made[0] = 0

    yield reset


def logged_rows(srv: Running) -> list[tuple[Any, ...]]:
    """Every row's logged columns but its time (and the hashes, which hash the time)."""

    async def read() -> list[tuple[Any, ...]]:
        return [
            (
                r.seq,
                r.entry.request_id,
                r.entry.session,
                r.entry.user,
                r.entry.request,
                r.entry.dice,
                r.entry.outcome,
                r.entry.counter,
                r.entry.player,
            )
            for r in srv.server.store.rolls()
        ]

    found: list[tuple[Any, ...]] = srv.call(read())
    return found


def scenario(srv: Running) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """The GM, pat (ana) and bo (ana, orc) send the same texts again and again, the GM edits,
    deletes and stores the orc again, ids are resent: every answer and every logged row."""
    gm = Client(srv, srv.server.secret, events=[])
    pat_token = srv.player("pat", "ana")
    bo_token = srv.player("bo", "ana", "orc")
    assert pat_token is not None and bo_token is not None
    pat = Client(srv, pat_token, events=[])
    bo = Client(srv, bo_token, events=[])
    answers: list[dict[str, Any]] = []
    assert put(gm, ANA, "p-a")["ok"] is True
    assert put(gm, ODD, "p-o")["ok"] is True
    texts: dict[str, tuple[Client, Callable[[str], Any]]] = {
        "gm-ref": (gm, by_reference),
        "gm-fud": (gm, fudged),
        "gm-relay": (gm, relayed("pat", fudged)),
        "pat-ref": (pat, lambda rid: attack(rid, REFERENCE)),
        "pat-fud": (pat, fudged),
        "bo-fud": (bo, fudged),
        "bo-ref": (bo, by_reference),
        "gm-dup": (gm, twice(FUDGED, REFERENCE)),
        "gm-dup2": (gm, twice(REFERENCE, FUDGED)),
        "pat-dup": (pat, twice(FUDGED, REFERENCE)),
        "pat-dup2": (pat, twice(REFERENCE, FUDGED)),
    }

    def rounds(stage: str, times: int) -> None:
        for n in range(times):
            for name, (client, message) in texts.items():
                answers.append(asked(client, message(f"{name}-{stage}-{n}")))

    rounds("a", ROUNDS)
    # Resends of decided ids (the outcome recorded, from the log).
    answers += [ask(pat, fudged("pat-fud-a-3")), ask(gm, by_reference("gm-ref-a-4"))]
    assert put(gm, {**EDITED, "name": ODD["name"]}, "p-e")["ok"] is True
    rounds("b", 3)
    answers += [ask(pat, fudged("pat-fud-a-4")), ask(bo, by_reference("bo-ref-a-2"))]
    answers.append(ask(gm, {"v": 1, "type": "delete_stat_block", "id": "d-1", "ruleset": "hmk",
                            "participant": "orc"}))  # fmt: skip
    rounds("c", 1)
    assert put(gm, ODD, "p-o2")["ok"] is True
    rounds("d", ROUNDS)
    for client in (gm, pat, bo):
        client.drain()
    # (The orc's weapon may show: a disarming blow names it, as the card shows the table.)
    assert not orc_blocks(pat.received)
    return answers, logged_rows(srv)


def test_the_roll_log_and_every_answer_are_byte_for_byte_those_without_kept_resolutions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, same_dice: Callable[[], None]
) -> None:
    # The same frames, the same dice: once as served, once with every kept resolution refused
    # (each request resolved afresh, the path before the cache). The log must not tell them
    # apart, nor may any answer.
    with bundled_server(tmp_path / "kept") as srv:
        taken = hits(srv)
        kept_answers, kept_rows = scenario(srv)
    same_dice()
    monkeypatch.setattr(Resolver, "_again", lambda *args: None)
    with bundled_server(tmp_path / "afresh") as srv:
        afresh_answers, afresh_rows = scenario(srv)
    assert taken[0] >= 40  # the kept resolutions were taken, for the GM and the players
    assert len(kept_rows) > 100
    defenders = {row[1]: json.loads(row[4])["body"]["defender"]["skills"]
                 for row in kept_rows if "dup" in row[1]}  # fmt: skip
    # The member written last counts, and the player's orc is the GM's whatever he wrote.
    for rid, skills in defenders.items():
        wanted = FUDGED if rid.startswith("gm-dup2") else EDITED if "-b-" in rid else ORC
        assert skills == wanted["skills"], rid
    assert kept_answers == afresh_answers
    for kept, afresh in zip(kept_rows, afresh_rows, strict=True):
        assert kept == afresh


def test_the_same_text_from_the_gm_a_relay_and_two_players_is_decided_with_each_sender_s_blocks(
    tmp_path: Path,
) -> None:
    # One text, the orc written in with a hostile player's numbers: the GM's own is decided
    # with what he wrote; pat (not holding the orc), on two connections and relayed by the GM,
    # with the orc the GM stored; bo (holding the orc) with his own numbers. Sent in turn, so
    # every sender's resolution is kept at once and each must take only his own.
    with bundled_server(tmp_path) as srv:
        taken = hits(srv)
        gm = Client(srv, srv.server.secret, events=[])
        pat_token = srv.player("pat", "ana")
        bo_token = srv.player("bo", "ana", "orc")
        assert pat_token is not None and bo_token is not None
        pat, pat2, bo = (
            Client(srv, t, events=["outcome"]) for t in (pat_token, pat_token, bo_token)
        )
        assert put(gm, ANA, "p-a")["ok"] is True
        assert put(gm, ORC, "p-o")["ok"] is True
        senders = {
            "gm": (gm, fudged),
            "pat": (pat, fudged),
            "pat2": (pat2, fudged),
            "relay-pat": (gm, relayed("pat", fudged)),
            "bo": (bo, fudged),
            "relay-bo": (gm, relayed("bo", fudged)),
        }
        answers = {
            (name, n): ask(client, message(f"{name}-{n}"))
            for n in range(ROUNDS + 2)
            for name, (client, message) in senders.items()
        }
        used = {key: logged_request(srv, f"{key[0]}-{key[1]}")["body"]["defender"]
                for key in answers}  # fmt: skip
        for client in (pat, pat2, bo):
            client.drain()
    assert {a["type"] for a in answers.values()} == {"outcome"}
    assert taken[0] >= 3 * 3
    for (name, n), defender in used.items():
        wanted = ORC if name in ("pat", "pat2", "relay-pat") else FUDGED
        assert defender == wanted, (name, n)
    for client in (pat, pat2):
        # He hears the others' outcomes (the GM's and bo's, blocks kept and all), never a block.
        heard = {
            m["outcome"]["id"].split("-")[0] for m in client.received if m.get("event") == "outcome"
        }
        assert {"gm", "bo"} <= heard
        assert not orc_blocks(client.received)


def held_flush(srv: Running, fail: bool) -> tuple[asyncio.Event, threading.Event]:
    """Hold the store's next flush until the returned gate opens (set on the server's loop);
    the threading event says it is held. ``fail``: it then fails as a failed COMMIT of the
    SQLite store does: every write of the open transaction rolled back (those staged while it
    was held too: the store's flush never suspends, so they would have been in it), the chain
    back at the last committed row, and the flush after it raising for the writes it lost."""
    store = srv.server.store
    flush = store.flush
    gate: asyncio.Event = srv.call(_event())
    held = threading.Event()

    async def holding() -> None:
        del store.flush  # the class's again: its plain call too
        held.set()
        await gate.wait()
        if not fail:
            await flush()
            return
        if store._db.in_transaction:
            store._db.execute("ROLLBACK")
        store._last_seq, store._last_hash = store._committed
        store._lost = True  # the later writes were rolled back with it
        raise OSError("disk I/O error (the review's)")

    store.flush = holding  # type: ignore[method-assign]
    return gate, held


async def _event() -> asyncio.Event:
    return asyncio.Event()


async def _until(check: Callable[[], bool]) -> bool:
    for _ in range(1000):
        if check():
            return True
        await asyncio.sleep(0.01)
    return False


def _defender(srv: Running, rid: str) -> Any:
    async def read() -> Any:
        row = srv.server.store.find(rid)
        return None if row is None else json.loads(row.entry.request)["body"]["defender"]

    return srv.call(read())


def replies(client: Client, ids: set[str]) -> dict[str, dict[str, Any]]:
    """The answers to ``ids`` (requests or vault messages), in any order."""
    found: dict[str, dict[str, Any]] = {}
    while ids - found.keys():
        reply = client._next(10)
        ident = reply.get("id") or (reply.get("outcome") or {}).get("id")
        if ident in ids:
            found[ident] = reply
    return found


@pytest.mark.parametrize("fail", [False, True], ids=["committed", "rolled-back"])
def test_a_put_staged_in_the_same_group_commit_reaches_the_player_s_repeat_and_leaves_with_it(
    tmp_path: Path, fail: bool
) -> None:
    # pat repeats his text until its resolution is kept. His next repeat opens a group whose
    # commit is held; the GM's edit of the orc is staged in it, and pat's repeats after it
    # must be decided with the edit. If that commit fails, the edit is rolled back with pat's
    # rows: his next repeat must be decided with the orc as committed, never the edit.
    with bundled_server(tmp_path) as srv:
        taken = hits(srv)
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ANA, "p-a")["ok"] is True
        assert put(gm, ORC, "p-o")["ok"] is True
        before = [ask(pat, fudged(f"r-{n}")) for n in range(ROUNDS)]
        kept = taken[0]
        assert kept >= 1
        gate, held = held_flush(srv, fail)
        pat.ws.send(json.dumps(fudged("r-open")))
        assert held.wait(10)
        gm.ws.send(json.dumps({"v": 1, "type": "put_stat_block", "id": "p-e", "ruleset": "hmk",
                               "stat_block": EDITED}))  # fmt: skip

        def edited() -> bool:
            row = srv.server.store.stat_block("hmk", "orc")
            return row is not None and json.loads(row.block) == EDITED

        assert srv.call(_until(edited))
        for rid in ("r-in", "r-in2", "r-in3"):
            pat.ws.send(json.dumps(fudged(rid)))
        assert srv.call(_until(lambda: srv.server.store.find("r-in3") is not None))
        in_group = [_defender(srv, rid) for rid in ("r-open", "r-in", "r-in2", "r-in3")]
        in_group_taken = taken[0] - kept
        srv.loop.call_soon_threadsafe(gate.set)
        put_reply = replies(gm, {"p-e"})["p-e"]
        group = replies(pat, {"r-open", "r-in", "r-in2", "r-in3"})
        after = [ask(pat, fudged(f"s-{n}")) for n in range(3)]
        used_after = [logged_request(srv, f"s-{n}")["body"]["defender"] for n in range(3)]
        pat.drain()
    assert [a["type"] for a in before + after] == ["outcome"] * (ROUNDS + 3)
    # The staged edit reached the repeats in its group (the second and third from a kept
    # resolution made with it).
    assert in_group == [ORC, EDITED, EDITED, EDITED]
    assert in_group_taken >= 2
    if fail:
        assert put_reply["type"] == "error"
        assert {r["type"] for r in group.values()} == {"error"}
        assert used_after == [ORC] * 3
    else:
        assert put_reply["ok"] is True
        assert {r["type"] for r in group.values()} == {"outcome"}
        assert used_after == [EDITED] * 3
    assert not orc_blocks(pat.received)


def test_a_repeated_text_resent_with_a_decided_id_gets_its_recorded_outcome_after_an_edit(
    tmp_path: Path,
) -> None:
    # Exactly once, on the kept path: ids decided while the resolution was kept, resent (one
    # at once, twice in a row without waiting, after the GM edited the orc, from a second
    # connection), each get the outcome recorded for them and no new row.
    with bundled_server(tmp_path) as srv:
        taken = hits(srv)
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ANA, "p-a")["ok"] is True
        assert put(gm, ORC, "p-o")["ok"] is True
        first = [ask(pat, fudged(f"x-{n}")) for n in range(ROUNDS + 1)]
        assert taken[0] >= 2
        logged = logged_rows(srv)
        again = ask(pat, fudged("x-4"))
        pat.ws.send(json.dumps(fudged("x-5")))
        twice = [ask(pat, fudged("x-5")), pat._next(10)]
        assert put(gm, EDITED, "p-e")["ok"] is True
        edited = ask(pat, fudged("x-3"))
        pat2 = Client(srv, token, events=[])
        other = ask(pat2, fudged("x-2"))
        gm_ref = [ask(gm, by_reference(f"g-{n}")) for n in range(ROUNDS)]
        gm_again = ask(gm, by_reference("g-4"))
        same = logged_rows(srv)
        pat.drain()
    assert {a["type"] for a in first + gm_ref} == {"outcome"}
    assert again == {**first[4], "replayed": True}
    assert twice == [{**first[5], "replayed": True}] * 2
    assert edited == {**first[3], "replayed": True}
    assert other == {**first[2], "replayed": True}
    assert gm_again == {**gm_ref[4], "replayed": True}
    assert same[: len(logged)] == logged and len(same) == len(logged) + ROUNDS


def test_a_flood_of_distinct_texts_keeps_the_kept_resolutions_within_their_bounds(
    tmp_path: Path,
) -> None:
    # A hostile player sends many distinct by-reference texts, each three times (so each is
    # kept), the longest ones the frame allows: the kept resolutions stay at most KEPT, their
    # log texts at most HELD bytes.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        big = {**ORC, "name": "\U0001f600" * 100}
        assert put(gm, ANA, "p-a")["ok"] is True
        assert put(gm, big, "p-o")["ok"] is True
        most = 0
        for t in range(Plugs.KEPT + 10):
            for n in range(3):
                sent = fudged(f"f-{t}-{n}")
                sent["request"]["body"]["attacker"] = {**ANA, "name": f"Ana {t}"}
                assert ask(pat, sent)["type"] == "outcome"
            most = max(most, entries(srv))

            async def held() -> int:
                return plugs(srv)._held

            assert srv.call(held()) <= Plugs.HELD
        pat.drain()
    assert 1 <= most <= Plugs.KEPT


def test_a_rules_reload_lets_the_old_rules_go_once_the_gm_s_requests_use_the_new_ones(
    tmp_path: Path,
) -> None:
    # Each served rules snapshot holds its engines, its validators and its reader (~8 MB of
    # memory here). After a reload, once requests are decided under the new rules, nothing
    # may hold the old snapshot: a kept resolution made under it is never taken again, yet
    # each entry holds its snapshot (Plug.rules) and its old reader's body until 64 entries
    # push the pool out. The GM's client repeats one text: each reload leaves one entry, so
    # up to 63 snapshots (~0.5 GB) can stay alive; a failed commit alone lets them go.
    root = served_rules_copy(tmp_path)
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        assert put(gm, ANA, "p-a")["ok"] is True
        assert put(gm, ORC, "p-o")["ok"] is True
        old = [weakref.ref(srv.server.rules)]
        for n in range(ROUNDS):
            assert ask(gm, by_reference(f"a-{n}"))["type"] == "outcome"
        for round_, weapon in enumerate(("club", "mace")):
            remove_hmk_weapon(root, weapon)
            assert gm._next(30)["event"] == "rules_updated"
            for n in range(ROUNDS):
                assert ask(gm, by_reference(f"b-{round_}-{n}"))["type"] == "outcome"
            old.append(weakref.ref(srv.server.rules))

        async def alive() -> list[bool]:
            gc.collect()
            return [ref() is not None for ref in old[:-1]]

        held = srv.call(alive())
        gm.drain()
    assert held == [False, False], "old rules snapshots are still held after the reload"


def test_a_player_s_participants_taken_given_back_and_taken_again_reach_each_next_repeat(
    tmp_path: Path,
) -> None:
    # pat writes the orc in with his own numbers, on two connections, while the GM's binds
    # give him the orc, take it, give it back (his old resolution may be taken again: the
    # same viewer, the same blocks) and take it again; then his token is revoked and a new
    # one issued holding Ana alone. Each repeat is decided with the orc as his participants
    # stand when it comes: his numbers while he holds the orc, the GM's otherwise.
    with bundled_server(tmp_path) as srv:
        taken = hits(srv)
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana", "orc")
        assert token is not None
        pat, pat2 = Client(srv, token, events=[]), Client(srv, token, events=[])
        assert put(gm, ANA, "p-a")["ok"] is True
        assert put(gm, ORC, "p-o")["ok"] is True
        stages = [("ana", "orc"), ("ana",), ("ana", "orc"), ("ana",)]
        used: list[tuple[int, Any]] = []
        for stage, participants in enumerate(stages):
            bound = ask(gm, {"v": 1, "type": "bind", "id": f"b-{stage}", "player": "pat",
                             "participants": list(participants)})  # fmt: skip
            assert bound["type"] == "pong"
            for n in range(ROUNDS):
                for name, client in (("one", pat), ("two", pat2)):
                    rid = f"{name}-{stage}-{n}"
                    assert ask(client, fudged(rid))["type"] == "outcome"
                    used.append((stage, logged_request(srv, rid)["body"]["defender"]))
        srv.revoke("pat")
        renewed = srv.player("pat", "ana", rotate=True)
        assert renewed is not None
        pat3 = Client(srv, renewed, events=[])
        for n in range(ROUNDS):
            assert ask(pat3, fudged(f"three-{n}"))["type"] == "outcome"
            used.append((len(stages), logged_request(srv, f"three-{n}")["body"]["defender"]))
        pat3.drain()
    assert taken[0] >= 10
    for stage, defender in used:
        holds_orc = stage < len(stages) and "orc" in stages[stage]
        assert defender == (FUDGED if holds_orc else ORC), stage
    assert not orc_blocks(pat3.received)


def _exchange_blocks() -> tuple[dict[str, Any], dict[str, Any]]:
    """The combat-styles example's guard and Vessa (docs/examples/combat-styles.json)."""
    data = json.loads(Path("docs/examples/combat-styles.json").read_text(encoding="utf-8"))
    entries = data.get("requests", data) if isinstance(data, dict) else data
    start = next(e for e in entries if e.get("type") == "start_encounter")
    blocks = {b["id"]: b for b in start["body"]["combatants"]}
    return blocks["guard"], blocks["vessa"]


def test_one_combat_styles_exchange_text_from_the_gm_and_two_players_uses_each_sender_s_blocks(
    tmp_path: Path,
) -> None:
    # Vessa attacks the guard, Vessa by reference, the guard written in with a hostile
    # player's numbers, each frame written the same (a new id): the GM's is decided with the
    # guard he wrote, pat's (Vessa only) with the guard the GM stored, bo's (both) with his own.
    guard, vessa = _exchange_blocks()
    weak = {**guard, "skills": {k: 1 for k in guard["skills"]}}
    with bundled_server(tmp_path) as srv:
        taken = hits(srv)
        gm = Client(srv, srv.server.secret, events=[])
        pat_token, bo_token = srv.player("pat", "vessa"), srv.player("bo", "vessa", "guard")
        assert pat_token is not None and bo_token is not None
        pat, bo = Client(srv, pat_token, events=[]), Client(srv, bo_token, events=[])
        for n, block in enumerate((guard, vessa)):
            stored = ask(gm, {"v": 1, "type": "put_stat_block", "id": f"p-{n}",
                              "ruleset": "combat-styles", "stat_block": block})  # fmt: skip
            assert stored["ok"] is True

        def exchange(rid: str) -> dict[str, Any]:
            body = {"attacker": "vessa", "defender": "guard", "weapon": "dagger",
                    "defence": "parry", "effects": [],
                    "combatants": [weak, {"id": "vessa", "stored": True}]}  # fmt: skip
            request = {"id": rid, "ruleset": "combat-styles", "type": "exchange", "body": body}
            return {"v": 1, "type": "request", "request": request}

        senders = {"gm": gm, "pat": pat, "bo": bo}
        answers = {
            (name, n): ask(client, exchange(f"{name}-{n}"))
            for n in range(ROUNDS + 1)
            for name, client in senders.items()
        }
        used = {key: logged_request(srv, f"{key[0]}-{key[1]}")["body"]["combatants"]
                for key in answers}  # fmt: skip
        pat.drain()
    assert {a["type"] for a in answers.values()} == {"outcome"}, answers
    assert taken[0] >= 6
    for (name, n), combatants in used.items():
        assert combatants == [guard if name == "pat" else weak, vessa], (name, n)
    assert not any(
        isinstance(v, dict) and v.get("id") == "guard" and "skills" in v
        for message in pat.received
        for v in _objects(message)
    )


def _objects(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


def exchange_scenario(srv: Running) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """The GM and pat (Vessa) repeat combat-styles exchanges by reference and written in
    (the GM edits the guard between): every answer and every logged row."""
    guard, vessa = _exchange_blocks()
    gm = Client(srv, srv.server.secret, events=[])
    token = srv.player("pat", "vessa")
    assert token is not None
    pat = Client(srv, token, events=[])

    def store(block: dict[str, Any], ident: str) -> dict[str, Any]:
        return ask(gm, {"v": 1, "type": "put_stat_block", "id": ident,
                        "ruleset": "combat-styles", "stat_block": block})  # fmt: skip

    def exchange(rid: str, guard_block: dict[str, Any], defence: str) -> dict[str, Any]:
        body = {"attacker": "vessa", "defender": "guard", "weapon": "dagger",
                "defence": defence, "effects": [],
                "combatants": [guard_block, {"id": "vessa", "stored": True}]}  # fmt: skip
        request = {"id": rid, "ruleset": "combat-styles", "type": "exchange", "body": body}
        return {"v": 1, "type": "request", "request": request}

    answers = [store(guard, "p-g"), store(vessa, "p-v")]
    reference = {"id": "guard", "stored": True}
    texts = [
        (gm, "gm-ref", reference, "parry"),
        (gm, "gm-in", {**guard, "name": "G\U0001f600"}, "evade"),
        (pat, "pat-ref", reference, "parry"),
        (pat, "pat-in", {**guard, "skills": {k: 1 for k in guard["skills"]}}, "evade"),
    ]
    for stage in ("a", "b"):
        for n in range(ROUNDS + 2):
            for client, name, block, defence in texts:
                answers.append(ask(client, exchange(f"{name}-{stage}-{n}", block, defence)))
        answers.append(store({**guard, "skills": {**guard["skills"], "evade": 77}}, "p-e"))
    answers.append(ask(pat, exchange("pat-ref-a-3", reference, "parry")))
    gm.drain()
    pat.drain()
    return answers, logged_rows(srv)


def test_combat_styles_exchanges_log_and_answer_byte_for_byte_as_without_kept_resolutions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, same_dice: Callable[[], None]
) -> None:
    # As the hmk test above, with exchanges (lists of blocks, effects): a kept resolution's
    # body is shared by every request of its text, so an engine that changed a body it was
    # given would show here as a later decision unlike the fresh one.
    with bundled_server(tmp_path / "kept") as srv:
        taken = hits(srv)
        kept_answers, kept_rows = exchange_scenario(srv)
    same_dice()
    monkeypatch.setattr(Resolver, "_again", lambda *args: None)
    with bundled_server(tmp_path / "afresh") as srv:
        afresh_answers, afresh_rows = exchange_scenario(srv)
    assert taken[0] >= 20
    assert len(kept_rows) > 50
    assert kept_answers == afresh_answers
    for kept, afresh in zip(kept_rows, afresh_rows, strict=True):
        assert kept == afresh


def test_a_kept_resolution_of_a_refused_text_is_refused_alike_on_every_repeat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pat's attack on the orc by reference names an encounter that is karmic's: the checks
    # that read no body refuse it (encounter_mismatch), shielded since it names the GM's orc.
    # The resolution is kept before that check, so the repeats take it: each must be refused
    # exactly as the first, nothing logged, and not one word of the orc.
    with bundled_server(tmp_path) as srv:
        find = Plugs.find
        found: list[bool] = []

        def finding(self: Plugs, *args: Any) -> Any:
            entry = find(self, *args)
            found.append(entry is not None)
            return entry

        monkeypatch.setattr(Plugs, "find", finding)
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ANA, "p-a")["ok"] is True
        assert put(gm, ORC, "p-o")["ok"] is True
        started = gm.ask(karmic("k-1", "start_duel", {"combatants": [DEVON, SOLDIER]}))
        assert started["type"] == "outcome"
        logged = logged_rows(srv)
        refused: list[dict[str, Any]] = []
        for n in range(ROUNDS + 1):
            sent = attack(f"m-{n}", REFERENCE)
            sent["request"]["encounter"] = "duel"
            refused.append(ask(pat, sent))
        after = logged_rows(srv)
        pat.drain()
    assert sum(found) >= 2  # the repeats took the kept resolution (and were refused)
    assert refused == [
        {"v": 1, "type": "error", "id": f"m-{n}", "code": "invalid_request", "message": SHIELDED,
         "retry_after": None}
        for n in range(ROUNDS + 1)
    ]  # fmt: skip
    assert after == logged
    assert not orc_blocks(pat.received)
