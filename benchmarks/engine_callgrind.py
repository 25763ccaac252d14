"""Instructions per call of the combat-styles engine under callgrind, trees side by side.

Run: ``.venv/bin/python benchmarks/engine_callgrind.py [--root DIR ...] [--mode compiled|interpreted ...]
[--line full|json|blocks ...] [--calls N] [--warmup W] [--keep DIR]`` (valgrind must be installed).

The lines are ``benchmarks/engine_combat_styles.py``'s, written here once from the names that
module has in every tree (so an older checkout runs the very same calls):

* ``full``: a full exchange inside an encounter through ``ENGINE.resolve``, keyed dice;
* ``json``: the server's path, a JSON request validated by ``Request`` and resolved, and when
  effects were won a second request choosing the first eligible one (``choose_effects``);
* ``blocks``: a full exchange whose request carries both stat blocks, no encounter.

For each tree (``--root``, repeatable; default this checkout), mode (``ARBITER_ENGINE``) and line,
the tree's own Python (its ``.venv-c``, else its ``.venv``; ``--python`` overrides) runs the line
under ``valgrind --tool=callgrind`` twice, from that tree's folder with ``PYTHONHASHSEED=0``: ``W``
warm-up calls then none, and ``W`` warm-up calls then ``N``. The difference divided by ``N`` is
the instructions per call, without start-up, imports and warm-up. Callgrind counts instructions,
so the figure does not move with the machine's load (the hash seed would move it ~2 %: it is
fixed). With several trees the first is the baseline: each other tree's figure is printed beside
it with the ratio. A tree from before the engine moved into ``arbiter.bridge`` (the old flat
package) works too: the lines only use names its benchmark module has. ``--keep DIR`` keeps the
callgrind files (``callgrind_annotate --inclusive=yes`` reads them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINES = ("full", "json", "blocks")
MODES = ("compiled", "interpreted")


def _line(name: str) -> Callable[[], None]:
    """The call of benchmark line ``name``, built from the current tree's
    ``benchmarks/engine_combat_styles.py`` (the child's side: its folder is on ``sys.path``)."""
    import engine_combat_styles as bench  # type: ignore[import-not-found]  # the measured tree's

    model = bench.load_ruleset("combat-styles").model
    state = bench._started(model)
    if name == "full":
        exchange: Callable[[], None] = bench._encounter_exchange(model, state)[0]
        return exchange
    if name == "json":
        raw = {
            "id": "bench",
            "ruleset": "combat-styles",
            "type": "exchange",
            "body": {"attacker": "a", "defender": "b", "parry_weapon": "heater"},
        }
        source = bench.KeyedSource(bench.SEED, counter=10**6)

        def with_choice() -> None:
            out = bench.resolve(
                bench.Request.model_validate(raw), bench.ENGINE, model, "", state, source
            )
            result = out["result"]
            if result["status"] == "awaiting_effects":
                pick = [{"id": e["id"]} for e in result["eligible"][:1] if e["id"] in bench.SIMPLE]
                choose = {
                    "id": "bench-2",
                    "ruleset": "combat-styles",
                    "type": "choose_effects",
                    "body": {"token": result["token"], "effects": pick},
                }
                request = bench.Request.model_validate(choose)
                bench.resolve(request, bench.ENGINE, model, "", out["state"], source)

        return with_choice
    if name == "blocks":
        fighters = [
            bench._fighter("a", {}),
            bench._fighter("b", {"chest": "mail", "head": "padded"}),
        ]
        body = bench.ExchangeBody.model_validate(
            {
                "attacker": "a",
                "defender": "b",
                "parry_weapon": "heater",
                "effects": [],
                "combatants": fighters,
            }
        )
        blocks_source = bench.KeyedSource(bench.SEED, counter=2 * 10**6)

        def stateless() -> None:
            bench.ENGINE.resolve(model, "exchange", body, None, bench.Dice(blocks_source))

        return stateless
    raise ValueError(f"unknown line {name!r}: one of {', '.join(LINES)}")


def child(name: str, calls: int, warmup: int) -> None:
    """Runs line ``name`` ``warmup`` times, then ``calls`` times, in the tree of the current
    folder (what callgrind measures)."""
    tree = Path.cwd()
    sys.path[0:1] = [str(tree / "benchmarks"), str(tree)]  # the measured tree's, not this file's
    fn = _line(name)
    for _ in range(warmup):
        fn()
    for _ in range(calls):
        fn()


def python_of(root: Path) -> Path:
    """The Python that runs ``root``'s engine: its compiled venv (``.venv-c``) when it has one,
    else its ``.venv``."""
    for venv in (".venv-c", ".venv"):
        candidate = root / venv / "bin" / "python"
        if candidate.exists():
            return candidate
    raise SystemExit(f"{root}: no .venv-c/bin/python or .venv/bin/python (or pass --python)")


def _collected(path: Path) -> int:
    """The total instructions of a callgrind output file."""
    for text in path.read_text().splitlines():
        if text.startswith(("summary:", "totals:")):
            return int(text.split()[1])
    raise ValueError(f"{path}: no summary line")


def instructions(
    root: Path,
    python: Path,
    mode: str,
    line: str,
    calls: int,
    *,
    warmup: int = 300,
    keep: Path | None = None,
) -> int:
    """The total instructions callgrind counts for ``root``'s Python running ``line`` in ``mode``
    ``warmup`` + ``calls`` times (start-up and imports included)."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "ARBITER_ENGINE": mode}
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory(prefix="arbiter-engine-callgrind-") as tmp:
        out = Path(tmp) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--dump-instr=no",
            f"--callgrind-out-file={out}",
            str(python),
            str(Path(__file__).resolve()),
            "--child",
            line,
            str(calls),
            str(warmup),
        ]
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
        if done.returncode != 0 or not out.exists():
            tail = "\n".join(done.stderr.splitlines()[-15:])
            raise RuntimeError(
                f"{root} {mode} {line}: the run failed (status {done.returncode}):\n{tail}"
            )
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(out, keep / f"{root.name}-{mode}-{line}-{calls}.out")
        return _collected(out)


def per_call(
    root: Path,
    python: Path,
    mode: str,
    line: str,
    calls: int,
    *,
    warmup: int = 300,
    keep: Path | None = None,
) -> float:
    """Instructions per call of ``line``: the run with ``calls`` calls after warm-up less the run
    with none, divided by ``calls``."""
    base = instructions(root, python, mode, line, 0, warmup=warmup, keep=keep)
    more = instructions(root, python, mode, line, calls, warmup=warmup, keep=keep)
    return (more - base) / calls


def row(label: str, figures: Sequence[float]) -> str:
    """One line of the table: the figures in tree order, each after the first with its ratio to
    the first (the baseline)."""
    cells = [f"{figures[0]:>14,.0f}"]
    for figure in figures[1:]:
        cells.append(f"{figure:>14,.0f} {figure / figures[0]:>7.3f}")
    return f"{label:<20}" + "".join(cells)


def header(roots: Sequence[Path]) -> str:
    """The table's header: one column per tree (the first the baseline)."""
    cells = [f"{root.name:>14}" for root in roots[:1]]
    cells += [f"{root.name:>14} {'ratio':>7}" for root in roots[1:]]
    return f"{'mode line':<20}" + "".join(cells)


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in[:1] == ["--child"]:
        child(args_in[1], int(args_in[2]), int(args_in[3]))
        return 0
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--root",
        type=Path,
        action="append",
        help="a checkout to measure (repeatable; the first is the baseline; default this one)",
    )
    parser.add_argument("--mode", choices=MODES, action="append", help="default both")
    parser.add_argument("--line", choices=LINES, action="append", help="default full and json")
    parser.add_argument("--calls", type=int, default=400, help="measured calls (after warm-up)")
    parser.add_argument("--warmup", type=int, default=300, help="calls before the measured ones")
    parser.add_argument(
        "--python", type=Path, help="the Python for every tree (default its venv's)"
    )
    parser.add_argument("--keep", type=Path, help="a folder to keep the callgrind files in")
    args = parser.parse_args(args_in)
    if shutil.which("valgrind") is None:
        print("engine_callgrind: valgrind is not installed (Debian: apt-get install valgrind)")
        return 1
    roots = [root.resolve() for root in (args.root or [ROOT])]
    pythons = [args.python.absolute() if args.python else python_of(root) for root in roots]
    print(
        f"instructions per call (callgrind, PYTHONHASHSEED=0, {args.calls} calls after {args.warmup})"
    )
    for root, python in zip(roots, pythons, strict=True):
        print(f"  {root.name}: {root} ({python})")
    print(header(roots), flush=True)
    for mode in args.mode or MODES:
        for line in args.line or ("full", "json"):
            figures = [
                per_call(root, python, mode, line, args.calls, warmup=args.warmup, keep=args.keep)
                for root, python in zip(roots, pythons, strict=True)
            ]
            print(row(f"{mode} {line}", figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
