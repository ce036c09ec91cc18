"""Typed component data of one edition, as loaded from its data file (see docs/data-format.md).

An `EditionData` is immutable and compares by the fingerprint of the file's content, so two
loads of the same data are equal and a state can name its data cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum

from village_rules.data.components import (
    ActionSpace,
    Building,
    Category,
    Compensation,
    Cube,
    Good,
    TieBreaker,
)
from village_rules.data.provenance import Provenance
from village_rules.data.solo_data import SoloData
from village_rules.data.tally import Tally
from village_rules.errors import DataError


@dataclass(frozen=True, slots=True)
class Cost:
    """What an action or a step costs. Time moves the life-time token."""

    time: int = 0
    grain: int = 0
    coins: int = 0
    cubes: Tally[Cube] = field(default_factory=Tally)
    goods: Tally[Good] = field(default_factory=Tally)

    def plus(self, other: Cost) -> Cost:
        """The sum of two costs."""
        return Cost(
            self.time + other.time,
            self.grain + other.grain,
            self.coins + other.coins,
            self.cubes.plus(other.cubes),
            self.goods.plus(other.goods),
        )

    def __str__(self) -> str:
        parts = [f"{self.time} time"] if self.time else []
        parts += [f"{self.grain} grain"] if self.grain else []
        parts += [f"{self.coins} coin{'s' if self.coins != 1 else ''}"] if self.coins else []
        parts += [f"{n} {k.value}" for k, n in self.cubes.items]
        parts += [f"{n} {k.value}" for k, n in self.goods.items]
        return " + ".join(parts) or "nothing"


@dataclass(frozen=True, slots=True)
class SetupCard:
    """Cubes added to the green bag per colour and cubes drawn onto each action space."""

    cubes_added: Tally[Cube]
    cubes_per_space: tuple[tuple[ActionSpace, int], ...]

    @property
    def cubes_per_round(self) -> int:
        """How many cubes the card seeds onto the action spaces in one round."""
        return sum(n for _, n in self.cubes_per_space)


@dataclass(frozen=True, slots=True)
class CraftBuilding:
    """A crafts building: its training and production time, purchase cost and goods."""
    building: Building
    training_time: int
    production_time: int
    purchase: Cost
    goods: tuple[Good, ...]


class Row(StrEnum):
    """A row of the market: the available customers or the waiting ones."""
    AVAILABLE = "available"
    WAITING = "waiting"


@dataclass(frozen=True, slots=True)
class MarketSpace:
    """A space of the market, with the smallest player count that uses it and its label."""
    row: Row
    position: int
    min_players: int
    label: str


class RewardKind(StrEnum):
    """What a city's travel reward gives: prestige, cubes of choice or coins."""
    PRESTIGE = "prestige"
    CUBES_OF_CHOICE = "cubes_of_choice"
    COINS = "coins"


@dataclass(frozen=True, slots=True)
class City:
    """A city of the travel map and the reward a traveller takes there."""
    id: str
    name: str
    reward: RewardKind
    amount: int


@dataclass(frozen=True, slots=True)
class TravelPath:
    """An undirected path of the travel map and what walking it costs."""

    a: str
    b: str
    cost: Cost

    def other_end(self, node: str) -> str:
        """The other end of this road from `node`."""
        return self.b if node == self.a else self.a


@dataclass(frozen=True, slots=True)
class CustomerTile:
    """A customer tile: the goods and grain it asks for and its printed points."""
    id: int
    goods: Tally[Good]
    grain: int
    points: int

    def demand(self) -> Cost:
        """What serving this customer costs (its goods and grain)."""
        return Cost(grain=self.grain, goods=self.goods)


