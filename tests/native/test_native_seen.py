"""The native explorer's seen set (issue 40, item 1: a compact seen set, at most 10 bytes a
state; cpp/explore.hpp `SeenSet`): it holds exactly the values a Python `set` holds, the
corner cases of its quotienting included, and its bytes a value stay under 10 from a
million values up (the directory's fixed 1 MiB fading)."""

from __future__ import annotations

import random

from village_rules.explore.seen import SeenSet as PythonSeenSet
from village_rules.native import _core

TOP = 1 << 48
"""The first fingerprint of the second segment: the top 16 bits pick the segment."""

CORNERS = (0, 1, TOP - 1, TOP, TOP + 1, 5 * TOP, 0xFFFF * TOP, 2**64 - 1)
"""Zero, a zero remainder in a segment (0, TOP, 5 * TOP, 0xFFFF * TOP, kept as the segment's
flag), the smallest and largest remainders and the largest value."""


def test_the_seen_set_holds_exactly_what_a_python_set_holds() -> None:
    rng = random.Random(40)
    values = [rng.getrandbits(64) for _ in range(60_000)]
    values += [rng.getrandbits(64) % (3 * TOP) for _ in range(20_000)]  # crowd three segments
    values += list(CORNERS)
    values += values[::7]  # repeats, which must come back False
    rng.shuffle(values)
    native, reference = _core.SeenSet(), set[int]()
    for value in values:
        assert native.add(value) == (value not in reference), value
        reference.add(value)
    assert len(native) == len(reference)
    assert sorted(native.keys()) == sorted(reference)
    for value in CORNERS:
        assert not native.add(value)


def test_a_zero_remainder_is_not_the_empty_slot() -> None:
    # 0 marks an empty slot, so each segment keeps its remainder 0 as a flag: TOP and 2 * TOP
    # (both remainder 0, segments 1 and 2) are two values, and neither is 1 or TOP + 1
    native = _core.SeenSet()
    assert native.add(TOP)
    assert native.add(2 * TOP)
    assert native.add(TOP + 1)
    assert native.add(1)
    assert not native.add(TOP)
    assert sorted(native.keys()) == [1, TOP, TOP + 1, 2 * TOP]


def test_the_seen_set_takes_at_most_10_bytes_a_state_from_a_million_states_up() -> None:
    rng = random.Random(7)
    native = _core.SeenSet()
    for _ in range(1_000_000):
        native.add(rng.getrandbits(64))
    assert len(native) == 1_000_000
    per_state = native.nbytes / len(native)
    assert 6 < per_state <= 10, per_state  # 6-byte slots, at least 69% full, and the 1 MiB directory
    # the Python explorer's table of 8-byte fingerprints, 80% full at most: 10 to 15
    assert per_state < PythonSeenSet(1_000_000).nbytes / 1_000_000
