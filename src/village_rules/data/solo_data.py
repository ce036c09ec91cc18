"""The solo mode's component data (2023 pp. 15-19): Carla's board, the fate tiles and the
solo ranks, read from the optional "solo" section of an edition data file.

The rulebook gives the setup, the ranks table and the rules; it does not give the layout of
Carla's board (its clockwise order of action spaces, its cube spaces, where the six fate
tiles lie) nor what each fate tile shows. Those values are reconstructions (provenance
`reconstructed`, docs/reconstructions.md), replaceable by a user's data file like every
other value; this module checks them against every constraint the text gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from village_rules.data.components import ActionSpace, Category
from village_rules.data.reader import Json, Reader


class FateTile(StrEnum):
    """What a fate tile shows once revealed: a quill (one of Carla's members dies, p. 17)
    or nothing."""

    QUILL = "quill"
    BLANK = "blank"


@dataclass(frozen=True, slots=True)
class FateSlot:
    """A fate tile's place on Carla's board: in the set `tile_set` ("top" or "bottom",
    p. 16 step 6), passed when a cube is placed on cube space `space` (0-based)."""

    tile_set: str
    space: int


@dataclass(frozen=True, slots=True)
class SoloData:
    """Everything the solo mode adds to an edition's data."""

    setup_card_players: int
    """The setup card, market and chronicle used (p. 16: as for 2 players)."""
    beside_board: tuple[int, ...]
    """Carla's member numbers placed next to her board at setup (p. 16 step 3: "1"s, "2"s)."""
    on_church: tuple[int, ...]
    """Carla's member numbers placed onto the church at setup (p. 16 step 3: "3"s, "4"s)."""
    space_order: tuple[ActionSpace, ...]
    """The clockwise order of the action spaces shown on Carla's board (p. 17)."""
    track_spaces: int
    """Cube spaces on Carla's board, filled in the direction of the arrow (p. 17)."""
    fate_slots: tuple[FateSlot, ...]
    fate_sets: tuple[tuple[str, tuple[FateTile, ...]], ...]
    """Each set's tiles (p. 15: two sets of 3), by set name, sorted by name."""
    death_places: tuple[tuple[ActionSpace, Category | None], ...]
    """Where a member of Carla's goes who dies by a quill revealed by a cube from each
    action space: a chronicle category, or None for the graveyard (market, p. 19)."""
    ranks: tuple[tuple[int, str], ...]
    """The solo ranks (p. 18): the least prestige for each rank, ascending from 0."""

    def tiles_of(self, tile_set: str) -> tuple[FateTile, ...]:
        """The tiles of the fate-tile set named `tile_set`."""
        for name, tiles in self.fate_sets:
            if name == tile_set:
                return tiles
        raise KeyError(tile_set)

    def death_place(self, space: ActionSpace) -> Category | None:
        """Where Carla's member goes who dies by a quill revealed from `space`."""
        for s, place in self.death_places:
            if s is space:
                return place
        raise KeyError(space)

    def rank(self, prestige: int) -> str:
        """SOLO-30: the rank of a final prestige total."""
        name = self.ranks[0][1]
        for least, title in self.ranks:
            if prestige >= least:
                name = title
        return name


def parse_solo(
    r: Reader, raw: Json, family: tuple[int, ...], church_stages: int, cubes_per_round: Mapping[int, int]
) -> SoloData:
    """The "solo" section, checked against the rules' constraints (`DataError` naming the key).
    `cubes_per_round`: the cubes each setup card seeds in a round, by player count."""
    top = r.obj(raw, "solo")
    r.exact_keys(
        top,
        "solo",
        {
            "setup_card_players",
            "beside_board",
            "on_church",
            "space_order",
            "track_spaces",
            "fate_slots",
            "fate_tiles",
            "death_places",
            "ranks",
        },
    )
    card_players = r.sourced_int(top, "setup_card_players", "solo", 2, 5)
    beside = r.ints(r.sourced(top["beside_board"], "solo.beside_board"), "solo.beside_board", None, 1, 9)
    church = r.ints(r.sourced(top["on_church"], "solo.on_church"), "solo.on_church", None, 1, 9)
    if set(beside) & set(church) or set(beside) | set(church) != set(family):
        raise r.fail(
            "solo.on_church",
            f"every member number {sorted(set(family))} goes either beside Carla's board or onto "
            f"the church (p. 16 step 3), once: got beside {list(beside)}, church {list(church)}",
        )
    on_church_members = sum(1 for n in family if n in church)
    if on_church_members > church_stages:
        raise r.fail(
            "solo.on_church",
            f"{on_church_members} of Carla's members start on the church but only one of hers may stand "
            f"on each of the {church_stages} church stages (p. 18)",
        )
    order = r.list_(
        r.sourced(top["space_order"], "solo.space_order"),
        "solo.space_order",
        lambda x, k: r.enum(ActionSpace, x, k),
    )
    if sorted(order) != sorted(ActionSpace) or len(order) != len(ActionSpace):
        raise r.fail("solo.space_order", "must name each of the seven action spaces once (p. 17)")
    track = r.sourced_int(top, "track_spaces", "solo", 2, 100)
    # p. 17 "(There might be more than 1 cube per space when playing with expansions.)": in
    # the base game a space holds one cube. Carla takes at most one cube per cube of the
    # player's, so at most half a round's cubes (rounded up), and her last cube stays on
    # her board into the next round (p. 18): the track needs that many spaces plus one.
    seeded = cubes_per_round.get(card_players)
    if seeded is None:
        raise r.fail(
            "solo.setup_card_players", f"there is no {card_players}-player setup card (p. 16 step 12)"
        )
    least = -(-seeded // 2) + 1
    if track < least:
        raise r.fail(
            "solo.track_spaces",
            f"{track} cube spaces are too few: Carla may take {-(-seeded // 2)} of the {seeded} cubes "
            f"a round of the {card_players}-player setup card seeds, and her last cube stays, so her "
            f"board needs at least {least} (one cube per space in the base game, p. 17)",
        )

    def slot(x: Json, k: str) -> FateSlot:
        node = r.obj(x, k)
        r.exact_keys(node, k, {"set", "space"})
        return FateSlot(r.str_(node["set"], f"{k}.set"), r.int_(node["space"], f"{k}.space", 0, track - 1))

    slots = r.list_(r.sourced(top["fate_slots"], "solo.fate_slots"), "solo.fate_slots", slot)
    if len({s.space for s in slots}) != len(slots):
        raise r.fail("solo.fate_slots", "two fate tiles on one cube space")
    tiles_raw = r.obj(r.sourced(top["fate_tiles"], "solo.fate_tiles"), "solo.fate_tiles")
    sets: list[tuple[str, tuple[FateTile, ...]]] = []
    for name in sorted(tiles_raw):
        key = f"solo.fate_tiles.{name}"
        tiles = r.list_(tiles_raw[name], key, lambda x, k: r.enum(FateTile, x, k))
        placed = sum(1 for s in slots if s.tile_set == name)
        if placed != len(tiles):
            raise r.fail(
                key, f"{len(tiles)} tile(s) in the set but {placed} space(s) for it on Carla's board"
            )
        sets.append((name, tiles))
    for i, s in enumerate(slots):
        if s.tile_set not in tiles_raw:
            raise r.fail(f"solo.fate_slots[{i}].set", f"no fate tile set {s.tile_set!r} in solo.fate_tiles")
    if not any(FateTile.QUILL in tiles for _, tiles in sets):
        raise r.fail("solo.fate_tiles", "no tile shows a quill, so Carla's members could never die (p. 17)")
    places_raw = r.obj(r.sourced(top["death_places"], "solo.death_places"), "solo.death_places")
    r.exact_keys(places_raw, "solo.death_places", {s.value for s in ActionSpace})
    places: list[tuple[ActionSpace, Category | None]] = []
    for space in ActionSpace:
        key = f"solo.death_places.{space.value}"
        value = places_raw[space.value]
        places.append((space, None if value == "graveyard" else r.enum(Category, value, key)))
    ranks_raw = r.list_(r.sourced(top["ranks"], "solo.ranks"), "solo.ranks", lambda x, k: _rank(r, x, k), 1)
    if ranks_raw[0][0] != 0 or [n for n, _ in ranks_raw] != sorted({n for n, _ in ranks_raw}):
        raise r.fail("solo.ranks", "the ranks start at 0 prestige and ascend strictly (p. 18)")
    return SoloData(
        setup_card_players=card_players,
        beside_board=beside,
        on_church=church,
        space_order=order,
        track_spaces=track,
        fate_slots=slots,
        fate_sets=tuple(sets),
        death_places=tuple(places),
        ranks=ranks_raw,
    )


def _rank(r: Reader, raw: Json, key: str) -> tuple[int, str]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise r.fail(key, "expected [least prestige, rank name]")
    return r.int_(raw[0], f"{key}[0]", 0, 10_000), r.str_(raw[1], f"{key}[1]")
