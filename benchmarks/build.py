"""Build benchmarks: each section times our code and a baseline on the same work, in one run.

Run ``.venv/bin/python benchmarks/build.py`` (the official Foundry CLI must be installed:
``scripts/setup --test``). Sections are functions taking a scratch folder and returning a
:class:`Measurement`; add one to ``SECTIONS`` to extend the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arbiter.compiler.foundry.packs import read_pack, write_pack  # noqa: E402

FVTT = REPO / "node_modules" / ".bin" / "fvtt"

Doc = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Measurement:
    """One row of the table: our median time, and the baseline's median on the same work."""

    section: str
    work: str
    ours: float
    baseline_name: str | None = None
    baseline: float | None = None


def timed(action: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``repeat`` runs of ``action``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def ident(prefix: str, n: int) -> str:
    """A deterministic 16-character Foundry id."""
    return f"{prefix}{n:0{16 - len(prefix)}d}"


def synthetic_documents(weapons: int = 10_000, tables: int = 200, rows: int = 50) -> list[Doc]:
    """A ruleset-sized workload: weapon documents and d100 roll tables with their results."""
    docs: list[Doc] = []
    for w in range(weapons):
        wid = ident("W", w)
        docs.append(
            (
                f"!items!{wid}",
                {
                    "_id": wid,
                    "name": f"Weapon {w}",
                    "type": "weapon",
                    "img": "icons/svg/sword.svg",
                    "system": {
                        "damage": f"1d{6 + w % 7}+{w % 3}",
                        "size": ["S", "M", "L", "H"][w % 4],
                        "reach": ["T", "S", "M", "L", "VL"][w % 5],
                        "injury": [f"{k}: wound level {(k + w) % 5}" for k in range(10)],
                        "notes": f"Synthetic weapon number {w}, à la carte ✓",
                    },
                    "effects": [],
                    "folder": None,
                    "sort": w,
                    "ownership": {"default": 0},
                    "flags": {"arbiter": {"ruleset": "bench"}},
                },
            )
        )
    for t in range(tables):
        tid = ident("T", t)
        span = 100 // rows
        result_ids = [ident(f"R{t:03d}", r) for r in range(rows)]
        docs.append(
            (
                f"!tables!{tid}",
                {
                    "_id": tid,
                    "name": f"Table {t}",
                    "description": "",
                    "formula": "1d100",
                    "replacement": True,
                    "displayRoll": True,
                    "results": result_ids,
                    "folder": None,
                    "sort": t,
                    "ownership": {"default": 0},
                    "flags": {},
                },
            )
        )
        for r, rid in enumerate(result_ids):
            docs.append(
                (
                    f"!tables.results!{tid}.{rid}",
                    {
                        "_id": rid,
                        "type": "text",
                        "text": f"Result {r} of table {t}: the foe staggers",
                        "img": "icons/svg/d20-black.svg",
                        "weight": span,
                        "range": [r * span + 1, (r + 1) * span],
                        "drawn": False,
                        "flags": {},
                    },
                )
            )
    return docs


def source_files(docs: list[Doc], folder: Path) -> None:
    """Write the documents as the CLI's JSON sources: one file per primary document, embedded
    documents inline, every document with its ``_key``."""
    flat = dict(docs)
    folder.mkdir(parents=True)
    for key, doc in docs:
        collection, pid = key[1:].split("!")
        if "." in collection:
            continue
        source = {**doc, "_key": key}
        if collection == "tables":
            prefix = f"!tables.results!{pid}."
            source["results"] = [{**flat[prefix + r], "_key": prefix + r} for r in doc["results"]]
        (folder / f"{pid}.json").write_text(json.dumps(source, ensure_ascii=False), "utf-8")


def run_fvtt(work: Path, *args: str) -> None:
    """Run the official CLI with its config kept in ``work``; raise if it reports failure."""
    if not FVTT.exists():
        raise SystemExit(f"the official Foundry CLI is missing at {FVTT}; run scripts/setup --test")
    env = {**os.environ, "HOME": str(work), "XDG_DATA_HOME": str(work)}
    done = subprocess.run([str(FVTT), *args], env=env, capture_output=True, text=True)
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"fvtt {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr}")


def pack_section(name: str, weapons: int, tables: int) -> Callable[[Path, int], Measurement]:
    """A section packing a synthetic workload: ``write_pack`` vs ``fvtt package pack`` from the
    JSON source files of the same documents."""

    def section(work: Path, repeat: int) -> Measurement:
        docs = synthetic_documents(weapons=weapons, tables=tables)
        ours_dir = work / "ours" / "synthetic"
        ours = timed(lambda: write_pack(ours_dir, docs), repeat)
        if len(read_pack(ours_dir)) != len(docs):
            raise SystemExit("our pack does not hold every document")
        source_files(docs, work / "src")

        def cli_pack() -> None:
            shutil.rmtree(work / "cli", ignore_errors=True)
            run_fvtt(
                work,
                *("package", "pack", "-n", "synthetic"),
                *("--in", str(work / "src"), "--out", str(work / "cli")),
            )

        baseline = timed(cli_pack, repeat)
        if read_pack(work / "cli" / "synthetic") != dict(docs):
            raise SystemExit("the CLI's pack and ours do not hold the same documents")
        primary = sum(1 for key, _ in docs if "." not in key.split("!")[1])
        return Measurement(
            section=name,
            work=f"{weapons:,} weapons + {tables} tables: {primary:,} documents, {len(docs):,} keys",
            ours=ours,
            baseline_name="fvtt package pack",
            baseline=baseline,
        )

    return section


