"""A host that owns world ``w``, commits a row, stages another and waits (to be stopped with
SIGSTOP by tests/bridge/stores/test_ownership.py); told to go on, it says whether its lease
was still valid, tries to commit, and renews. Run: ``python -m tests.bridge.stores.paused_owner
DSN``; it prints ``staged``, then one JSON line."""

from __future__ import annotations

import asyncio
import json
import sys

from arbiter.bridge.records import Session
from arbiter.bridge.stores import StaleWriter
from arbiter.bridge.stores.ownership import Claimed, Host
from tests.support.rolls import new_roll


async def main(dsn: str) -> None:
    host = Host(dsn, "host-a", "wss://a.example/w/w", ttl=1.0, margin=0.1)
    claimed = await host.claim("w")
    assert isinstance(claimed, Claimed), claimed
    store = await host.open_store(claimed)
    store.open_session(Session("s-a", "seed", "commitment", "gm", "foundry", 1.0, None))
    store.stage(new_roll("a"))
    await store.flush()
    store.stage(new_roll("stale"))
    print("staged", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    valid = claimed.lease.valid()
    try:
        await store.flush()
        flushed = "committed"
    except StaleWriter:
        flushed = "StaleWriter"
    lost = await host.renew()
    print(json.dumps({"valid": valid, "flush": flushed, "lost": lost}), flush=True)
    await store.close()
    await host.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
