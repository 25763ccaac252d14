"""CRC-32C: published check values, LevelDB's masking, and the lane-wise fast path."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.compiler.foundry.leveldb.crc32c import crc32c, crc32c_many, mask, unmask


def reference_crc32c(data: bytes) -> int:
    """Bit-at-a-time CRC-32C straight from the definition (reflected, polynomial 0x1EDC6F41)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_the_standard_check_value_of_123456789_is_e3069283() -> None:
    assert crc32c(b"123456789") == 0xE3069283


def test_the_rfc_3720_iscsi_vectors_match() -> None:
    # RFC 3720, appendix B.4: 32 bytes of zeros, of ones, ascending and descending.
    assert crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E
    assert crc32c(bytes(range(31, -1, -1))) == 0x113FDB5C


def test_the_empty_string_has_crc_zero() -> None:
    assert crc32c(b"") == 0


def test_leveldb_masking_rotates_adds_a_constant_and_inverts() -> None:
    # LevelDB's crc32c_test: Mask(crc) != crc, Mask(Mask(crc)) != crc, Unmask(Mask(crc)) == crc.
    crc = crc32c(b"foo")
    assert mask(crc) != crc
    assert mask(mask(crc)) != crc
    assert unmask(mask(crc)) == crc
    assert unmask(unmask(mask(mask(crc)))) == crc
    assert mask(0) == 0xA282EAD8


def test_long_inputs_take_the_lane_path_and_agree_with_the_definition() -> None:
    for size in (255, 256, 257, 1000, 4099, 32761, 32768, 70001):
        data = bytes((i * 131 + size) % 251 for i in range(size))
        assert crc32c(data) == reference_crc32c(data), size


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=3000), st.binary(max_size=3000))
def test_extending_a_crc_equals_the_crc_of_the_concatenation(a: bytes, b: bytes) -> None:
    assert crc32c(b, crc32c(a)) == crc32c(a + b) == reference_crc32c(a + b)


def test_many_inputs_checksummed_together_equal_each_alone() -> None:
    items = [
        (bytes((i * 7 + k) % 256 for i in range(size)), seed)
        for k, (size, seed) in enumerate(
            [(32761, 0), (32761, 0x1234), (32761, 0xFFFFFFFF), (300, 5), (300, 0), (3, 9), (0, 1)]
        )
    ]
    assert crc32c_many(items) == [crc32c(data, seed) for data, seed in items]
    assert crc32c_many(items[:3]) == [reference_crc32c_from(data, seed) for data, seed in items[:3]]


def reference_crc32c_from(data: bytes, crc: int) -> int:
    """The bit-at-a-time definition, extending a previous CRC."""
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
