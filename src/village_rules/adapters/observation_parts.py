"""What the list tensor (`observation`) and the NumPy one (`observation_array`) both read
from a state besides the layout: the order of the customer tiles, the entries of the
pending step, and the values of Carla's board. One home for them, so the two builders
cannot drift apart (tests/adapters/test_observation_array.py compares them float for float).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from village_rules.data.components import ActionSpace, Cube
from village_rules.data.edition import EditionData
from village_rules.data.solo_data import FateTile
from village_rules.engine.guards import present
from village_rules.model.actions import action_id
from village_rules.model.carla_board import CARLA
from village_rules.model.pending import (
    ChooseAction,
    ChooseCarlaCube,
    ChooseCompensationCube,
    ChooseDying,
    ChoosePayment,
    ChoosePrivilege,
    ChooseSupplyCube,
    ChooseSupplyGood,
    ChooseTurn,
    FateReveal,
    GameOver,
    MarketChoice,
    MassAdvance,
    MassBuy,
    MassDraw,
    Pending,
    RefillDraw,
    SeedDraw,
)
from village_rules.model.state import GameState

PENDING_KINDS: tuple[type, ...] = (
    ChooseCompensationCube,
    ChooseTurn,
    ChooseAction,
    ChoosePrivilege,
    ChooseSupplyCube,
    ChooseSupplyGood,
    ChoosePayment,
    ChooseDying,
    MarketChoice,
    MassBuy,
    MassAdvance,
    SeedDraw,
    RefillDraw,
    MassDraw,
    GameOver,
)
SOLO_PENDING_KINDS: tuple[type, ...] = (*PENDING_KINDS, ChooseCarlaCube, FateReveal)
"""A solo game's pending kinds: the multi-player ones, then Carla's two (SOLO-12, SOLO-14)."""

_KIND = {kind: i for i, kind in enumerate(SOLO_PENDING_KINDS)}
"""A kind's index: the same in both tuples (the solo one extends the other)."""
_CUBE_AT = {id(c): i for i, c in enumerate(Cube)}
_SPACE_AT = {id(s): i for i, s in enumerate(ActionSpace)}
_FATE_AT = {id(f): i for i, f in enumerate(FateTile)}
"""Indices by the member's identity (enum members are singletons; an enum hashes in Python)."""
CUBES, SPACES, FATES = len(Cube), len(ActionSpace), len(FateTile)
"""`len()` of the enums, once (an enum's `__len__` runs in Python)."""


def customer_tiles(data: EditionData) -> list[int]:
    """The customer tiles' ids in the order of every per-tile segment: sorted by id."""
    return sorted(t.id for t in data.customers)


class PendingEntries(NamedTuple):
    """What the `pending_*` segments hold for one pending step."""

    kind: int
    """Its index in `PENDING_KINDS` (`SOLO_PENDING_KINDS` in a solo game)."""
    seat: int | None
    """The seat of a pending decision, else None (the segment is all 0)."""
    space: int | None
    """The index in `ActionSpace` of its space (ChooseAction, SeedDraw, ChooseCarlaCube)."""
    number: int
    """max_stage / remaining / position / slot, else 0."""
    paid: int
    """ChoosePayment: 1 + the id of the action paid for, else 0."""


NUMBER_FIELDS: dict[type, str | None] = {
    ChooseCompensationCube: None,
    ChooseTurn: None,
    ChooseAction: None,
    ChoosePrivilege: "max_stage",
    ChooseSupplyCube: "remaining",
    ChooseSupplyGood: "remaining",
    ChoosePayment: None,
    ChooseDying: None,
    MarketChoice: None,
    MassBuy: None,
    MassAdvance: None,
    SeedDraw: "remaining",
    RefillDraw: "position",
    MassDraw: "remaining",
    GameOver: None,
    ChooseCarlaCube: None,
    FateReveal: "slot",
}
"""Per pending kind, the field `pending_number` holds (None: 0). A table rather than a
`match`, since it is read on every observation; `_SHAPE` below reads it for every kind at
import, and the native core is handed it (`adapters.native_observation`), where a field its
state does not have is refused."""
_SHAPE: dict[type, tuple[int, bool, bool, str | None]] = {
    kind: (_KIND[kind], "seat" in names, "space" in names, NUMBER_FIELDS[kind])
    for kind in SOLO_PENDING_KINDS
    for names in [{f.name for f in dataclasses.fields(kind)}]
}
"""Per pending kind: its index, whether it has a seat and a space, its number's field."""


def pending_entries(pending: Pending, data: EditionData) -> PendingEntries:
    """The `pending_*` entries of a pending step (layout version 1)."""
    kind, has_seat, has_space, number = _SHAPE[type(pending)]
    return PendingEntries(
        kind,
        pending.seat if has_seat else None,  # type: ignore[union-attr]
        _SPACE_AT[id(pending.space)] if has_space else None,  # type: ignore[union-attr]
        0 if number is None else getattr(pending, number),
        1 + action_id(data, pending.action) if isinstance(pending, ChoosePayment) else 0,
    )


def carla_ones(state: GameState) -> tuple[int, list[int]]:
    """The `carla_…` segments of a solo game's tensor (Carla's board), every entry 0 or 1:
    their length and the positions of the 1s. In layout order: one-hots of her last cube
    space (last: none), its colour (last: none), each fate slot (last: face down), the
    colour she looks for, the space to look from, the space she just took from (each
    last: none), then four flags: reacted, quill, well turn, end in her market day."""
    carla = present(state.carla, "observation", "Carla's board")
    solo = present(state.rules.data.solo, "observation", "the edition's solo data")
    track = solo.track_spaces + 1
    ones = [track - 1 if carla.space < 0 else carla.space]
    at = track
    ones.append(at + (CUBES if carla.last_cube is None else _CUBE_AT[id(carla.last_cube)]))
    at += CUBES + 1
    for shown in carla.fate:
        ones.append(at + (FATES if shown is None else _FATE_AT[id(shown)]))
        at += FATES + 1
    ones.append(at + (CUBES if carla.look_for is None else _CUBE_AT[id(carla.look_for)]))
    at += CUBES + 1
    for space in (carla.look_from, carla.took_from):
        ones.append(at + (SPACES if space is None else _SPACE_AT[id(space)]))
        at += SPACES + 1
    flags = (carla.reacted, carla.quill, carla.well_turn, carla.end_in_market_of == CARLA)
    ones += [at + k for k, flag in enumerate(flags) if flag]
    return at + len(flags), ones


def carla_values(state: GameState) -> list[float]:
    """The `carla_…` segments as floats (`carla_ones` written out)."""
    size, ones = carla_ones(state)
    out = [0.0] * size
    for i in ones:
        out[i] = 1.0
    return out


__all__ = [
    "CUBES",
    "FATES",
    "NUMBER_FIELDS",
    "PENDING_KINDS",
    "SOLO_PENDING_KINDS",
    "SPACES",
    "PendingEntries",
    "carla_ones",
    "carla_values",
    "customer_tiles",
    "pending_entries",
]
