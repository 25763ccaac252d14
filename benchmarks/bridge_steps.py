"""Instructions per call of each step of the server path, under callgrind: where a request goes.

Run: ``valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/steps.%p
.venv/bin/python benchmarks/bridge_steps.py [--calls N] [--steps BEGINNING,...]``, then
``grep summary: /tmp/steps.*.*`` (one dump per step, in the order printed; each summary divided
by ``N`` is the step's instructions per call). Without valgrind it runs the same steps (a smoke
test). The figure cannot move with the machine's load, unlike a wall-clock one.

The steps are the server's own, one at a time, on the combat-styles exchange of
``benchmarks/bridge.py`` (stat blocks in the body, a GM's connection, no socket): reading a frame
(parse and validate, body typed), the pieces it is made of beside the durable echo's
``json.loads``, the engine's decision, the outcome's texts, the row's hash, the INSERT, the
idempotency probe, and ``ClientSession.handle`` whole (with the group commit's COMMIT every 10
rows), then again with the engine's decision replaced by outcomes decided before (the server's
own cost of a request); and the same exchange naming its two stat blocks by reference to the
blocks the GM stored (``arbiter-ref``): read, resolved by the vault (the stored blocks plugged
in), and handled whole, with and without the engine's decision. Instrumentation is switched on
(``callgrind_control -i on``) after start-up and warm-up, so what the rules cost to load is not
counted; each step is zeroed before and dumped after.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import bridge as bench  # noqa: E402


def _control(*options: str) -> None:
    """``callgrind_control`` on this process (nothing when not under callgrind)."""
    if os.environ.get("LD_PRELOAD", "").find("vgpreload") < 0 or not shutil.which(
        "callgrind_control"
    ):
        return
    subprocess.run(
        ["callgrind_control", *options, str(os.getpid())], check=True, capture_output=True
    )


async def _steps(calls: int, only: set[str] | None) -> list[str]:
    import orjson
    from pydantic import JsonValue, TypeAdapter

    from arbiter.bridge import deciding
    from arbiter.bridge.deciding import request_json
    from arbiter.bridge.engine.dice import Dice, KeyedSource
    from arbiter.bridge.limits import BudgetedSource, Limits
    from arbiter.bridge.records import NewRoll, roll_hash
    from arbiter.bridge.refusals import settle
    from arbiter.bridge.server import ArbiterServer, ServerConfig, settle_heap
    from arbiter.bridge.session import ClientSession
    from arbiter.bridge.stores.sqlite_schema import INSERT_ROLL_NULLS
    from arbiter.bridge.views import OutcomeText

    data = Path(tempfile.mkdtemp(prefix="arbiter-steps-"))
    limits = Limits(rate_per_second=1e9, burst=10**9)
    server = ArbiterServer(
        ServerConfig(data=data, port=0, build=False, reload_interval=None, limits=limits)
    )
    rules, store = server.rules, server.store
    reader = rules.reader
    settle_heap()
    session = ClientSession(server, None)  # type: ignore[arg-type]  # no socket: handle() only
    session.user = "benchmark"
    session.bind_player(None)
    frames = [
        json.dumps({"v": 1, "type": "request", "request": bench.combat_styles_exchange(i)})
        for i in range(5 * calls)
    ]
    # The same exchange, each body new (its attacker's evade differs): what reading costs
    # when the reader has no body of the same text kept (arbiter.bridge.reading_known._Known).
    fresh, fresh_handled = [], []
    for i in range(calls):
        body = json.loads(json.dumps(bench.EXCHANGE_BODY))
        body["combatants"][0]["skills"]["evade"] = i % 500
        fresh.append(json.dumps({"v": 1, "type": "request", "request": {
            **bench.combat_styles_exchange(i), "id": f"fresh-{i}", "body": body}}))  # fmt: skip
        # Handled: the same exchange, each text new (other whitespace in it).
        handled = {**bench.combat_styles_exchange(i), "id": f"fresh-h-{i}"}
        text = json.dumps({"v": 1, "type": "request", "request": handled})
        fresh_handled.append(text.replace('"effects": []', f'"effects": [{" " * (1 + i % 997)}]'))

    def by_reference(i: int) -> dict[str, Any]:
        return {**bench.combat_styles_exchange_by_reference(i), "id": f"ref-{i}"}

    # The same exchange naming its two stat blocks by reference to the GM's stored ones (what
    # the GM's client sends; benchmarks/bridge.py's arbiter-ref).
    for block in bench.EXCHANGE_BODY["combatants"]:
        server.vault.put("combat-styles", block, None, 1.0)
    store.commit()
    by_ref = [
        json.dumps({"v": 1, "type": "request", "request": by_reference(i)})
        for i in range(5 * calls)
    ]
    # Each body new (other whitespace in it: another text, the same request), as when the GM's
    # client sends requests that differ: nothing the reader or the vault kept applies.
    ref_fresh = [
        json.dumps({"v": 1, "type": "request", "request": by_reference(6 * calls + i)}).replace(
            '"effects": []', '"effects": [' + " " * (1 + i % 997) + "]"
        )
        for i in range(calls)
    ]
    for frame in frames[:calls] + by_ref[:calls]:  # warm-up
        session.handle(frame)
        store.commit()
    reads: list[Any] = [reader.read(f) for f in frames[calls : 2 * calls]]
    ref_reads: list[Any] = [reader.read(f) for f in by_ref[calls : 2 * calls]]
    served = rules.served["combat-styles"]
    engine, model, digest = served.engine, served.ruleset.model, served.ruleset.content_hash
    body_model = engine.requests["exchange"]
    body_text = json.dumps(bench.EXCHANGE_BODY)
    source = KeyedSource(bytes(32))

    def decided(i: int) -> Any:
        request = reads[i].message.request
        return settle(request, engine, model, digest, None, Dice(BudgetedSource(source, 100)))

    kinds = min(50, calls)  # outcomes of different dice, taken in turn
    outcomes = [decided(i) for i in range(kinds)]
    texts = [OutcomeText(outcomes[i % kinds]) for i in range(calls)]

    def written(read: Any) -> Any:
        # What the log keeps of a request: the text the reader made of its values, if any.
        return read.text if getattr(read, "text", None) is not None else read.request

    logged = request_json(reads[0].message.request, written(reads[0]))
    rolls = [
        NewRoll(
            f"step-{i}",
            "s",
            "u",
            "combat-styles",
            "exchange",
            None,
            digest,
            logged.decode(),
            t.dice,
            t.logged,
            1,
            False,
            1.0,
            None,
        )
        for i, t in enumerate(texts)
    ]
    row = logged + texts[0].dice_bytes + texts[0].logged_bytes
    values = TypeAdapter(JsonValue)

    def insert(i: int) -> None:
        if i % 10 == 0:
            store._db.execute("BEGIN IMMEDIATE")
        r = rolls[i]  # no encounter, keyed dice, no player: the statement the store runs
        args = (10**6 + i, *r[:5], *r[6:11], 0, r.time, "p", "h")
        store._db.execute(INSERT_ROLL_NULLS[False, True, False], args)
        if i % 10 == 9:
            store._db.execute("COMMIT")

    def handle(i: int) -> None:
        session.handle(frames[2 * calls + i])
        if i % 10 == 9:
            store.commit()

    def handle_stubbed(i: int) -> None:
        # The engine's decision replaced by an outcome decided before: what is left is the
        # server's own cost of a request (read, idempotency, texts, hash, INSERT, reply).
        real = deciding.settle
        deciding.settle = lambda *_: outcomes[i % kinds]
        try:
            session.handle(frames[4 * calls + i])
        finally:
            deciding.settle = real
        if i % 10 == 9:
            store.commit()

    def handle_ref(i: int) -> None:
        session.handle(by_ref[2 * calls + i])
        if i % 10 == 9:
            store.commit()

    def handle_ref_stubbed(i: int) -> None:
        real = deciding.settle
        deciding.settle = lambda *_: outcomes[i % kinds]
        try:
            session.handle(by_ref[4 * calls + i])
        finally:
            deciding.settle = real
        if i % 10 == 9:
            store.commit()

    def stubbed(frame: str, i: int) -> None:
        real = deciding.settle
        deciding.settle = lambda *_: outcomes[i % kinds]
        try:
            session.handle(frame)
        finally:
            deciding.settle = real
        if i % 10 == 9:
            store.commit()

    gm = session.viewer

    def resolve_ref(i: int) -> Any:
        # A fresh Sent each call (the vault reads its body as written once per request).
        read = ref_reads[i]
        fresh = type(read)(read.message, None, read.frame, read.text)
        return server.vault.resolve(fresh, gm, None, rules)

    steps: list[tuple[str, Callable[[int], object]]] = [
        ("read frame (FrameReader.read)", lambda i: reader.read(frames[calls + i])),
        ("read frame, every body new", lambda i: reader.read(fresh[i])),
        ("  body alone, rules context", lambda i: body_model.model_validate_json(
            body_text, strict=True, context=rules.context)),
        ("  body alone, no context", lambda i: body_model.model_validate_json(
            body_text, strict=True)),
        ("  frame as JSON values (pydantic)", lambda i: values.validate_json(frames[calls + i])),
        ("  frame by orjson.loads", lambda i: orjson.loads(frames[calls + i])),
        ("  frame by json.loads (durable echo)", lambda i: json.loads(frames[calls + i])),
        ("engine decision (settle)", decided),
        ("outcome texts (OutcomeText)", lambda i: OutcomeText(outcomes[i % kinds])),
        ("row hash (roll_hash)", lambda i: roll_hash("0" * 64, i, rolls[i], logged,
                                                     texts[i].dice_bytes, texts[i].logged_bytes)),
        ("  sha256 of the row's bytes", lambda i: hashlib.sha256(row).hexdigest()),
        ("INSERT + COMMIT every 10", insert),
        ("idempotency probe (store.find)", lambda i: store.find(f"none-{i}")),
        ("logged request (request_json)", lambda i: request_json(
            reads[i].message.request, written(reads[i]))),
        ("ClientSession.handle (COMMIT every 10)", handle),
        ("ClientSession.handle, decision stubbed (COMMIT every 10)", handle_stubbed),
        ("by reference: read frame (FrameReader.read)", lambda i: reader.read(by_ref[calls + i])),
        ("by reference: stored blocks resolved (Vault.resolve)", resolve_ref),
        ("by reference: ClientSession.handle (COMMIT every 10)", handle_ref),
        ("by reference: ClientSession.handle, decision stubbed (COMMIT every 10)",
         handle_ref_stubbed),
        ("ClientSession.handle, every body new, decision stubbed (COMMIT every 10)",
         lambda i: stubbed(fresh_handled[i], i)),
        ("by reference: ClientSession.handle, every body new, decision stubbed (COMMIT every 10)",
         lambda i: stubbed(ref_fresh[i], i)),
    ]  # fmt: skip
    _control("-i", "on")
    done = []
    for name, step in steps:
        # A step runs when its name begins with one of ``only`` (names hold commas themselves).
        if only is not None and not name.strip().startswith(tuple(only)):
            continue
        _control("-z")
        for i in range(calls):
            step(i)
        _control("-d")
        done.append(name)
    store.commit()
    await server.close()
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per step")
    parser.add_argument("--steps", help="comma-separated beginnings of step names (default: all)")
    args = parser.parse_args()
    bench._load_exchange_body()
    if not bench.EXCHANGE_BODY:
        print("skipped: no combat-styles exchange example")
        return 0
    only = {s.strip() for s in args.steps.split(",")} if args.steps else None
    for number, name in enumerate(asyncio.run(_steps(args.calls, only)), 1):
        print(f"dump {number}: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
