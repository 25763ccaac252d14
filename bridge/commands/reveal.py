"""``arbiter reveal SESSION``: publish an ended session's dice seed and verify its rolls.

The seed re-derives every die of the session, hidden ones included (a karmic deck shuffle): it
is refused while such a die still decides a running encounter (its duel is not over), since the
seed would then show every hand and the draw pile; ``--force`` publishes it anyway.
"""

from __future__ import annotations

import argparse
import json
import sys

from arbiter.bridge.fairness import verify_session
from arbiter.bridge.store import Roll, StoreUnreadable
from arbiter.bridge.stores import WorldStore
from arbiter.bridge.world import add_store_arguments, close_read, read_world, where_from

HIDDEN_MARK = '"hidden":true'
"""How a hidden die reads in a row's canonical dice JSON (see ``bridge/views.py``)."""

HELP = (
    "publish a finished session's dice seed so anyone can recompute its rolls (reads only: works "
    "on a read-only copy)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", nargs="?", default=None, help="session id (omit to list them)")
    add_store_arguments(parser, "world data directory (default ./.arbiter-data)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="reveal even though the session's hidden dice still decide a running encounter",
    )


def run(args: argparse.Namespace) -> int:
    # Read-only: works on a read-only copy of the data directory (arbiter.bridge.readonly).
    try:
        store = read_world(where_from(args))
    except (StoreUnreadable, ValueError) as err:
        print(f"arbiter reveal: {err}", file=sys.stderr)
        return 2
    try:
        if args.session is None:
            for s in store.sessions():
                state = "ended" if s.ended is not None else "OPEN"
                print(f"{s.id}  {state:<5}  {s.user or '-':<16} commitment {s.commitment}")
            return 0
        session = store.session(args.session)
        if session is None:
            print(f"arbiter reveal: no session {args.session!r}", file=sys.stderr)
            return 2
        if session.ended is None:
            print(
                f"arbiter reveal: session {args.session} is still open; revealing its seed now "
                "would let anyone predict its next rolls. It ends when its client disconnects.",
                file=sys.stderr,
            )
            return 1
        rolls = list(store.rolls(session=session.id))
        running = running_hidden(store, rolls)
        if running and not args.force:
            names = ", ".join(repr(e) for e in running)
            print(
                f"arbiter reveal: session {args.session} shuffled the hidden cards of encounter "
                f"{names}, which is still running: its seed would show every hand and the draw "
                "pile. Reveal it once the encounter is over, or pass --force.",
                file=sys.stderr,
            )
            return 1
        seed = bytes.fromhex(session.seed)
        check = verify_session(seed, session.commitment, iter(rolls))
    finally:
        close_read(store)
    print(
        json.dumps(
            {
                "session": session.id,
                "seed": session.seed,
                "commitment": session.commitment,
                "algorithm": "die n: first 8 bytes of HMAC-SHA256(seed, counter as 8 big-endian "
                "bytes) as x; accept x < 2**64 - 2**64 % faces, result x % faces + 1; else counter+1",
                "rolls": check.rolls,
                "dice": check.dice,
                "scripted_rolls": check.scripted,
                "verified": check.ok,
                "mismatches": list(check.mismatches),
            },
            indent=2,
        )
    )
    return 0 if check.ok else 1


def running_hidden(store: WorldStore, rolls: list[Roll]) -> list[str]:
    """The encounters, still running, whose state rests on hidden dice of ``rolls``.

    An encounter runs until its state says ``"over": true`` (a karmic duel); one without a state
    decides nothing hidden any more.
    """
    found: list[str] = []
    for roll in rolls:
        encounter = roll.entry.encounter
        if encounter is None or encounter in found or HIDDEN_MARK not in roll.entry.dice:
            continue
        current = store.encounter(encounter)
        if (
            current is not None
            and current.state is not None
            and current.state.get("over") is not True
        ):
            found.append(encounter)
    return found
