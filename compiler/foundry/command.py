"""``arbiter build``: compile the rule sources into the Foundry module."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arbiter.compiler.errors import RuleError
from arbiter.compiler.foundry.build import DEFAULT_OUT, build_module
from arbiter.compiler.foundry.publish import BuildBusy, PacksLocked
from arbiter.compiler.foundry.validate import ModuleInvalid
from arbiter.compiler.model.loader import RULES_ROOT

HELP = "compile the rule files into the Foundry module (module_output/arbiter)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        type=Path,
        metavar="DIR",
        help="a folder of house-rule files (DIR/<ruleset>/*.toml) laid over the bundled rules",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"where to put the module folder 'arbiter' (default: {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--zip", action="store_true", help="also write DIR/arbiter.zip, ready to install"
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="with --zip: where module.json and module.zip will be published; the zipped "
        "module.json names them as its manifest and download (arbiter serve does this itself)",
    )


def run(args: argparse.Namespace) -> int:
    """Build; print what was built, or the rule problems (exit 1), or what the built module
    fails of its own checks (exit 1, the previous module kept), or why the output is busy:
    packs held open by Foundry, or another build running (exit 2)."""
    try:
        report = build_module(
            args.out, RULES_ROOT, args.rules, zip_=args.zip, public_url=args.public_url
        )
    except RuleError as err:
        print(f"arbiter build: nothing written.\n{err.report()}", file=sys.stderr)
        return 1
    except ModuleInvalid as err:
        print(f"arbiter build: nothing swapped in: {err.report()}", file=sys.stderr)
        return 1
    except (PacksLocked, BuildBusy) as err:
        print(f"arbiter build: nothing written: {err}", file=sys.stderr)
        return 2
    print(report.describe())
    return 0
