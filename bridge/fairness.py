"""Checking a session's dice against its revealed seed (commit–reveal).

A session commits to ``SHA-256(seed)`` in its welcome message. Each logged roll records the keyed
counter its first die used, so once the seed is public anyone can recompute every die:
``KeyedSource(seed, counter).randint(faces)`` for each recorded die, in order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.store import Roll


@dataclass(frozen=True)
class Verification:
    """How a session's rolls compare with its seed."""

    commitment_ok: bool
    rolls: int
    dice: int
    scripted: int
    mismatches: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.commitment_ok and not self.mismatches


def verify_session(seed: bytes, commitment: str, rolls: Iterable[Roll]) -> Verification:
    """Recompute every die of ``rolls`` from ``seed``; lists each roll whose dice differ."""
    mismatches: list[str] = []
    count = dice_count = scripted = 0
    for roll in rolls:
        count += 1
        if roll.entry.counter is None:
            scripted += 1
            continue
        source = KeyedSource(seed, roll.entry.counter)
        for n, die in enumerate(json.loads(roll.entry.dice), start=1):
            dice_count += 1
            expected = source.randint(die["faces"])
            if expected != die["result"]:
                mismatches.append(
                    f"row {roll.seq} ({roll.entry.request_id}) die {n}: logged {die['result']}, "
                    f"the seed gives {expected}"
                )
                break
    return Verification(
        commitment_ok=KeyedSource.commitment(seed) == commitment,
        rolls=count,
        dice=dice_count,
        scripted=scripted,
        mismatches=tuple(mismatches),
    )
