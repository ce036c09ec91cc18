"""The named pieces of the game: cube colours, goods, action spaces, buildings, chronicle
categories and the places a family member can be.

Names follow the 2023 rulebook (p. 2 components, p. 4 influence cubes, p. 12 chronicle).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from village_rules.data.typed_hash import typed_hash


class Cube(StrEnum):
    """A cube in the supply, the green bag, on an action space or a farmyard (p. 4)."""

    BROWN = "brown"
    PINK = "pink"
    ORANGE = "orange"
    GREEN = "green"
    PLAGUE = "plague"

    @property
    def is_influence(self) -> bool:
        """True for the four influence colours, False for a plague cube."""
        return self is not Cube.PLAGUE


INFLUENCE: tuple[Cube, ...] = (Cube.BROWN, Cube.PINK, Cube.ORANGE, Cube.GREEN)


class Good(StrEnum):
    """Goods tiles (p. 2): produced in the craft buildings, demanded by customers."""

    SCROLL = "scroll"
    HORSE = "horse"
    PLOW = "plow"
    OX = "ox"
    WAGON = "wagon"


class ActionSpace(StrEnum):
    """The seven action spaces that are seeded with cubes (p. 4); the well is not one of them."""

    GRAIN_HARVEST = "grain_harvest"
    FAMILY = "family"
    CRAFTS = "crafts"
    MARKET = "market"
    TRAVEL = "travel"
    COUNCIL_CHAMBER = "council_chamber"
    CHURCH = "church"


class Building(StrEnum):
    """Craft buildings where a member can be trained (p. 7). The mill takes no members."""

    WAINWRIGHT = "wainwright"
    STABLES = "stables"
    OFFICE = "office"
    SMITHY = "smithy"


class Category(StrEnum):
    """Chronicle categories: the workplace of a member at the time of death (p. 12)."""

    FARMYARD = "farmyard"
    CRAFTS = "crafts"
    TRAVEL = "travel"
    COUNCIL_CHAMBER = "council_chamber"
    CHURCH = "church"


class Compensation(StrEnum):
    """Recommended starting compensations of the 2023 edition (p. 3, step 14)."""

    START_PLAYER = "start_player"
    GRAIN = "grain"
    RANDOM_CUBE = "random_cube"
    CHOSEN_CUBE = "chosen_cube"
    COIN = "coin"


class TieBreaker(StrEnum):
    """Final-scoring tie-breakers (2023 p. 14; 2011 "Final Scoring")."""

    MOST_GRAIN = "most_grain"
    MOST_CUSTOMERS = "most_customers"
    MOST_LIVING_MEMBERS = "most_living_members"


# --- where a family member is -------------------------------------------------------------


@typed_hash
@dataclass(frozen=True, slots=True)
class Unborn:
    """In the general supply, not yet born (p. 3 step 3)."""


@typed_hash
@dataclass(frozen=True, slots=True)
class Farmyard:
    """On its owner's farmyard."""


@typed_hash
@dataclass(frozen=True, slots=True)
class AtCraft:
    """Trained below a craft building (p. 7)."""

    building: Building


@typed_hash
@dataclass(frozen=True, slots=True)
class OnCouncil:
    """On a stage (1-based) of the council chamber track (p. 9)."""

    stage: int


@typed_hash
@dataclass(frozen=True, slots=True)
class OnChurch:
    """On a stage (1-based) of the church track (p. 11)."""

    stage: int


@typed_hash
@dataclass(frozen=True, slots=True)
class Travelling:
    """On a city of the travel map (p. 10)."""

    city: str


@typed_hash
@dataclass(frozen=True, slots=True)
class ChurchReserve:
    """Solo mode (2023 p. 16 step 3): one of Carla's "3"s and "4"s placed onto the church
    at setup, beside the church track; her church reaction puts one into the black bag."""


@typed_hash
@dataclass(frozen=True, slots=True)
class InBlackBag:
    """In the black bag, waiting to be drawn at a mass (p. 10)."""


