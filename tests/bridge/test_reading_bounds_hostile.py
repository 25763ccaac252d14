"""Review of the fast path's native bounds (issue #16) as a hostile client writes numbers.

Whatever a frame puts where a stat block's number goes (past either end, beyond 64 bits, a
bool, a float, null in a field that takes none or that does), and whichever of the reader's
two validators reads it (a frame holding ``"stored"`` is read by the referencing one), a frame
the fast path accepts is one the slow path accepts, into the same body. Readers built in
threads at the same time (world rules, reloads) each hold their own snapshot's bounds.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import StatBlock
from arbiter.bridge.engine.rule_context import validation_context
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.reading import FrameReader, Sent
from arbiter.compiler.model.common import Bound
from tests.bridge.engine.rule_edits import edited
from tests.bridge.test_reading_bounds import BOUNDED, bundled, example, slow_body, with_number


def hostile(bound: Bound) -> list[Any]:
    """The numbers a hostile client tries at a field held to ``bound``."""
    assert bound.max is not None
    return [
        bound.min - 1,
        bound.max + 1,
        bound.min,
        bound.max,
        2**63,
        2**64,
        -(2**63) - 1,
        10**40,
        -(10**40),
        True,
        False,
        float(bound.max),
        bound.min + 0.5,
        None,
    ]


@pytest.mark.parametrize("stored", [False, True], ids=["inline", "referencing"])
@pytest.mark.parametrize(("ruleset", "type", "path", "limit"), BOUNDED)
def test_a_hostile_number_the_fast_path_accepts_is_one_the_slow_path_accepts_the_same(
    ruleset: str, type: str, path: str, limit: str, stored: bool
) -> None:
    rules = bundled()
    bound = getattr(rules.models[ruleset].stat_block_limits, limit)
    accepted = 0
    for value in hostile(bound):
        request = example(ruleset, type)
        if stored:  # the frame holds "stored": the referencing validator reads it
            request = {**request, "id": "stored"}
        frame = with_number(request, path, value)
        assert ('"stored"' in frame) is stored
        read = rules.reader.read(frame)
        if not isinstance(read, Sent):
            continue
        accepted += 1
        try:
            slow = slow_body(rules, frame)
        except ProtocolError as refused:  # pragma: no cover - the defect this test looks for
            pytest.fail(f"{path}={value!r}: fast path accepted, slow path refused: {refused}")
        assert read.message.request.body.model_dump() == slow.model_dump(), (path, value)
        number = _at(read.message.request.body.model_dump(), path)
        assert number is None or bound.min <= number <= bound.max, (path, value)
    assert accepted >= 2  # both ends at least: the test reads real acceptances


def _at(body: dict[str, Any], path: str) -> Any:
    # The number at ``path`` of the first combatant as validated (None: a nullable field's
    # null); a dump names fields, not aliases (siz is SIZ).
    node: Any = body["combatants"][0]
    for key in path.split("."):
        node = node.get(key, node.get(key.upper()))
    return node


def test_readers_built_in_threads_at_once_each_hold_their_own_snapshot_s_bounds() -> None:
    rules = bundled()
    served = {rid: s.engine for rid, s in rules.served.items()}
    start = example("hmk", "start")
    evade = example("combat-styles", "start_encounter")
    limits = [Bound(min=1, max=n) for n in range(2, 8)]
    readers: dict[int, FrameReader] = {}
    failures: list[str] = []
    stop = threading.Event()

    def build(bound: Bound) -> None:
        tight = edited(rules.models["hmk"], "stat_block_limits.actions", bound)
        readers[bound.max or 0] = FrameReader(
            served, validation_context({**rules.models, "hmk": tight})
        )

    def read_meanwhile() -> None:
        # The served snapshot's reader and the stat block's own validator, used while others
        # are built: neither lets a number past its bound.
        past = with_number(evade, "skills.evade", 501)
        while not stop.is_set():
            if rules.reader.read(past) is not None:
                failures.append("served reader accepted evade 501")
            try:
                StatBlock.model_validate(
                    {**evade["body"]["combatants"][0], "skills": {"evade": 501}},
                    strict=True,
                    context=rules.context,
                )
            except ValueError:
                continue  # refused, as it must be
            failures.append("StatBlock accepted evade 501")

    reader_thread = threading.Thread(target=read_meanwhile)
    reader_thread.start()
    builders = [threading.Thread(target=build, args=(bound,)) for bound in limits]
    for thread in builders:
        thread.start()
    for thread in builders:
        thread.join()
    stop.set()
    reader_thread.join()
    assert failures == []
    assert StatBlock.__dict__["__pydantic_complete__"] is True
    for high, reader in readers.items():
        assert isinstance(reader.read(with_number(start, "actions", high)), Sent), high
        assert reader.read(with_number(start, "actions", high + 1)) is None, high
