"""The observation tensor computed by the native core (cpp/observation.cpp), so that the
adapters on the native engine observe a position without decoding the reference's state
from the core's (docs/native.md, "The adapters on the core").

The core writes `observation.observation_tensor`'s tensor (layout version 1) of a state of
play, as the bytes of little-endian float32, from its own state and from what this module
hands it once per edition data (`observation_tables`): the customer tiles in the order of
the per-tile segments, the member locations in the order of the one-hots
(`observation.locations`), the cities in data order, the pending kinds and the field each
kind's `pending_number` holds (`observation_parts`), and `layout(data, players)` for every
player count, against which the core checks each segment it writes. So every order and
size is the Python side's; the C++ side holds none of its own.

tests/native/test_native_observation.py ties the core's bytes to `observation_array`'s on
every state of the `tiny` and `solo` configurations and of seeded games of both editions and
every player count, naming the state and the segment of a difference
(`segment_differences`). Importable only where the native core is built
(`village_rules.native`).
"""

from __future__ import annotations

import struct

from village_rules.adapters.observation import layout, locations
from village_rules.adapters.observation_parts import NUMBER_FIELDS, SOLO_PENDING_KINDS, customer_tiles
from village_rules.data.components import format_location
from village_rules.data.edition import EditionData
from village_rules.native import _core
from village_rules.native.engine import tables_for

__all__ = ["PLANTS", "native_observation", "observation_tables", "segment_differences"]

PLANTS = ("customer pile forgets its last tile",)
"""The differences a test can plant in the core's tensor (cpp/observation.hpp Plant)."""


def observation_tables(data: EditionData) -> _core.Tables:
    """The native tables of `data` (`engine.tables_for`), with the observation tensor's data
    added the first time they are asked for here."""
    tables = tables_for(data)
    if not tables.observes:
        solo = data.solo is not None
        _core.set_observation_tables(
            tables,
            customer_tiles(data),
            [format_location(place) for place in locations(data)],
            [format_location(place) for place in locations(data, solo=True)] if solo else [],
            [city.id for city in data.cities],
            [kind.__name__ for kind in SOLO_PENDING_KINDS],
            {kind.__name__: field for kind, field in NUMBER_FIELDS.items() if field is not None},
            {
                players: [(segment.name, segment.offset, segment.size) for segment in layout(data, players)]
                for players in data.playable_counts
            },
        )
    return tables


def native_observation(game: _core.Game, data: EditionData, observer: int, plant: str = "") -> bytes:
    """The core's tensor of `game`'s state (a game of `data`) as seat `observer` sees it: the
    bytes of little-endian float32. `plant` (tests): one of `PLANTS`, a difference on purpose."""
    observation_tables(data)
    return game.observation(observer, plant)


def segment_differences(data: EditionData, players: int, native: bytes, reference: bytes) -> list[str]:
    """Each segment of `layout(data, players)` (players 1: solo) whose floats differ between
    two tensors given as little-endian float32 bytes, named with its first differing entry:
    `"round[0]: native 2.0, reference 1.0"`. Empty when the bytes are the same."""
    if len(native) != len(reference):
        return [f"the length: native {len(native) // 4} floats, reference {len(reference) // 4}"]
    out: list[str] = []
    for segment in layout(data, players):
        first, last = 4 * segment.offset, 4 * (segment.offset + segment.size)
        if native[first:last] == reference[first:last]:
            continue
        entries = range(first, last, 4)
        at = next(k for k in entries if native[k : k + 4] != reference[k : k + 4])
        (ours,) = struct.unpack_from("<f", native, at)
        (theirs,) = struct.unpack_from("<f", reference, at)
        out.append(f"{segment.name}[{(at - first) // 4}]: native {ours}, reference {theirs}")
    return out
