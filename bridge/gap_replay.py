"""Gap replay: the outcome events a reconnecting client missed, sent again right after its welcome.

A client subscribed to ``outcome`` events remembers the last ``seq`` it saw and says it in its
next hello (``since``). The session calls :func:`replay` in the very event-loop step that adds it
to the listeners (:meth:`arbiter.bridge.session.ClientSession.run`), with ``head``, the last row
whose outcome event the group commit has published (:attr:`arbiter.bridge.committing.GroupCommit.head`):

* a row at or below ``head`` is committed and its live event already went out, before this
  connection listened: it is replayed here, from the store;
* a row above ``head`` is staged or in a flush in flight, and every such row that is not a
  refusal has its event waiting in the group commit (a session announces each outcome it
  decides), which reaches this connection live once the row is committed.

So nothing is missed and nothing comes twice, and nothing uncommitted is sent. Each replayed row
is projected for this connection exactly as its live event would have been
(:class:`arbiter.bridge.views.OutcomeText`: its own private entries only, no state, no hidden
die), and a refusal after dice, which no live event carries, is not replayed either. The view is
that of the connection as it is now (its participants today), and its text the one a resend of
the row's id is answered with (:meth:`~arbiter.bridge.views.OutcomeText.of_row`): the row's
logged text byte for byte when the view withholds nothing, not a second serialisation of it.

Rows the store no longer holds in memory (the PostgreSQL store holds only its most recent rows
whole: ``store.cached_from()``) are read first, awaited before the connection joins
(:func:`older`): the log is append-only, so those rows are final; the loop reads again should
the store have let more go meanwhile, so that in the joining step the rows read and the rows in
memory meet. A read that fails answers ``unavailable`` (:func:`unreadable`) and live events follow.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from arbiter.bridge.limits import Limits
from arbiter.bridge.outbox import text_frame
from arbiter.bridge.protocol import ErrorMessage, EventName, GapTooLarge
from arbiter.bridge.protocol_encoding import encode, replayed_event_bytes
from arbiter.bridge.records import Roll
from arbiter.bridge.refusals import refusal_in
from arbiter.bridge.stores import WorldStore
from arbiter.bridge.views import OutcomeText, Viewer


@dataclass(frozen=True, slots=True)
class Replay:
    """What a connection is sent for its ``since``: frames already framed (replayed events, or
    one ``gap_too_large`` event, or one ``error``), in order."""

    frames: tuple[bytes, ...]
    rows: int
    """How many outcome events were replayed."""


def _error(message: str) -> Replay:
    text = encode(ErrorMessage(id=None, code="invalid_message", message=message))
    return Replay((text_frame(text.encode()),), 0)


def unreadable(since: int | None) -> Replay:
    """The answer to a ``since`` whose rows could not be read from the store (the database
    away): an ``unavailable`` error; live events follow."""
    text = encode(
        ErrorMessage(
            id=None,
            code="unavailable",
            message=f"since: the rows after {since} could not be read from the store now: "
            "nothing was replayed; live events follow (reconnect with the same since to retry)",
        )
    )
    return Replay((text_frame(text.encode()),), 0)


def _too_large(since: int, head: int, limit: int, why: str) -> Replay:
    message = (
        f"since: {since} is {head - since} rows behind the last outcome ({head}), {why}: "
        "nothing was replayed; live events follow (`arbiter log` on the server lists every row)"
    )
    event = GapTooLarge(since=since, head=head, limit=limit, message=message)
    return Replay((text_frame(encode(event).encode()),), 0)


def replay(
    since: int,
    head: int,
    rows: Iterable[Roll],
    viewer: Viewer,
    limit: int,
    max_bytes: int,
) -> Replay:
    """The frames answering ``since`` for ``viewer``.

    ``rows``: the log's rows after ``since`` in seq order (``store.rolls(since)``; only those up
    to ``head`` are read). A ``since`` below 0 or beyond ``head`` is answered with an error naming
    it; one more than ``limit`` rows behind, or whose replay would take more than ``max_bytes``,
    with a ``gap_too_large`` event. Reads and projects every row now: the caller sends the frames
    in the same event-loop step that makes the connection a listener.
    """
    if since < 0:
        return _error(
            f"since: {since} is not a seq (rows are numbered from 1; 0 replays from the first): "
            "nothing was replayed"
        )
    if since > head:
        return _error(
            f"since: {since} is beyond the last outcome of this world's log ({head}); the "
            "client saw another world or a log since restored: nothing was replayed"
        )
    if head - since > limit:
        return _too_large(since, head, limit, f"over the {limit} a reconnect replays")
    frames: list[bytes] = []
    size = 0
    for roll in rows:
        if roll.seq > head:
            break
        frame = _replayed(roll, viewer)
        if frame is None:
            continue  # a refusal after dice: its sender's error, never an event
        size += len(frame)
        if size > max_bytes:
            return _too_large(
                since, head, limit, f"more than the {max_bytes} bytes a reconnect replays"
            )
        frames.append(frame)
    return Replay(tuple(frames), len(frames))


def _replayed(roll: Roll, viewer: Viewer) -> bytes | None:
    """``roll``'s outcome event as ``viewer`` is shown it, marked replayed (None: a refusal).

    The outcome is the row's logged text as a resend of its id sends it
    (:meth:`~arbiter.bridge.views.OutcomeText.of_row`): byte for byte when the view withholds
    nothing, else the view serialised from it, as for a live event."""
    text = OutcomeText.of_row(roll.entry)
    if refusal_in(text.outcome) is not None:
        return None
    return text_frame(replayed_event_bytes(roll.seq, text.shown_bytes(viewer)))


def late(rows: Iterable[Roll], viewer: Viewer) -> tuple[bytes, ...]:
    """The events of committed rows that no live event announced (a flush that failed although
    its rows landed, found by a later reload), framed for ``viewer`` and marked replayed as a
    reconnect's are: the requester of such a row still has its request queued (it was answered
    ``unavailable``), and its client drops a replayed event of a queued request."""
    return tuple(frame for roll in rows if (frame := _replayed(roll, viewer)) is not None)


NOTHING = Replay((), 0)


async def older(
    since: int | None,
    welcomed: int,
    events: frozenset[EventName],
    head: Callable[[], int],
    store: WorldStore,
    limits: Limits,
) -> list[Roll]:
    """The rows of the gap ``since`` asks for that the store does not hold in memory, read
    from the database (awaited: call it before joining the listeners, and pass the rows to
    :func:`missed` in the joining step). Empty when there are none, or the replay will not
    read rows (no ``outcome`` events, a bad ``since``, a gap over ``max_replay_rows``).
    ``head``: the group commit's, asked at each step. Raises the store's error."""
    if "outcome" not in events:
        return []
    start = welcomed if since is None else since
    rows: list[Roll] = []
    while True:
        now = head()
        after = rows[-1].seq if rows else start
        first = store.cached_from()
        if start < 0 or start > now or now - start > limits.max_replay_rows or after + 1 >= first:
            return rows
        read = await store.read_rolls(after, first - 1)
        if not read:
            return rows
        rows.extend(read)


def missed(
    since: int | None,
    welcomed: int,
    events: frozenset[EventName],
    head: int,
    store: WorldStore,
    viewer: Viewer,
    limits: Limits,
    read: Iterable[Roll] = (),
) -> Replay:
    """What a connection just joined is sent for the hello's ``since`` (None: its welcome's
    head ``welcomed``, so the rows committed while the welcome was on its way reach it too).

    ``head``: the group commit's, read in the step the connection joins the listeners. A
    connection not listening to ``outcome`` is sent nothing, or an error if it gave a ``since``.
    ``read``: the gap's first rows, read by :func:`older` (the store holds the rest).
    """
    if "outcome" not in events:
        if since is None:
            return NOTHING
        return _error(
            "since: replays outcome events, which this connection did not ask for (events): "
            "nothing was replayed"
        )
    if since is None:
        since = welcomed
    read = list(read)
    after = read[-1].seq if read else since
    rows = itertools.chain(read, store.rolls(after)) if 0 <= since <= head else ()
    return replay(
        since, head, rows, viewer, limits.max_replay_rows, limits.max_send_buffer_bytes // 2
    )


__all__ = ["Replay", "late", "missed", "older", "replay", "unreadable"]
