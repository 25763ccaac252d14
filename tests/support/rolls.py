"""A roll-sized row for the store tests: what a server stages for request ``rid``."""

from __future__ import annotations

import json

from arbiter.bridge.records import NewRoll


def new_roll(rid: str, encounter: str | None = None, state: dict | None = None) -> NewRoll:
    """A row of request ``rid`` (in ``encounter``, moving it to ``state``), else fixed values."""
    return NewRoll(
        request_id=rid,
        session="s1",
        user="u",
        ruleset="tiny",
        type="check",
        encounter=encounter,
        rules_hash="h" * 64,
        request=f'{{"id":"{rid}"}}',
        dice='[{"expr":"1d100","faces":100,"result":7}]',
        outcome=json.dumps({"id": rid, "state": state}),
        counter=3,
        scripted=False,
        time=1700000000.25,
    )
