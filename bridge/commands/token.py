"""``arbiter token``: print the world secret, or issue, list and revoke player tokens.

* ``arbiter token``: the world secret (a GM connection says hello with it).
* ``arbiter token --player NAME --participant ID [--participant ID …] [--rotate]``: issue NAME's
  token (printed once: only its hash is stored), or update the participants he holds (his token
  stays; ``--rotate`` makes a new one and the old one stops working).
* ``arbiter token --player NAME --revoke``: NAME's token and relays stop working; a running
  server closes his connections (code 4003) within a second.
* ``arbiter token --players``: every player record (never a token).

On PostgreSQL (``--store postgresql://… --world ID``), ``arbiter token`` alone makes the world
(and the schema) if missing, as its server's first start does, and prints its secret; the
player options edit an existing world only, and create or migrate nothing (a mistyped
``--world`` is refused, naming the world).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import UTC, datetime

from arbiter.bridge import datadir, players
from arbiter.bridge.store import Store
from arbiter.bridge.world import PostgresWorld, add_store_arguments, postgres_secret, where_from

HELP = "print the world secret, or issue, list and revoke player tokens"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, "world data directory (default ./.arbiter-data)")
    parser.add_argument("--quiet", action="store_true", help="print the secret (or token) only")
    parser.add_argument("--player", metavar="NAME", help="issue or update this player's token")
    parser.add_argument(
        "--participant",
        metavar="ID",
        action="append",
        help="a participant the player holds (repeat for several; replaces the list)",
    )
    parser.add_argument("--rotate", action="store_true", help="issue the player a new token")
    parser.add_argument("--revoke", action="store_true", help="revoke the player's token")
    parser.add_argument("--players", action="store_true", help="list the player records")


def run(args: argparse.Namespace) -> int:
    try:
        where = where_from(args)
    except ValueError as err:
        print(f"arbiter token: {err}", file=sys.stderr)
        return 2
    if isinstance(where, PostgresWorld):
        return _postgres(args, where)
    args.data = where
    try:
        # The secret, the player records and the store: the owner's alone (see datadir).
        datadir.secure(args.data)
    except OSError as err:
        print(f"arbiter token: {err}", file=sys.stderr)
        return 2
    if args.players or args.player is not None:
        return _players(args)
    if args.participant or args.rotate or args.revoke:
        print("arbiter token: --participant, --rotate and --revoke need --player", file=sys.stderr)
        return 2
    try:
        secret = datadir.world_secret(args.data)
    except OSError as err:
        print(f"arbiter token: {err}", file=sys.stderr)
        return 2
    if args.quiet:
        print(secret)
        return 0
    print(secret)
    print(
        "\nIn Foundry: Game Settings → Configure Settings → Arbiter → World secret: paste the line"
        "\nabove. It makes a connection the GM's: it acts for every participant and sees every"
        "\nhand. Give players their own token instead (arbiter token --player NAME --participant"
        "\nID). To change the secret, stop the server, delete"
        f"\n{datadir.prepare(args.data) / datadir.SECRET_FILE} and start it again.",
        file=sys.stderr,
    )
    return 0


def _postgres(args: argparse.Namespace, where: PostgresWorld) -> int:
    """The secret of a world in PostgreSQL (made on first use, as the server makes it), or
    its player records, edited in one transaction that notifies the world's server.
    Another arbiter's schema, or (editing records) no such world: an error line, exit 2."""
    from arbiter.bridge.stores.postgres_schema import SchemaMismatch

    try:
        if args.players or args.player is not None:
            from arbiter.bridge.stores.postgres_players import edit_players

            said: Said = []
            code = asyncio.run(
                edit_players(where.dsn, where.world, lambda edit: _edit(args, edit, said))
            )
            _say(said)
            return code
        if args.participant or args.rotate or args.revoke:
            print(
                "arbiter token: --participant, --rotate and --revoke need --player",
                file=sys.stderr,
            )
            return 2
        print(asyncio.run(postgres_secret(where)))
    except (SchemaMismatch, LookupError) as err:  # another arbiter's schema; no such world
        print(f"arbiter token: {where.shown()}: {err}", file=sys.stderr)
        return 2
    except Exception as err:
        if not type(err).__module__.startswith("psycopg"):
            raise
        print(f"arbiter token: {where.shown()}: {err}", file=sys.stderr)
        return 2
    return 0


Said = list[tuple[str, bool]]
"""What the command says, in order: (text, to stderr) — printed once the edit is committed."""


def _say(said: Said) -> None:
    for text, err in said:
        print(text, file=sys.stderr if err else sys.stdout)


def _players(args: argparse.Namespace) -> int:
    path = datadir.store_path(args.data)
    datadir.create_private(path)  # SQLite's -wal and -shm then get its 0600 too
    store = Store(path)
    said: Said = []
    try:
        code = _edit(args, store, said)
    finally:
        store.close()
    _say(said)
    return code


def _edit(args: argparse.Namespace, store: players.PlayerRecords, said: Said) -> int:
    """List, issue, update or revoke on ``store``'s records; what to print goes to ``said``
    (printed once the records are committed: a token is never shown for a write that failed).
    A non-zero return puts nothing."""
    if args.players:
        if args.player is not None:
            said.append(("arbiter token: --players lists every player; drop --player", True))
            return 2
        said.extend((line, False) for line in _list(store))
        return 0
    name: str = args.player
    if args.revoke:
        if args.participant or args.rotate:
            said.append(("arbiter token: --revoke takes no other option", True))
            return 2
        try:
            players.revoke(store, name, time.time())
        except KeyError:
            said.append((f"arbiter token: no player {name!r}", True))
            return 2
        said.append(
            (f"{name}: revoked; a running server closes his connections within a second", True)
        )
        return 0
    try:
        record, token = players.issue(store, name, args.participant, args.rotate, time.time())
    except ValueError as err:
        said.append((f"arbiter token: {err}", True))
        return 2
    held = ", ".join(record.participants) or "no participant"
    if token is None:
        said.append((f"{name}: holds {held}; his token is unchanged", True))
        return 0
    said.append((token, False))
    if not args.quiet:
        said.append(
            (
                f"\n{name} holds {held}. Give him the line above to paste into the Arbiter "
                "module's\ntoken setting in his own browser. It is shown this once: only its "
                "hash is kept.\n`arbiter token --player NAME --rotate` issues a new one.",
                True,
            )
        )
    return 0


def _list(store: players.PlayerRecords) -> list[str]:
    lines = []
    for p in store.players():
        state = f"revoked {_when(p.revoked)}" if p.revoked is not None else "active"
        token = "token" if p.token_hash is not None else "no token (relays through the GM)"
        held = ",".join(p.participants) or "-"
        lines.append(f"{p.name}\t{held}\tcreated {_when(p.created)}\t{state}\t{token}")
    return lines


def _when(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%SZ")