@typed_hash
@dataclass(frozen=True, slots=True)
class InChronicle:
    """Dead, immortalised in the village chronicle under a category (p. 12)."""

    category: Category


@typed_hash
@dataclass(frozen=True, slots=True)
class InGraveyard:
    """Dead, in the graveyard (2011: anonymous graves)."""


@typed_hash
@dataclass(frozen=True, slots=True)
class Removed:
    """Dead during the final actions with no space left: removed from the game (p. 13)."""


Location = (
    Unborn
    | Farmyard
    | AtCraft
    | OnCouncil
    | OnChurch
    | Travelling
    | ChurchReserve
    | InBlackBag
    | InChronicle
    | InGraveyard
    | Removed
)

UNBORN = Unborn()
FARMYARD = Farmyard()
BLACK_BAG = InBlackBag()
CHURCH_RESERVE = ChurchReserve()
GRAVEYARD = InGraveyard()
REMOVED = Removed()


def is_alive(location: Location) -> bool:
    """Born and not dead: on the farmyard, on the board, in the black bag (or, solo, one of
    Carla's members beside the church track)."""
    return not isinstance(location, Unborn | InChronicle | InGraveyard | Removed)


def is_visible(location: Location) -> bool:
    """Can die: on the farmyard or the game board, not in the bag or the supply (p. 12)."""
    return isinstance(location, Farmyard | AtCraft | OnCouncil | OnChurch | Travelling)


def is_on_board(location: Location) -> bool:
    """Employed on the game board (the family action can call these home, p. 6)."""
    return isinstance(location, AtCraft | OnCouncil | OnChurch | Travelling)


def workplace(location: Location) -> Category:
    """The chronicle category of a visible member's workplace (p. 12)."""
    match location:
        case Farmyard():
            return Category.FARMYARD
        case AtCraft():
            return Category.CRAFTS
        case OnCouncil():
            return Category.COUNCIL_CHAMBER
        case OnChurch():
            return Category.CHURCH
        case Travelling():
            return Category.TRAVEL
    raise ValueError(f"a member at {format_location(location)} has no workplace")


def format_location(location: Location) -> str:
    """Stable text form, used in JSON, logs and the action notation."""
    match location:
        case Unborn():
            return "unborn"
        case Farmyard():
            return "farmyard"
        case AtCraft(building):
            return f"craft:{building.value}"
        case OnCouncil(stage):
            return f"council:{stage}"
        case OnChurch(stage):
            return f"church:{stage}"
        case Travelling(city):
            return f"travel:{city}"
        case ChurchReserve():
            return "church-reserve"
        case InBlackBag():
            return "black-bag"
        case InChronicle(category):
            return f"chronicle:{category.value}"
        case InGraveyard():
            return "graveyard"
        case Removed():
            return "removed"
    raise AssertionError(location)


_SIMPLE: dict[str, Location] = {
    "unborn": UNBORN,
    "farmyard": FARMYARD,
    "black-bag": BLACK_BAG,
    "church-reserve": CHURCH_RESERVE,
    "graveyard": GRAVEYARD,
    "removed": REMOVED,
}


def parse_location(text: str) -> Location:
    """Inverse of `format_location`; raises ValueError on anything else."""
    if text in _SIMPLE:
        return _SIMPLE[text]
    kind, sep, detail = text.partition(":")
    if not sep or not detail:
        raise ValueError(f"not a location: {text!r}")
    if kind == "craft":
        return AtCraft(Building(detail))
    if kind in ("council", "church"):
        if not detail.isdigit():
            raise ValueError(f"not a stage number in location {text!r}")
        stage = int(detail)
        return OnCouncil(stage) if kind == "council" else OnChurch(stage)
    if kind == "travel":
        return Travelling(detail)
    if kind == "chronicle":
        return InChronicle(Category(detail))
    raise ValueError(f"not a location: {text!r}")
