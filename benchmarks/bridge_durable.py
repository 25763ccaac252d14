"""The durable echo: the floor ``benchmarks/bridge.py`` measures Arbiter's server against.

Run: ``python benchmarks/bridge_durable.py REPLY_BYTES DATABASE`` (prints its URL, then serves).

A ``websockets`` server (same asyncio API, compression off, 1 MiB frames, as Arbiter and the bare
echo) that does, per message, the durable work the bridge issue requires of any server that
answers only with what it has logged, and nothing else:

* parse the frame's JSON (``json.loads``) and read the request id;
* look the id up in the log (an index probe on a UNIQUE column): a known id is answered with
  its stored reply;
* chain a SHA-256 over the previous row's hash, the request frame and the reply;
* INSERT the row into SQLite (WAL, ``synchronous=NORMAL``);
* COMMIT once per event-loop turn, for every row staged in that turn (group commit), then answer
  each message of the turn with its reply.

Its replies are ``REPLY_BYTES`` long (as long as Arbiter's answer to the same request), so both
move the same bytes each way.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import sys

from websockets.asyncio.server import ServerConnection, serve

SCHEMA = """
CREATE TABLE IF NOT EXISTS rolls (
  seq INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL UNIQUE,
  request TEXT NOT NULL,
  reply TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
"""


class DurableLog:
    """A hash-chained SQLite log with one COMMIT per event-loop turn."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self.prev = "0" * 64
        self.turn: asyncio.Future[None] | None = None
        """Set while rows staged in this turn wait for their commit."""

    def find(self, request_id: str) -> str | None:
        row = self.db.execute("SELECT reply FROM rolls WHERE request_id = ?", (request_id,))
        found = row.fetchone()
        return found[0] if found else None

    def stage(self, request_id: str, request: str, reply: str) -> None:
        digest = hashlib.sha256()
        digest.update(self.prev.encode())
        digest.update(request.encode())
        digest.update(reply.encode())
        hashed = digest.hexdigest()
        if not self.db.in_transaction:
            self.db.execute("BEGIN IMMEDIATE")
        self.db.execute(
            "INSERT INTO rolls (request_id, request, reply, prev_hash, hash) VALUES (?, ?, ?, ?, ?)",
            (request_id, request, reply, self.prev, hashed),
        )
        self.prev = hashed

    async def committed(self) -> None:
        """Wait for the commit of every row staged in this turn (one COMMIT for all of them)."""
        if self.turn is None:
            loop = asyncio.get_running_loop()
            self.turn = loop.create_future()
            loop.call_soon(self._commit)
        await asyncio.shield(self.turn)

    def _commit(self) -> None:
        turn, self.turn = self.turn, None
        self.db.execute("COMMIT")
        if turn is not None:
            turn.set_result(None)


async def main(reply_bytes: int, database: str) -> None:
    reply = "x" * reply_bytes
    log = DurableLog(database)

    async def answer(ws: ServerConnection) -> None:
        async for message in ws:
            request = json.loads(message)["request"]
            stored = log.find(request["id"])
            if stored is None:
                log.stage(request["id"], str(message), reply)
                await log.committed()
                stored = reply
            await ws.send(stored)

    async with serve(answer, "127.0.0.1", 0, compression=None, max_size=2**20) as server:
        print(f"durable: ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
