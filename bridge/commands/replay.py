"""``arbiter replay FILE``: resolve recorded requests and print the outcomes as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bridge.engine.dice import KeyedSource, ScriptedSource, SecureSource
from bridge.engine.envelope import Request
from bridge.replaying import ReplayError, replay_entries
from compiler.errors import RuleError
from compiler.model.loader import RULES_ROOT, load_all

HELP = "resolve a JSON file of requests with recorded dice and print the outcomes as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="JSON: a list of requests, or {'requests': [...]}")
    parser.add_argument("--rules", type=Path, default=None, help="house-rule folder to overlay")
    parser.add_argument(
        "--seed",
        default=None,
        help="hex seed for keyed dice, used for requests that carry no recorded dice",
    )


def run(args: argparse.Namespace) -> int:
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
        print(f"arbiter replay: {err}", file=sys.stderr)
        return 1
    json.dump(outcomes, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


__all__ = ["HELP", "Request", "ScriptedSource", "add_arguments", "run"]
