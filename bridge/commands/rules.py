"""``arbiter rules``: a world's own rules, in its PostgreSQL database (docs/scaling.md).

* ``arbiter rules publish --store postgresql://… --world ID [--rules DIR]``: validate the
  house-rule folder ``DIR`` laid over the bundled rules exactly as ``arbiter build --rules DIR``
  does (a problem names its file, entry and field, and nothing is stored), store its files
  (once per hash) and point the world at them. The world's host serves them from its next
  poll, to that world only. Without ``--rules``: the bundled rules alone.
* ``arbiter rules unpublish --store … --world ID``: the world is served with its host's
  ``--rules`` again.
* ``arbiter rules show --store … --world ID``: which rules the world names, and their files.

Whoever runs it needs the store's credentials (as for ``arbiter token``): they can change the
rules of every world in the database.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from arbiter.bridge.world import PostgresWorld, add_store_arguments, where_from
from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.loader import RULES_ROOT, load_all

HELP = "publish a world's own rules to its PostgreSQL store, or go back to its host's"

ACTIONS = ("publish", "unpublish", "show")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=ACTIONS,
        help="publish: validate --rules and serve the world with them; unpublish: serve it "
        "with its host's rules again; show: the rules the world names",
    )
    add_store_arguments(parser, "(not for rules: a world's own rules live in PostgreSQL)")
    parser.add_argument(
        "--rules",
        type=Path,
        default=None,
        metavar="DIR",
        help="with publish: a folder of house-rule files (DIR/<ruleset>/*.toml) laid over the "
        "bundled rules, as arbiter build --rules takes it (default: the bundled rules alone)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        where = where_from(args)
    except ValueError as err:
        print(f"arbiter rules: {err}", file=sys.stderr)
        return 2
    if not isinstance(where, PostgresWorld):
        print(
            "arbiter rules: a world's own rules live in a PostgreSQL --store (with --world ID); "
            "a data directory's world is served with its server's --rules",
            file=sys.stderr,
        )
        return 2
    if args.rules is not None and args.action != "publish":
        print("arbiter rules: --rules goes with publish", file=sys.stderr)
        return 2
    # Here, not at the top: psycopg is the `postgresql` extra, and every `arbiter` command
    # imports this module (a plain install has no psycopg and must still run).
    import psycopg

    from arbiter.bridge.stores.postgres_rules import unpublish

    try:
        if args.action == "publish":
            return _publish(where, args.rules)
        if args.action == "unpublish":
            before = asyncio.run(unpublish(where.dsn, where.world))
            named = "no rules of its own" if before is None else f"rules {before}"
            print(f"world {where.world!r} is served with its host's rules (it named {named})")
            return 0
        return _show(where)
    except (LookupError, ValueError) as err:  # no such world; a file name it cannot store
        print(f"arbiter rules: {where.shown()}: {err}", file=sys.stderr)
        return 2
    except psycopg.Error as err:
        print(f"arbiter rules: {where.shown()}: {err}", file=sys.stderr)
        return 2


def _publish(where: PostgresWorld, folder: Path | None) -> int:
    from arbiter.bridge.stores.postgres_rules import RuleSources, publish

    # The same validation as `arbiter build --rules DIR`, on the same bundled rules.
    try:
        load_all(RULES_ROOT, folder)
    except RuleError as err:
        print(f"arbiter rules: nothing stored.\n{err.report()}", file=sys.stderr)
        return 1
    sources = RuleSources.read(folder) if folder is not None else RuleSources({})
    rules_hash = asyncio.run(publish(where.dsn, where.world, sources))
    print(
        f"world {where.world!r} now names rules {rules_hash} ({len(sources.files)} files); "
        "its host serves them from its next check"
    )
    return 0


def _show(where: PostgresWorld) -> int:
    from arbiter.bridge.stores.postgres_rules import world_sources

    found = asyncio.run(world_sources(where.dsn, where.world))
    if found is None:
        print(f"world {where.world!r} is served with its host's rules")
        return 0
    rules_hash, sources = found
    print(f"world {where.world!r} names rules {rules_hash}:")
    for path in sources.files:
        print(f"  {path}")
    return 0


__all__ = ["HELP", "add_arguments", "run"]
