"""``arbiter token``: print the world secret clients authenticate with."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bridge import datadir

HELP = "print the world secret (created on first use) and where to paste it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data", type=Path, default=datadir.DEFAULT_DATA, help="world data directory"
    )
    parser.add_argument("--quiet", action="store_true", help="print the secret only")


def run(args: argparse.Namespace) -> int:
    try:
        datadir.secure(args.data)
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
        "\nabove. Anyone holding it can ask this server for rolls; to change it, stop the server,"
        f"\ndelete {datadir.prepare(args.data) / datadir.SECRET_FILE} and start it again.",
        file=sys.stderr,
    )
    return 0
