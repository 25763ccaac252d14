"""``arbiter replay FILE``: resolve recorded requests and print the outcomes as JSON.

``arbiter replay --from-log DATA`` instead re-derives every outcome of a world's roll log from its
recorded dice and reports each row whose outcome differs. A row logged under other rules whose
outcome differs only in ``rules_hash`` is reported as identical but for it, and is no mismatch;
the exit status tells the cases apart (:data:`RULES_CHANGED`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from arbiter.bridge.engine.dice import KeyedSource, ScriptedSource, SecureSource
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.logreplay import replay_log
from arbiter.bridge.replaying import ReplayError, error_record, replay_entries
from arbiter.bridge.store import StoreUnreadable
from arbiter.bridge.world import (
    PostgresWorld,
    close_read,
    read_world,
    store_argument,
    where_from,
)
from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.loader import RULES_ROOT, Ruleset, load_all

HELP = "resolve a JSON file of requests with recorded dice and print the outcomes as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        type=Path,
        nargs="?",
        default=None,
        help="JSON: a list of requests, or {'requests': [...]}",
    )
    parser.add_argument(
        "--from-log",
        type=Path,
        nargs="?",
        const=True,
        default=None,
        metavar="DATA",
        help="re-derive every outcome in this world data directory's roll log (or, without "
        "DATA, the world --store/--world name) and report mismatches; exit 0: all identical, "
        "3: identical but for rules_hash under changed rules, 1: an outcome differs",
    )
    parser.add_argument(
        "--store",
        type=store_argument,
        default=None,
        metavar="sqlite:DIR|postgresql://…",
        help="with --from-log: where the world lives (a PostgreSQL store needs --world)",
    )
    parser.add_argument("--world", default=None, metavar="ID", help="the world's id (PostgreSQL)")
    parser.add_argument(
        "--rules",
        type=Path,
        default=None,
        help="house-rule folder to overlay (default: a PostgreSQL world's own published rules, "
        "if it names some; else the bundled rules)",
    )
    parser.add_argument(
        "--seed",
        default=None,
        help="hex seed for keyed dice, used for requests that carry no recorded dice",
    )


def run(args: argparse.Namespace) -> int:
    if args.from_log is not None:
        return _from_log(args)
    if args.store is not None or args.world is not None:
        print("arbiter replay: --store and --world go with --from-log", file=sys.stderr)
        return 2
    if args.file is None:
        print("arbiter replay: give a FILE or --from-log DATA", file=sys.stderr)
        return 2
    try:
        data: Any = json.loads(args.file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        print(f"arbiter replay: cannot read {args.file}: {err}", file=sys.stderr)
        return 2
    try:
        rulesets = load_all(RULES_ROOT, args.rules)
    except RuleError as err:
        print(err.report(), file=sys.stderr)
        return 2
    fallback = KeyedSource(bytes.fromhex(args.seed)) if args.seed else SecureSource()
    entries = data.get("requests", data) if isinstance(data, dict) else data
    try:
        outcomes = replay_entries(entries, rulesets, fallback)
    except ReplayError as err:
        # Every outcome up to the refusal, then the refusal as a record of its own: a file
        # can show a refused move beside the outcomes that led to it.
        _emit([*err.outcomes, error_record(err)])
        print(f"arbiter replay: {err}", file=sys.stderr)
        return 1
    return 0 if _emit(outcomes) else PIPE_CLOSED


PIPE_CLOSED = 141
"""Exit status when the reader of stdout went away (``arbiter replay FILE | head``): what a
shell reports for a program ended by SIGPIPE."""


def _emit(records: list[Any]) -> bool:
    """Print ``records`` as JSON; False when the reader closed the pipe before the end (the
    rest is not wanted, and no traceback is printed for it)."""
    try:
        json.dump(records, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # Point stdout at /dev/null so that the interpreter's last flush at exit, which would
        # meet the closed pipe again, has nowhere to fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return False
    return True


def _from_log(args: argparse.Namespace) -> int:
    args.data = args.from_log if isinstance(args.from_log, Path) else None
    try:
        where = where_from(args)
        store = read_world(where)
    except (StoreUnreadable, ValueError) as err:
        print(f"arbiter replay: {err}", file=sys.stderr)
        return 2
    try:
        rulesets = _rules_of(where, args.rules)
    except RuleError as err:
        close_read(store)
        print(err.report(), file=sys.stderr)
        return 2
    except (LookupError, ValueError, StoreUnreadable) as err:
        close_read(store)
        print(f"arbiter replay: {err}", file=sys.stderr)
        return 2
    try:
        report = replay_log(store.rolls(), rulesets)
    finally:
        close_read(store)
    for line in [*report.rehashed, *report.mismatches]:
        print(line)
    other = f" ({report.other_rules} logged under other rules)" if report.other_rules else ""
    rehashed = f"{len(report.rehashed)} identical but for rules_hash, " if report.rehashed else ""
    print(
        f"{report.rows} rows re-derived: {report.matched} identical, {rehashed}"
        f"{len(report.mismatches)} mismatched{other}"
    )
    if not report.ok:
        return 1
    return RULES_CHANGED if report.same_under_other_rules else 0


def _rules_of(where: Path | PostgresWorld, house: Path | None) -> dict[str, Ruleset]:
    """The rules to re-derive with: ``--rules`` when given; else a PostgreSQL world's own
    published rules when it names some (``arbiter rules publish``), else the bundled rules."""
    if house is not None or not isinstance(where, PostgresWorld):
        return load_all(RULES_ROOT, house)
    import psycopg

    from arbiter.bridge.stores.postgres_rules import world_sources

    try:
        found = asyncio.run(world_sources(where.dsn, where.world))
    except psycopg.Error as err:
        raise StoreUnreadable(f"{where.shown()}: {err}") from None
    if found is None:
        return load_all(RULES_ROOT, None)
    rules_hash, sources = found
    print(f"replaying under world {where.world!r}'s own rules {rules_hash}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="arbiter-rules-") as tmp:
        return load_all(RULES_ROOT, sources.write(Path(tmp) / f"rules-{rules_hash[:12]}"))


RULES_CHANGED = 3
"""Exit status of ``replay --from-log`` when no outcome differs but some rows were logged under
other rules (an edit or reload since): 0 says the log was re-derived under the rules it was
written with, 1 that an outcome differs (or a row cannot be re-derived), 2 that the store or the
rule files could not be read."""


__all__ = ["HELP", "Request", "ScriptedSource", "add_arguments", "run"]
