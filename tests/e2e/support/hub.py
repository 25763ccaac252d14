"""The harness's stand-in for Foundry's server between the pages of one world.

Every harness page opens one websocket here (``?world=W&user=U``) and gets what Foundry's server
would deliver to that user's browser, each page in its own browser context:

- ``socket``: a module socket message (``game.socket.emit("module.x", …)``) goes to every *other*
  connected page of the world, whoever the message is meant for (Foundry relays module events to
  all other clients; only the receiving code can filter).
- ``chat``: a created or updated ChatMessage goes to every other page of the world, whispers
  included: Foundry hides a whisper from non-recipients in the browser (``ChatMessage#visible``),
  so the data is treated as delivered (docs/client.md, "What Foundry delivers to whom").
- ``actor``: a changed actor (its flags and system data) goes to every other page of the world, as
  Foundry's server sends every actor update to every connected browser.
- ``query``: ``User#query`` (V13+) goes to the pages of the target user only, stamped with the
  sender's user id as Foundry's server does; the first answer goes back to the sender alone.
- ``users`` (first frame to a page): the users with a page open in the world, as Foundry's
  world data (``game.data.activeUsers``) says who is active when a browser loads, and the
  ``actor`` changes the world's pages made before (``actors``, in order): Foundry's server sends
  a loading browser the world's documents as they are then (``Game.getWorldData``:
  ``game.data.actors``), not as the world began. Each change is either among them or delivered
  to the new page afterwards, never both nor neither.
- ``activity``: a user's first page opening (``active: true``) or last page closing
  (``active: false``) goes to every other page of the world, as Foundry's server emits
  ``userActivity``; the page marks the user (in)active and calls ``userConnected``.

``ARBITER_E2E_HUB_DELAY=SECONDS`` makes the hub a slow Foundry server: it waits that long before
routing each frame a page sent (in order, as Foundry keeps a client's messages in order). A test
that asserts on something another page sent without waiting for it fails under it every time,
where a loaded CI machine fails it once in a while: ``ARBITER_E2E_HUB_DELAY=0.5 pytest tests/e2e``.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlparse

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import ServerConnection, serve


@dataclass(eq=False)
class Client:
    """One page's connection: its world, its user, and a lock so two threads never interleave
    frames on it."""

    world: str
    user: str
    ws: ServerConnection
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, message: dict[str, Any]) -> None:
        with self.lock, contextlib.suppress(ConnectionClosed):
            self.ws.send(json.dumps(message))


DELAY = float(os.environ.get("ARBITER_E2E_HUB_DELAY", "0"))
"""Seconds the hub waits before routing each frame (0: none); see the module's docstring."""


@dataclass
class Hub:
    """The rooms (one per test world) and the queries waiting for an answer."""

    clients: list[Client] = field(default_factory=list)
    waiting: dict[tuple[str, str], Client] = field(default_factory=dict)
    actors: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Per world, every ``actor`` change routed so far, in order (a loading page's world data)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def others(self, sender: Client) -> list[Client]:
        with self.lock:
            return self._others(sender)

    def _others(self, sender: Client) -> list[Client]:
        """The other pages of ``sender``'s world (the caller holds :attr:`lock`)."""
        return [c for c in self.clients if c.world == sender.world and c is not sender]

    def pages_of(self, world: str, user: str) -> list[Client]:
        with self.lock:
            return [c for c in self.clients if c.world == world and c.user == user]

    def handle(self, ws: ServerConnection) -> None:
        """Serve one page until it closes."""
        query = parse_qs(urlparse(ws.request.path if ws.request else "").query)
        client = Client(world=query["world"][0], user=query["user"][0], ws=ws)
        with self.lock:
            active = sorted({c.user for c in self.clients if c.world == client.world})
            joined = client.user not in active
            self.clients.append(client)
            # Sent under the lock: no change routed after this page joined reaches it first.
            changes = list(self.actors.get(client.world, []))
            client.send(
                {"op": "users", "active": sorted({*active, client.user}), "actors": changes}
            )
        if joined:
            self.announce(client, active=True)
        try:
            if DELAY:
                self.route_late(client, ws)
            else:
                for frame in ws:
                    self.route(client, json.loads(frame))
        except ConnectionClosed:
            pass
        finally:
            with self.lock:
                self.clients.remove(client)
            if not self.pages_of(client.world, client.user):
                self.announce(client, active=False)

    def route_late(self, client: Client, ws: ServerConnection) -> None:
        """Route each of the page's frames :data:`DELAY` seconds after it came, in order (a
        frame waits for its own delay only, not for those of the frames before it)."""
        frames: queue.Queue[tuple[float, str] | None] = queue.Queue()

        def forward() -> None:
            while (item := frames.get()) is not None:
                due, frame = item
                time.sleep(max(0.0, due - time.monotonic()))
                self.route(client, json.loads(frame))

        worker = threading.Thread(target=forward, daemon=True)
        worker.start()
        try:
            for frame in ws:
                frames.put((time.monotonic() + DELAY, str(frame)))
        finally:
            frames.put(None)
            worker.join()

    def announce(self, client: Client, active: bool) -> None:
        """Tell the world's other pages that ``client``'s user joined or left (``userActivity``)."""
        for other in self.others(client):
            other.send({"op": "activity", "user": client.user, "active": active})

    def route(self, sender: Client, message: dict[str, Any]) -> None:
        op = message["op"]
        if op in ("socket", "chat", "actor"):
            with self.lock:
                # Kept and delivered under one lock: a page joining meanwhile gets the change
                # in its world data or live, never both nor neither.
                if op == "actor":
                    self.actors.setdefault(sender.world, []).append(message)
                others = self._others(sender)
            for other in others:
                other.send(message)
        elif op == "query":
            targets = self.pages_of(sender.world, message["target"])
            if not targets:
                reason = f"User [{message['target']}] is not active"
                result = {"status": "rejected", "reason": reason}
                sender.send({"op": "query-result", "id": message["id"], "result": result})
                return
            with self.lock:
                self.waiting[(sender.world, message["id"])] = sender
            # Foundry's server stamps who asks; the payload cannot choose it.
            delivered = {**message, "from": sender.user}
            for target in targets:
                target.send(delivered)
        elif op == "query-answer":
            with self.lock:
                asker = self.waiting.pop((sender.world, message["id"]), None)
            if asker is not None:
                asker.send({"op": "query-result", "id": message["id"], "result": message["result"]})


@contextlib.contextmanager
def running_hub() -> Iterator[str]:
    """A hub on a free loopback port; yields its ws:// address."""
    hub = Hub()
    with serve(hub.handle, "127.0.0.1", 0) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        port = server.socket.getsockname()[1]
        try:
            yield f"ws://127.0.0.1:{port}"
        finally:
            server.shutdown()
