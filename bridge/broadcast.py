"""Outcome events: what one group commit's outcomes tell the connections that listen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from arbiter.bridge.committing import Event
from arbiter.bridge.outbox import text_frame
from arbiter.bridge.protocol import outcome_event_bytes

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession


def publish(listeners: tuple[ClientSession, ...], events: Sequence[Event]) -> None:
    """Send the outcomes of one group commit to every listener but the client each came
    from, each in its view of it (``arbiter.bridge.views``), in log order.

    An outcome nobody has anything withheld from (the common case) is framed once for all;
    a listener that sent none of them gets them all in one write. Written without waiting
    on any reader: a client that stopped reading is dropped once over its send buffer limit
    (``arbiter.bridge.outbox``), so it never holds the others back nor grows the server's memory.
    Clients that did not subscribe are not among ``listeners`` and cost nothing here.
    """
    origins = {origin for _, _, origin in events}
    if len(listeners) == 1 and listeners[0] in origins and len(origins) == 1:
        return  # the one listener sent them all (a lone GM): nothing to frame
    shared = [
        text_frame(outcome_event_bytes(seq, text.logged_bytes)) if text.same_for_all else None
        for seq, text, _ in events
    ]
    everything = b"".join(shared) if None not in shared else None  # type: ignore[arg-type]
    views: dict[tuple[int, bytes], bytes] = {}
    held: list[ClientSession] = []
    for client in listeners:
        if everything is not None and client not in origins:
            client.outbox.send_frames((everything,))
            continue
        frames = []
        for index, (seq, text, origin) in enumerate(events):
            if origin is client:
                continue
            frame = shared[index]
            if frame is None:
                view = text.shown_bytes(client.viewer)
                frame = views.get((index, view))
                if frame is None:
                    frame = views[(index, view)] = text_frame(outcome_event_bytes(seq, view))
            frames.append(frame)
        if not frames:
            continue
        if client in origins and client.outbox.hold(frames):
            # Its reply follows in this step (the group commit sends it right after): both
            # go in one write. Should it not (a resend waiting for its row to be read), the
            # events go alone at the next turn of the loop.
            held.append(client)
        else:
            client.outbox.send_frames(frames)
    if held:
        held[0].loop.call_soon(_release, held)


def _release(held: list[ClientSession]) -> None:
    """Write the events still held for ``held`` (those whose reply did not take them)."""
    for client in held:
        client.outbox.release()