@dataclass(frozen=True, eq=False, slots=True)
class EditionData:
    """Every component value of one edition. Equality and hash use `fingerprint`."""

    edition: str
    name: str
    source: str
    fingerprint: str
    canonical_json: str
    """The file's content as canonical JSON (sorted keys): embedded in saved custom games."""
    min_players: int
    max_players: int
    family_numbers: tuple[int, ...]
    first_generation_number: int
    starting_coins: int
    travel_markers: int
    supply_coins: int
    supply_grain: int
    goods_each: int
    influence_cubes_each: int
    plague_cubes: int
    monks: int
    grain_capacity: int
    lifetime_track_length: int
    plague_time: int
    well_cubes: int
    setup_cards: tuple[tuple[int, SetupCard], ...]
    harvest_base: int
    harvest_horse_plow: int
    harvest_ox_plow: int
    crafts: tuple[CraftBuilding, ...]
    mill_cost: Cost
    mill_coins: int
    council_stages: int
    council_place: tuple[Cost, ...]
    council_advance: tuple[Cost, ...]
    council_advance_time: tuple[int, ...]
    privilege_cubes: int
    privilege_goods: int
    privilege_coin_price: int
    privilege_prestige: int
    church_stages: int
    church_enter: tuple[Cost, ...]
    church_step_grain: tuple[int, ...]
    mass_pieces: int
    mass_coin_price: int
    majority_prestige: int
    market_spaces: tuple[MarketSpace, ...]
    later_sale: Cost
    village: str
    cities: tuple[City, ...]
    paths: tuple[TravelPath, ...]
    chronicle_spaces: tuple[tuple[Category, tuple[int, ...]], ...]
    marriage_spaces: int
    graveyard: tuple[int, ...]
    customers: tuple[CustomerTile, ...]
    score_travel: tuple[int, ...]
    score_church: tuple[int, ...]
    score_council: tuple[int, ...]
    score_chronicle: tuple[int, ...]
    score_coin: int
    tie_breakers: tuple[TieBreaker, ...]
    starting_compensation: tuple[Compensation, ...]
    solo: SoloData | None
    """The solo mode against Carla (2023 pp. 15-19), if the edition has one."""
    provenance: tuple[tuple[str, Provenance], ...]
    reduced: str | None = None
    """Set for a reduced configuration (`"reduced"` in the data file: what it reduces). A
    reduced file still plays by every rule of its edition, with fewer pieces, so that every
    state of a game can be visited (`village_rules.explore`); it is no real game."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EditionData) and other.fingerprint == self.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    # --- copying and pickling: by name and fingerprint ---------------------------------

    def __post_init__(self) -> None:
        # Equality, hashing and pickling go by the fingerprint, so two data with one
        # fingerprint and different values would be silently taken for each other (an
        # `action_universe` cached for the first, a pickled state resolved to the first).
        # One content read from two paths is one data: the source may differ.
        known = _LOADED.setdefault(self.fingerprint, self)
        if known is not self:
            changed = [
                f.name
                for f in fields(self)
                if f.name != "source" and getattr(known, f.name) != getattr(self, f.name)
            ]
            if changed:
                raise DataError(
                    self.source,
                    changed[0],
                    f"differs ({', '.join(changed)}) from the edition data already loaded with "
                    f"fingerprint {self.fingerprint[:12]}...: a changed copy needs a fingerprint of its "
                    "own (dataclasses.replace(data, ..., fingerprint=...))",
                )

    def __copy__(self) -> EditionData:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> EditionData:
        return self

    # Pickling is registered by the loader (`copyreg`, `village_rules.data.loader`): a pickled
    # state carries the edition's name and fingerprint, not its 30 KB of data, and is resolved
    # on load against the data loaded in that process or the shipped data.

    # --- look-ups -----------------------------------------------------------------------

    @property
    def player_counts(self) -> range:
        """The multi-player counts (the setup cards'); see `supports_players` for solo."""
        return range(self.min_players, self.max_players + 1)

    def supports_players(self, players: int) -> bool:
        """SET-01 / SOLO-01: a multi-player count, or 1 where the edition has a solo mode."""
        return players in self.player_counts or (players == 1 and self.solo is not None)

    @property
    def playable_counts(self) -> tuple[int, ...]:
        """Every player count a game can be set up for: 1 (solo) where supported, then the
        multi-player counts."""
        return ((1,) if self.solo is not None else ()) + tuple(self.player_counts)

    def seats(self, players: int) -> int:
        """Seats in the state: a solo game has two, the player's (0) and Carla's (1)."""
        return 2 if players == 1 else players

    def setup_card(self, players: int) -> SetupCard:
        """The setup card for this player count; raises KeyError if there is none."""
        for n, card in self.setup_cards:
            if n == players:
                return card
        raise KeyError(f"{self.edition} has no setup card for {players} players")

    def craft(self, building: Building) -> CraftBuilding:
        """The data of a crafts building; raises KeyError for a building not in the edition."""
        for craft in self.crafts:
            if craft.building is building:
                return craft
        raise KeyError(building)

    def city(self, city_id: str) -> City:
        """The city with this id; raises KeyError for an unknown id."""
        for city in self.cities:
            if city.id == city_id:
                return city
        raise KeyError(city_id)

    def customer(self, tile_id: int) -> CustomerTile:
        """The customer tile with this id; raises KeyError for an unknown id."""
        for tile in self.customers:
            if tile.id == tile_id:
                return tile
        raise KeyError(tile_id)

    def chronicle_open(self, category: Category, players: int) -> int:
        """Open (unblocked) chronicle spaces of a category at a player count."""
        for cat, labels in self.chronicle_spaces:
            if cat is category:
                return sum(1 for m in labels if m <= players)
        return 0

    def chronicle_blocked(self, category: Category, players: int) -> int:
        """How many spaces of a chronicle category are blocked at this player count."""
        for cat, labels in self.chronicle_spaces:
            if cat is category:
                return sum(1 for m in labels if m > players)
        return 0

    def chronicle_open_total(self, players: int) -> int:
        """How many chronicle spaces are open in all at this player count."""
        return sum(self.chronicle_open(cat, players) for cat, _ in self.chronicle_spaces)

    def graveyard_open(self, players: int) -> int:
        """How many graves are open at this player count."""
        return sum(1 for m in self.graveyard if m <= players)

    def blocked_spaces(self, players: int) -> int:
        """Chronicle spaces and graves covered by unused members at setup (p. 3 step 7)."""
        chronicle = sum(1 for _, labels in self.chronicle_spaces for m in labels if m > players)
        graves = sum(1 for m in self.graveyard if m > players)
        return chronicle + graves + self.marriage_spaces

    def market_layout(self, players: int) -> tuple[MarketSpace, ...]:
        """The market spaces used at a player count, available row first, in order."""
        used = [s for s in self.market_spaces if s.min_players <= players]
        return tuple(sorted(used, key=lambda s: (s.row is not Row.AVAILABLE, s.position)))

    def provenance_of(self, key: str) -> Provenance:
        """Where a value of the data file comes from; raises KeyError for a key without provenance."""
        for k, p in self.provenance:
            if k == key:
                return p
        raise KeyError(key)


_LOADED: dict[str, EditionData] = {}
"""Every edition data loaded in this process, by fingerprint (the first of equal ones)."""


def loaded_edition(fingerprint: str) -> EditionData | None:
    """The edition data with this fingerprint built in this process (the first of equal ones)."""
    return _LOADED.get(fingerprint)