def cli_startup(work: Path, repeat: int) -> float:
    """Median time of ``fvtt --version``: the CLI's fixed cost inside every baseline figure."""
    return timed(lambda: run_fvtt(work, "--version"), repeat)


def _fresh_dirs(base: Path) -> Callable[[], Path]:
    """A new, not yet existing folder under ``base`` on every call (builds start from nothing)."""
    count = iter(range(1_000_000))
    return lambda: base / f"run-{next(count)}"


def bundled_build(work: Path, repeat: int) -> Measurement:
    """Build the bundled rulesets from nothing: ``arbiter build`` vs the same lowering with the
    packs written as JSON sources and packed by ``fvtt package pack`` (the usual pipeline)."""
    from arbiter.compiler.foundry.build import build_module
    from arbiter.compiler.foundry.layout import PACKS
    from arbiter.compiler.foundry.lower import lower
    from arbiter.compiler.foundry.render import Renderer
    from arbiter.compiler.model.loader import load_all

    fresh = _fresh_dirs(work / "ours")
    ours = timed(lambda: build_module(fresh()), repeat)
    report = build_module(fresh())
    fresh_cli = _fresh_dirs(work / "cli")

    def cli_build() -> None:
        out = fresh_cli()
        documents = lower(load_all(), Renderer())
        for pack in PACKS:
            src = out / "src" / pack.name
            src.mkdir(parents=True)
            for doc in documents[pack.name]:
                name = f"{doc['_id']}.json"
                (src / name).write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
            run_fvtt(work, "package", "pack", "-n", pack.name, "--in", str(src), "--out", str(out))

    baseline = timed(cli_build, repeat)
    keys = sum(report.documents.values())
    rulesets = ", ".join(r.id for r in report.rulesets)
    return Measurement(
        section="build bundled rulesets",
        work=f"{rulesets}: {keys:,} pack keys + {report.files} files",
        ours=ours,
        baseline_name="lower + fvtt package pack",
        baseline=baseline,
    )


def no_change_rebuild(work: Path, repeat: int) -> Measurement:
    """``arbiter build`` when nothing changed (goal: under 0.3 s) vs a full build of the same."""
    from arbiter.compiler.foundry.build import build_module

    out = work / "module"
    first = build_module(out)
    ours = timed(lambda: build_module(out), repeat)
    if not build_module(out).skipped:
        raise SystemExit("a no-change rebuild did not skip")
    fresh = _fresh_dirs(work / "full")
    baseline = timed(lambda: build_module(fresh()), repeat)
    return Measurement(
        section="no-change rebuild",
        work=f"module {first.version} already built",
        ours=ours,
        baseline_name="full build",
        baseline=baseline,
    )


SECTIONS: dict[str, Callable[[Path, int], Measurement]] = {
    "synthetic-pack": pack_section("synthetic pack", weapons=10_000, tables=200),
    "bundled-size-pack": pack_section("bundled-size pack", weapons=1_000, tables=40),
    "bundled-build": bundled_build,
    "no-change-rebuild": no_change_rebuild,
}
"""Section name → function(scratch folder, repeat) → Measurement, in table order."""


def render(rows: list[Measurement]) -> str:
    """The results as a plain-text table."""
    header = ("section", "work", "ours (s)", "baseline", "baseline (s)", "baseline / ours")
    lines = [header]
    for m in rows:
        lines.append(
            (
                m.section,
                m.work,
                f"{m.ours:.3f}",
                m.baseline_name or "-",
                f"{m.baseline:.3f}" if m.baseline is not None else "-",
                f"{m.baseline / m.ours:.1f}x" if m.baseline is not None else "-",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines
    )


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sections (all by default) and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", action="append", choices=sorted(SECTIONS), help="run a section")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (median is shown)")
    args = parser.parse_args(argv)
    rows = []
    for name in args.only or list(SECTIONS):
        with tempfile.TemporaryDirectory(prefix=f"arbiter-bench-{name}-") as scratch:
            rows.append(SECTIONS[name](Path(scratch), args.repeat))
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-cli-") as scratch:
        startup = cli_startup(Path(scratch), args.repeat)
    print(f"Python {platform.python_version()}, median of {args.repeat} runs per figure")
    print(render(rows))
    print(f"(each fvtt figure includes {startup:.3f} s of CLI start-up: fvtt --version)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
