"""``arbiter log``: list the roll log, or check its hash chain."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime

from arbiter.bridge.refusals import REFUSED
from arbiter.bridge.store import Roll, StoreUnreadable
from arbiter.bridge.world import add_store_arguments, close_read, read_world, where_from

HELP = "list the roll log (--verify checks its hash chain); reads only: works on a read-only copy"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, "world data directory (default ./.arbiter-data)")
    parser.add_argument("--session", default=None, help="only this session's rolls")
    parser.add_argument("--after", type=int, default=0, help="only rows after this sequence number")
    parser.add_argument("--limit", type=int, default=None, help="at most this many rows")
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    parser.add_argument("--verify", action="store_true", help="check the hash chain of every row")


def summary(roll: Roll) -> str:
    outcome = json.loads(roll.entry.outcome)
    result = outcome.get("result", {})
    dice = " ".join(str(d["result"]) for d in json.loads(roll.entry.dice)) or "-"
    when = datetime.fromtimestamp(roll.entry.time, UTC).strftime("%Y-%m-%d %H:%M:%S")
    scripted = " scripted" if roll.entry.scripted else ""
    kind = result.get("kind", "?")
    if kind == REFUSED:
        # Refused after dice: the refusal is the id's outcome (arbiter.bridge.refusals).
        kind = f"{kind} {result.get('code', '?')}"
    return (
        f"{roll.seq:>6}  {when}  {roll.entry.user or '-':<12} {roll.entry.ruleset}/{roll.entry.type:<14} "
        f"{roll.entry.request_id}  {kind}  dice: {dice}{scripted}"
    )


def run(args: argparse.Namespace) -> int:
    # Read-only: nothing is created or written, so a read-only copy of the data directory
    # can be listed and verified (arbiter.bridge.readonly).
    try:
        store = read_world(where_from(args))
    except (StoreUnreadable, ValueError) as err:
        print(f"arbiter log: {err}", file=sys.stderr)
        return 2
    try:
        if args.verify:
            problems = store.verify_chain()
            for problem in problems:
                print(problem)
            print(f"{store.count()} rows, hash chain {'BROKEN' if problems else 'intact'}")
            return 1 if problems else 0
        for n, roll in enumerate(store.rolls(after=args.after, session=args.session)):
            if args.limit is not None and n >= args.limit:
                break
            if args.json:
                entry = roll.entry
                row = {
                    "seq": roll.seq,
                    **entry._asdict(),
                    "request": json.loads(entry.request),
                    "dice": json.loads(entry.dice),
                    "outcome": json.loads(entry.outcome),
                    "prev_hash": roll.prev_hash,
                    "hash": roll.hash,
                }
                print(json.dumps(row, sort_keys=True))
            else:
                print(summary(roll))
    finally:
        close_read(store)
    return 0
