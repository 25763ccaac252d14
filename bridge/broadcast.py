"""Outcome events: what one group commit's outcomes tell the connections that listen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from arbiter.bridge.committing import Event
from arbiter.bridge.event_batches import EventBatches
from arbiter.bridge.outbox import text_frame
from arbiter.bridge.protocol import outcome_event_bytes

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession


def publish(
    listeners: tuple[ClientSession, ...], events: Sequence[Event], batches: EventBatches
) -> None:
    """Hold the outcomes of one group commit for every listener but the client each came from,
    each in its view of it (``arbiter.bridge.views``), in log order, to go out in its next
    write (``arbiter.bridge.event_batches``: with its next reply, or when its held bytes or the
    batches' timer say so).

    An outcome nobody has anything withheld from (the common case) is framed once for all.
    Nothing waits on any reader: a client that stopped reading is dropped once a write puts it
    over its send buffer limit (``arbiter.bridge.outbox``), so it never holds the others back
    nor grows the server's memory. Clients that did not subscribe are not among ``listeners``
    and cost nothing here.
    """
    origins = {origin for _, _, origin in events}
    if len(listeners) == 1 and listeners[0] in origins and len(origins) == 1:
        return  # the one listener sent them all (a lone GM): nothing to frame
    shared = [
        text_frame(outcome_event_bytes(seq, text.logged_bytes)) if text.same_for_all else None
        for seq, text, _ in events
    ]
    everything = (b"".join(shared),) if None not in shared else None  # type: ignore[arg-type]
    size = len(everything[0]) if everything is not None else 0
    views: dict[tuple[int, bytes], bytes] = {}
    hold = batches.hold
    for client in listeners:
        if everything is not None and client not in origins:
            hold(client.outbox, everything, size)
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
        if frames:
            # A client among the origins has its reply follow in this step (the group commit
            # sends it right after), which takes these events in the same write.
            hold(client.outbox, frames, sum(map(len, frames)))
