"""A world's own rules on a host of many worlds (``bridge/world_rules.py``, ``arbiter rules
publish``), on a real PostgreSQL and real websockets on loopback: two worlds on one host with
different rules decide the same request and dice differently (the house edit in one only);
worlds publishing the same rules share one snapshot object, dropped once no served world uses
it; publishing new rules for a served world reaches its next request without a restart, and
not the other world's; unpublishing goes back to the host's rules; a world whose stored rules do
not load is not served (1013 naming why) while the others are."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from websockets.sync.client import ClientConnection

from arbiter.bridge import world_rules
from arbiter.bridge.cli import main
from arbiter.bridge.server import open_server
from arbiter.bridge.server_config import ServerConfig
from arbiter.bridge.stores.postgres_rules import RuleSources
from arbiter.bridge.world import PostgresWorld
from arbiter.compiler.errors import RuleError
from arbiter.compiler.foundry.rules_data import rules_data
from arbiter.compiler.model.loader import RULES_ROOT, load_all
from tests.bridge.support import (
    bundled_config,
    bundled_request,
    hello_message,
    receive,
    running,
    send,
)
from tests.bridge.test_hosting import (
    RunningHost,
    closed_with,
    host_config,
    hosting,
    owner,
    secret_of,
)
from tests.support.apart import run_apart

TABLES = "hit_location_tables.toml"
BUNDLED = (RULES_ROOT / "combat-styles" / TABLES).read_text(encoding="utf-8")
FIRST_ROW = 'text = "Right Leg"'
"""The humanoid hit-location table's first row (1–3 on 1d20) in the bundled rules."""


def house(folder: Path, first_row: str) -> Path:
    """A house-rule folder whose humanoid table's first row is named ``first_row``."""
    assert FIRST_ROW in BUNDLED
    (folder / "combat-styles").mkdir(parents=True, exist_ok=True)
    text = BUNDLED.replace(FIRST_ROW, f'text = "{first_row}"')
    (folder / "combat-styles" / TABLES).write_text(text, encoding="utf-8")
    return folder


def store_url(dsn: str) -> str:
    """The URL ``--store`` takes for the database of ``dsn`` (a keyword string)."""
    words = dict(word.split("=", 1) for word in dsn.split())
    return f"postgresql://{words['user']}@{words['host']}:{words['port']}/{words['dbname']}"


def cli(*argv: str) -> int:
    """``arbiter ARGV`` in a thread of its own (it runs its own event loop: see run_apart)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(main, list(argv)).result()


def publish(dsn: str, world: str, folder: Path) -> None:
    command = ["rules", "publish", "--store", store_url(dsn), "--world", world]
    assert cli(*command, "--rules", str(folder)) == 0


def config(tmp: Path, dsn: str, host_id: str = "a") -> ServerConfig:
    return replace(host_config(tmp, dsn, host_id), allow_scripted_dice=True, reload_interval=0.05)


def gm(host: RunningHost, world: str, dsn: str) -> tuple[ClientConnection, dict[str, Any]]:
    """A GM connection to ``world`` subscribed to ``rules`` events, and its welcome."""
    ws = host.connect(world)
    send(ws, hello_message(secret_of(dsn, world), events=["rules"]))
    welcome = receive(ws, timeout=15)
    assert welcome["type"] == "welcome", welcome
    return ws, welcome


def draw(ws: ClientConnection, rid: str) -> dict[str, Any]:
    """Draw on the humanoid table with a 1 (its first row); the outcome."""
    send(ws, bundled_request(rid, "draw", {"table": "humanoid"}) | {"dice": [1]})
    reply = receive(ws, timeout=15)
    assert reply["type"] == "outcome", reply
    return dict(reply["outcome"])


async def health(host: RunningHost) -> dict[str, Any]:
    """What the host's ``/healthz`` answers (read on its loop)."""
    return host.host.health()


