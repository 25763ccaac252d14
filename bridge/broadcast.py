"""Outcome events: what one group commit's outcomes tell the connections that listen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from arbiter.bridge.awaiting_commit import Event
from arbiter.bridge.event_batches import EventBatches
from arbiter.bridge.outbox import text_frame
from arbiter.bridge.protocol_encoding import outcome_event_bytes

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
    if None not in shared:
        _publish_shared(listeners, events, shared, origins, batches)  # type: ignore[arg-type]
        return
    views: dict[tuple[int, bytes], bytes] = {}
    hold = batches.hold
    for client in listeners:
        frames = []
        for index, (seq, text, origin) in enumerate(events):
            if origin is client:
                continue
            frame = shared[index]
            if frame is None:
                # Keyed by the view's text: listeners share a frame only when they are
                # entitled to the very same bytes.
                view = text.shown_bytes(client.viewer)
                frame = views.get((index, view))
                if frame is None:
                    frame = views[(index, view)] = text_frame(outcome_event_bytes(seq, view))
            frames.append(frame)
        if frames:
            # A client among the origins has its reply follow in this step (the group commit
            # sends it right after), which takes these events in the same write.
            hold(client.outbox, frames, sum(map(len, frames)))


def _publish_shared(
    listeners: tuple[ClientSession, ...],
    events: Sequence[Event],
    shared: list[bytes],
    origins: set[ClientSession],
    batches: EventBatches,
) -> None:
    """:func:`publish` of outcomes nobody has anything withheld from (the logged text is every
    viewer's): one frame each, the same bytes for every listener. Every listener but the
    origins holds them all, joined once; an origin holds the others' frames (its own outcome
    goes to it as its reply). Its cost per listener is one hold, whatever the number of events."""
    if len(origins) == len(events):
        # One event per origin (the usual case): where each origin's own frame is.
        own = {origin: index for index, (_, _, origin) in enumerate(events)}
        others = []
        for client in listeners:
            index = own.get(client)
            if index is None:
                others.append(client.outbox)
            elif len(shared) > 1:
                frames = shared[:index] + shared[index + 1 :]
                batches.hold(client.outbox, frames, sum(map(len, frames)))
    else:
        # An origin sent several of them (a client that does not wait for its replies).
        others = []
        for client in listeners:
            if client not in origins:
                others.append(client.outbox)
                continue
            frames = [shared[i] for i, (_, _, origin) in enumerate(events) if origin is not client]
            if frames:
                batches.hold(client.outbox, frames, sum(map(len, frames)))
    if others:
        everything = b"".join(shared)
        batches.hold_many(others, (everything,), len(everything))
