"""The encounter workload of the bridge benchmark fights real encounters on a real server: every
message it sends is decided and logged inside an encounter whose state the server keeps (no
timing is asserted: speed is read from the benchmark's output, not tested)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from websockets.asyncio.client import connect

from arbiter.bridge.rules import RuleSource
from benchmarks.bridge_encounter import example_fighters, measure_fights
from tests.bridge.support import hello_message, running, tiny_config
from tests.support.apart import run_apart

ROOT = Path(__file__).resolve().parents[2]


def test_the_encounter_workload_sends_turns_and_exchanges_the_server_decides(
    tmp_path: Path,
) -> None:
    fighters = example_fighters(ROOT)
    assert [f["id"] for f in fighters] == ["guard", "vessa"]
    with running(tiny_config(tmp_path, rules=RuleSource())) as srv:

        async def fight() -> tuple[list[float], dict[str, int]]:
            sockets = []
            for _ in range(2):
                ws = await connect(srv.url)
                await ws.send(json.dumps(hello_message(srv.server.secret, events=[])))
                assert json.loads(await ws.recv())["type"] == "welcome"
                sockets.append(ws)
            times, _, sent = await measure_fights(sockets, fighters, "t", 60.0, 60)
            await asyncio.gather(*(ws.close() for ws in sockets))
            return times, sent

        times, sent = run_apart(fight())
        rows = list(srv.server.store.rolls())
    assert 60 <= len(times) < 60 + 2  # the bound, plus at most one in flight per connection
    assert sent["start_encounter"] >= 2 and sent["initiative"] >= 2
    assert sent["exchange"] >= 10 and sent["next_turn"] >= 10
    # Every message was a request the server decided inside an encounter, but those the rules
    # refused before any die (not logged).
    assert len(rows) == len(times) - sent["rules_forbid"]
    assert all(row.entry.encounter for row in rows)
    exchanges = [json.loads(r.entry.outcome) for r in rows if r.entry.type == "exchange"]
    assert exchanges and all(o["result"]["status"] == "complete" for o in exchanges)
    assert all(o["state"] is not None for o in exchanges)