def until(check: Callable[[], bool], what: str, timeout: float = 20) -> None:
    """Poll ``check`` until true (the limit only ends a test that would hang)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


def test_two_worlds_on_one_host_decide_the_same_draw_with_their_own_rules(
    postgres_database: str, tmp_path: Path
) -> None:
    dsn = postgres_database
    secret_of(dsn, "house"), secret_of(dsn, "plain")  # both worlds made, as their GMs would
    mine = house(tmp_path / "mine", "Right shin")
    publish(dsn, "house", mine)
    with hosting(config(tmp_path / "h", dsn)) as host:
        a, welcome_a = gm(host, "house", dsn)
        b, welcome_b = gm(host, "plain", dsn)
        house_hash = welcome_a["rulesets"]["combat-styles"]["hash"]
        host_hash = welcome_b["rulesets"]["combat-styles"]["hash"]
        assert house_hash != host_hash
        assert host_hash == host.host.rules.info()["combat-styles"].hash
        # The same request and the same die: row 1-3 of the table, named as each world's rules say.
        shin, leg = draw(a, "d-1"), draw(b, "d-1")
        assert (shin["result"]["text"], shin["rules_hash"]) == ("Right shin", house_hash)
        assert (leg["result"]["text"], leg["rules_hash"]) == ("Right Leg", host_hash)
        assert host.host.worlds["house"].rules is not host.host.rules
        assert host.host.worlds["plain"].rules is host.host.rules
        # A module the GM builds from the same folder carries the hash the world is served
        # with, so the client does not call it old (docs/scaling.md, "The module").
        built = rules_data(load_all(RULES_ROOT, mine))["rulesets"]["combat-styles"]["hash"]
        assert built == house_hash
        a.close(), b.close()


def counted_compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hashes the host compiles from now on, in order."""
    compiles: list[str] = []
    real = world_rules.compile_sources

    def counted(source: Any, sources: RuleSources, rules_hash: str) -> Any:
        compiles.append(rules_hash)
        return real(source, sources, rules_hash)

    monkeypatch.setattr(world_rules, "compile_sources", counted)
    return compiles


