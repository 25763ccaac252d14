"""Review of the server's row hash (issue #16): it writes a time in 1e-4..1e16 by orjson
instead of repr. For every float a row's time may be, the bytes hashed are the general row
hash's (repr), so a chain the server writes verifies, and the same as before the change."""

from __future__ import annotations

import math
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bridge.records import NewRoll, hashed_fields, roll_hash, row_hash


def _float(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", bits))[0])


def _bits(value: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", value))[0])


def _agree(time: float) -> None:
    roll = NewRoll("r", "s", "u", "tiny", "check", None, "h", "{}", "[]", "{}", 7, False, time)
    texts = (roll.request.encode(), roll.dice.encode(), roll.outcome.encode())
    assert roll_hash("c" * 64, 3, roll, *texts) == row_hash("c" * 64, hashed_fields(3, roll)), repr(
        time
    )


def test_times_at_and_next_to_each_power_of_ten_and_the_range_ends_hash_as_repr_writes_them() -> (
    None
):
    edges = [10.0**k for k in range(-6, 18)] + [1e-4, 1e16, 2.0**53, 2.0**52, 1764650000.5]
    for edge in edges:
        for step in range(-64, 65):
            _agree(_float(_bits(edge) + step))


def test_zero_negative_zero_subnormals_and_the_non_finite_hash_as_repr_or_json_writes_them() -> (
    None
):
    for time in (0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, -1e-4, -1e16):
        _agree(time)
    for time in (math.inf, -math.inf, math.nan):
        _agree(time)


@settings(max_examples=3000, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_finite_time_hashes_as_repr_writes_it(time: float) -> None:
    _agree(time)


@settings(max_examples=3000, deadline=None)
@given(st.floats(min_value=1e-4, max_value=1e16, exclude_max=True))
def test_any_time_orjson_writes_hashes_as_repr_writes_it(time: float) -> None:
    _agree(time)