def test_worlds_publishing_the_same_rules_share_one_snapshot_dropped_when_unused(
    postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = postgres_database
    compiles = counted_compiles(monkeypatch)
    for world in ("one", "two"):
        secret_of(dsn, world)
        publish(dsn, world, house(tmp_path / f"copy-{world}", "Right shin"))
    with psycopg.connect(dsn) as db:
        assert db.execute("SELECT count(*) FROM rule_sets").fetchone() == (1,)
    with hosting(config(tmp_path / "h", dsn)) as host:
        # Both worlds opened at once: one load of their rules, shared.
        with ThreadPoolExecutor(2) as pool:
            opened = [pool.submit(gm, host, world, dsn) for world in ("one", "two")]
            (one, _), (two, _) = (o.result() for o in opened)
        assert compiles == [RuleSources.read(tmp_path / "copy-one").hash]
        shared = host.host.worlds["one"].rules
        assert host.host.worlds["two"].rules is shared
        assert list(host.host.world_rules.snapshots.values()) == [shared]
        assert host.call(health(host))["world_rules"] == 1
        assert draw(one, "x")["result"]["text"] == draw(two, "x")["result"]["text"] == "Right shin"

        # World one moves to other rules: both snapshots are in use.
        publish(dsn, "one", house(tmp_path / "other", "Right foot"))
        assert receive(one, timeout=20)["event"] == "rules_updated"
        assert draw(one, "y")["result"]["text"] == "Right foot"
        assert host.host.worlds["two"].rules is shared
        assert len(host.host.world_rules.snapshots) == 2
        # World two follows it: the first rules are used by no world, and dropped.
        publish(dsn, "two", tmp_path / "other")
        assert receive(two, timeout=20)["event"] == "rules_updated"
        assert host.host.worlds["two"].rules is host.host.worlds["one"].rules is not shared
        assert list(host.host.world_rules.snapshots.values()) == [host.host.worlds["one"].rules]
        one.close(), two.close()


def test_rules_published_for_a_served_world_reach_its_next_request_and_no_other_world(
    postgres_database: str, tmp_path: Path
) -> None:
    dsn = postgres_database
    secret_of(dsn, "edited"), secret_of(dsn, "other")
    with hosting(config(tmp_path / "h", dsn)) as host:
        a, welcome = gm(host, "edited", dsn)
        b, _ = gm(host, "other", dsn)
        assert draw(a, "before")["result"]["text"] == "Right Leg"

        publish(dsn, "edited", house(tmp_path / "mine", "Right foot"))
        updated = receive(a, timeout=20)
        assert updated["event"] == "rules_updated"
        new_hash = updated["rulesets"]["combat-styles"]["hash"]
        assert new_hash != welcome["rulesets"]["combat-styles"]["hash"]
        after = draw(a, "after")
        assert (after["result"]["text"], after["rules_hash"]) == ("Right foot", new_hash)
        # The other world heard nothing: its next message is its own outcome, on the host's rules.
        assert draw(b, "after")["result"]["text"] == "Right Leg"

        # Back to the host's rules.
        assert cli("rules", "unpublish", "--store", store_url(dsn), "--world", "edited") == 0
        back = receive(a, timeout=20)
        assert back["event"] == "rules_updated"
        assert back["rulesets"] == welcome["rulesets"]
        assert draw(a, "back")["result"]["text"] == "Right Leg"
        until(lambda: not host.host.world_rules.snapshots, "the unused snapshot dropped")
        assert host.host.worlds["edited"].rules is host.host.rules
        a.close(), b.close()


def store_bad_rules(dsn: str, world: str) -> RuleSources:
    """Point ``world`` at rules that do not load, stored behind `arbiter rules publish`'s back
    (which refuses them), as rules a host of another arbiter version cannot load would be: 4 is
    on no row of the humanoid table."""
    text = BUNDLED.replace("range = [4, 6]", "range = [5, 6]")
    bad = RuleSources({f"combat-styles/{TABLES}": text})
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(
            "INSERT INTO rule_sets (hash, sources, published) VALUES (%s, %s, 0)",
            (bad.hash, bad.encoded()),
        )
        db.execute("UPDATE worlds SET rules = %s WHERE id = %s", (bad.hash, world))
    return bad


def test_a_world_whose_stored_rules_do_not_load_is_not_served_and_the_others_are(
    postgres_database: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dsn = postgres_database
    secret_of(dsn, "broken"), secret_of(dsn, "fine")
    bad = store_bad_rules(dsn, "broken")
    compiles = counted_compiles(monkeypatch)
    with hosting(config(tmp_path / "h", dsn)) as host:
        for _ in range(2):
            refused = host.connect("broken")
            assert closed_with(refused) == (1013, world_rules.RULES_UNLOADABLE)
        assert compiles == [bad.hash]  # the second connection costs no compile
        assert "broken" not in host.host.worlds
        assert owner(dsn, "broken")[0] is None  # released: another host may try
        assert not host.host.world_rules.snapshots
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert f"rules-{bad.hash[:12]}/combat-styles/{TABLES}" in logged
        assert "humanoid" in logged and "range" in logged
        ws, _ = gm(host, "fine", dsn)
        assert draw(ws, "d")["result"]["text"] == "Right Leg"
        ws.close()


def test_one_world_served_without_a_host_is_served_with_the_rules_it_names_at_start(
    postgres_database: str, tmp_path: Path
) -> None:
    dsn = postgres_database
    secret_of(dsn, "w"), secret_of(dsn, "bad")
    publish(dsn, "w", house(tmp_path / "mine", "Right shin"))
    single = bundled_config(
        tmp_path / "s", postgres=PostgresWorld(dsn, "w"), allow_scripted_dice=True
    )
    with running(single) as srv:
        ws, _ = srv.hello(events=[])
        assert draw(ws, "d")["result"]["text"] == "Right shin"
        assert srv.server.watcher is None  # the --rules files are not this world's rules
        ws.close()

    bad = store_bad_rules(dsn, "bad")
    with pytest.raises(RuleError) as refused:
        run_apart(open_server(replace(single, postgres=PostgresWorld(dsn, "bad"))))
    assert f"rules-{bad.hash[:12]}/combat-styles/{TABLES}" in refused.value.report()


def test_new_rules_of_a_served_world_that_do_not_load_keep_its_rules_and_tell_its_gm(
    postgres_database: str, tmp_path: Path
) -> None:
    dsn = postgres_database
    secret_of(dsn, "w")
    publish(dsn, "w", house(tmp_path / "mine", "Right shin"))
    with hosting(config(tmp_path / "h", dsn)) as host:
        ws, _ = gm(host, "w", dsn)
        kept = host.host.worlds["w"].rules
        bad = store_bad_rules(dsn, "w")
        error = receive(ws, timeout=20)
        assert error["event"] == "rules_error"
        assert any(
            f"rules-{bad.hash[:12]}/combat-styles/{TABLES}" in p and "humanoid" in p
            for p in error["problems"]
        )
        assert draw(ws, "d")["result"]["text"] == "Right shin"
        assert host.host.worlds["w"].rules is kept
        # Told once: the next message is the answer to a ping, not the same error again.
        until(lambda: host.host.world_rules.refused.get("w") == bad.hash, "refusal noted")
        send(ws, {"v": 1, "type": "ping", "id": "p"})
        assert receive(ws)["type"] == "pong"
        ws.close()


def test_a_connection_to_a_world_known_unloadable_costs_no_claim(
    postgres_database: str, tmp_path: Path
) -> None:
    dsn = postgres_database
    secret_of(dsn, "broken")
    store_bad_rules(dsn, "broken")
    with hosting(config(tmp_path / "h", dsn)) as host:
        refused = host.connect("broken")
        assert closed_with(refused) == (1013, world_rules.RULES_UNLOADABLE)
        until(lambda: owner(dsn, "broken")[0] is None, "the first claim released")
        epoch = owner(dsn, "broken")[1]
        for _ in range(3):
            refused = host.connect("broken")
            assert closed_with(refused) == (1013, world_rules.RULES_UNLOADABLE)
        # Known not to load: refused before any claim (no epoch bump, no sessions ended).
        assert owner(dsn, "broken") == (None, epoch)


def test_rules_that_failed_to_load_for_the_host_s_own_trouble_are_tried_again(
    postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = postgres_database
    secret_of(dsn, "w")
    publish(dsn, "w", house(tmp_path / "rules", "Right shin"))
    real = world_rules.compile_sources
    failures = [OSError(28, "No space left on device")]

    def full_tmp(source: Any, sources: RuleSources, rules_hash: str) -> Any:
        if failures:
            raise failures.pop()
        return real(source, sources, rules_hash)

    monkeypatch.setattr(world_rules, "compile_sources", full_tmp)
    with hosting(config(tmp_path / "h", dsn)) as host:
        refused = host.connect("w")
        assert closed_with(refused) == (1013, world_rules.RULES_UNLOADABLE)
        refused = host.connect("w")  # within RETRY_AFTER: refused without a new attempt
        assert closed_with(refused) == (1013, world_rules.RULES_UNLOADABLE)
        host.host.world_rules.failed = {  # its time is up
            h: (why, 0.0) for h, (why, _) in host.host.world_rules.failed.items()
        }
        ws, _ = gm(host, "w", dsn)  # tried again: /tmp has room now
        assert draw(ws, "d")["result"]["text"] == "Right shin"
        ws.close()
