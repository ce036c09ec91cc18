"""The complete, immutable state of a game of Village.

Every finite component is stored where it is, including the general supply, so the
conservation checkers can count each one. Every family member is an individual piece: the
member with index i of a player has number `data.family_numbers[i]` and one `Location`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from operator import attrgetter

from village_rules.data.components import (
    ActionSpace,
    Category,
    Cube,
    Good,
    InBlackBag,
    InChronicle,
    InGraveyard,
    Location,
    is_alive,
)
from village_rules.data.tally import Tally
from village_rules.data.typed_hash import typed_hash
from village_rules.model.actions import Action
from village_rules.model.carla_board import CARLA, CarlaBoard
from village_rules.model.frozen_build import fast_constructor
from village_rules.model.pending import CHANCE_TYPES, GameOver, Pending
from village_rules.rules.variant import Rules

PLAYER_COLOURS: tuple[str, ...] = ("red", "yellow", "blue", "white", "purple")

CHANCE = -1
"""`current_player` when a chance event is pending (OpenSpiel's convention)."""
TERMINAL = -4
"""`current_player` when the game is over."""


@typed_hash
@dataclass(frozen=True, slots=True)
class Supply:
    """The general supply next to the board: what is left to take."""

    cubes: Tally[Cube]
    coins: int
    grain: int
    goods: Tally[Good]


@typed_hash
@dataclass(frozen=True, slots=True)
class PlayerState:
    """One player's farmyard: members, grain, goods, cubes, coins, prestige, markers, customers."""
    colour: str
    members: tuple[Location, ...]
    grain: int
    coins: int
    cubes: Tally[Cube]
    goods: Tally[Good]
    lifetime: int
    """Spaces the life-time token stands past the quill (0 = the space right of it)."""
    prestige: int
    customers: tuple[int, ...]
    """Served customer tiles, face down next to the farmyard, in the order served."""
    markers: tuple[str, ...]
    """Cities holding one of this player's disc markers, sorted."""


@typed_hash
@dataclass(frozen=True, slots=True, repr=False)
class Turn:
    """A seat's turn in progress: the action (and its after-effects) is being carried out."""

    seat: int
    took_last_cube: bool = False
    """A final action (the end already triggered) emptied the board in this turn: under
    AMB-45 b (END-11) the round mass follows it. Always False outside the final actions."""

    def __repr__(self) -> str:
        # Without the AMB-45 field while it is False, so texts that quote a turn (the
        # stored divergence witnesses) read as they did before the field existed.
        tail = ", took_last_cube=True" if self.took_last_cube else ""
        return f"Turn(seat={self.seat!r}{tail})"


@typed_hash
@dataclass(frozen=True, slots=True, repr=False)
class MarketDay:
    """A market day in progress (p. 8)."""

    trigger: int
    current: int
    passed: tuple[int, ...]
    trigger_sold: bool
    """True once the market-day player has made the one sale that is free of extra cost."""
    held_deaths: int = 0
    """Deaths the market-day player owed before the day began (a plague cube from the
    market space): resolved after the market day, at the end of the turn (AMB-27)."""
    closed: bool = False
    """Selling is over and the customers have moved up; only refills from the pile remain."""
    first_pass_waived: bool = False
    """AMB-06 b: the market-day player passed at their first chance, and that pass did not
    count (they are asked again). Always False under the other readings."""

    def __repr__(self) -> str:
        # Without the AMB-06 b field while it is False, so texts that quote a market day
        # (the stored divergence witnesses) read as they did before the field existed.
        tail = ", first_pass_waived=True" if self.first_pass_waived else ""
        return (
            f"MarketDay(trigger={self.trigger!r}, current={self.current!r}, passed={self.passed!r}, "
            f"trigger_sold={self.trigger_sold!r}, held_deaths={self.held_deaths!r}, "
            f"closed={self.closed!r}{tail})"
        )


@typed_hash
@dataclass(frozen=True, slots=True, repr=False)
class Mass:
    """A mass in progress (p. 11): members bought so far, and whether it is the final one."""

    bought: int
    final: bool
    stopped: tuple[int, ...] = ()
    """AMB-15 b: the seats (sorted) that have stopped buying out of the bag at this mass.
    Always empty under AMB-15 a, where each seat has one chance in seat order."""
    in_final_actions: bool = False
    """AMB-45 b (END-11): the round mass held because a final action took the last cube;
    the final actions go on after it, with no reseeding. False for every other mass."""

    def __repr__(self) -> str:
        # Without the empty AMB-15 b and AMB-45 fields, so texts that quote a mass (the
        # stored divergence witnesses) read as they did before the fields existed.
        tail = f", stopped={self.stopped!r}" if self.stopped else ""
        tail += ", in_final_actions=True" if self.in_final_actions else ""
        return f"Mass(bought={self.bought!r}, final={self.final!r}{tail})"


@typed_hash
@dataclass(frozen=True, slots=True)
class GameState:
    """A position of a game: the board, the farmyards, the supply and the pending step.

    Immutable; `apply` returns a new state. Save and load it with `to_json`/`from_json`."""

    rules: Rules
    round: int
    start_player: int
    next_start_holder: int | None
    """Seat holding the next starting player marker; None while it lies on the council chamber."""
    supply: Supply
    green_bag: Tally[Cube]
    spaces: tuple[Tally[Cube], ...]
    """Cubes on each action space, in `ActionSpace` order."""
    market_available: tuple[int | None, ...]
    market_waiting: tuple[int | None, ...]
    customer_pile: tuple[int, ...]
    """The face-down pile, as a sorted set: its order is unknown until a tile is drawn."""
    bag_monks: int
    monks_aside: int
    """Monks drawn during the current mass, returned to the bag when the drawing ends."""
    players: tuple[PlayerState, ...]
    pending: Pending
    turn: Turn | None = None
    market_day: MarketDay | None = None
    mass: Mass | None = None
    deaths_owed: tuple[int, ...] = ()
    end_triggered_by: int | None = None
    final_turns: tuple[int, ...] | None = None
    """Seats still to take their final action, once the end is settled; None before."""
    carla: CarlaBoard | None = None
    """Solo mode (2023 pp. 15-18): Carla's board; None in a game of 2 or more players.
    Carla is seat `CARLA` (1) of a solo game and never the seat to decide."""
    legal_cache: tuple[Action, ...] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False
    )
    """The legal actions, filled by the engine when it first computes them (a cache: not
    part of the state's value, never compared, hashed or serialized)."""

    # --- who acts ----------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        """How many players the game has."""
        return len(self.players)

    @property
    def is_solo(self) -> bool:
        """A solo game against Carla (SOLO-01)."""
        return self.carla is not None

    def is_carla(self, seat: int) -> bool:
        """Whether `seat` is Carla's (only in a solo game)."""
        return self.carla is not None and seat == CARLA

    @property
    def is_terminal(self) -> bool:
        """True when the game is over."""
        return isinstance(self.pending, GameOver)

    @property
    def is_chance(self) -> bool:
        """True when the next step is a chance event (not a player's decision)."""
        return isinstance(self.pending, CHANCE_TYPES)

    def current_player(self) -> int:
        """The seat to decide, `CHANCE`, or `TERMINAL`."""
        if isinstance(self.pending, GameOver):
            return TERMINAL
        if isinstance(self.pending, CHANCE_TYPES):
            return CHANCE
        return self.pending.seat

    # --- look-ups ----------------------------------------------------------------------

    def space(self, space: ActionSpace) -> Tally[Cube]:
        """The cubes on an action space."""
        return self.spaces[_SPACE_INDEX[space]]

    def cubes_on_board(self) -> int:
        """How many cubes lie on all the action spaces together."""
        return sum(t.total() for t in self.spaces)

    def board_is_empty(self) -> bool:
        """`cubes_on_board() == 0`, without the sum while no space holds anything (a tally
        built by hand may hold zero or negative counts, so then the sum decides)."""
        for cubes in self.spaces:
            if cubes.items:
                return self.cubes_on_board() == 0
        return True

    def number_of(self, index: int) -> int:
        """The number printed on the member with this index."""
        return self.rules.data.family_numbers[index]

    def chronicle_count(self, category: Category) -> int:
        """How many members all players have in a chronicle category."""
        target = InChronicle(category)
        return sum(1 for p in self.players for loc in p.members if loc == target)

    def chronicle_free(self, category: Category) -> int:
        """How many spaces of a chronicle category are still free."""
        return self.rules.data.chronicle_open(category, self.num_players) - self.chronicle_count(category)

    def chronicle_free_total(self) -> int:
        """How many chronicle spaces are still free in all."""
        return sum(self.chronicle_free(c) for c in Category)

    def graveyard_count(self) -> int:
        """How many members lie in the graveyard."""
        return sum(1 for p in self.players for loc in p.members if isinstance(loc, InGraveyard))

    def graveyard_free(self) -> int:
        """How many graves are still free."""
        return self.rules.data.graveyard_open(self.num_players) - self.graveyard_count()

    def bag_members(self) -> list[tuple[int, int]]:
        """(seat, member index) of every family member in the black bag."""
        return [
            (seat, i)
            for seat, p in enumerate(self.players)
            for i, loc in enumerate(p.members)
            if isinstance(loc, InBlackBag)
        ]

    def living_members(self, seat: int) -> int:
        """How many of `seat`'s members are alive (on the board, farmyard or in the bag)."""
        return sum(1 for loc in self.players[seat].members if is_alive(loc))

    def seats_from(self, first: int) -> list[int]:
        """All seats clockwise starting at `first`."""
        n = self.num_players
        return [(first + k) % n for k in range(n)]

    # --- functional updates ------------------------------------------------------------

    def with_player(self, seat: int, player: PlayerState) -> GameState:
        """The state with `seat`'s farmyard replaced."""
        players = self.players
        return _evolve(self, _PLAYERS_AT, (*players[:seat], player, *players[seat + 1 :]))

    def with_space(self, space: ActionSpace, cubes: Tally[Cube]) -> GameState:
        """The state with the cubes of an action space replaced."""
        spaces = self.spaces
        i = _SPACE_INDEX[space]
        return _evolve(self, _SPACES_AT, (*spaces[:i], cubes, *spaces[i + 1 :]))

    def with_pending(self, pending: Pending) -> GameState:
        """The same state waiting for `pending` (what `replace(state, pending=…)` gives)."""
        return _evolve(self, _PENDING_AT, pending)

    # --- copying and pickling ------------------------------------------------------------

    def __copy__(self) -> GameState:
        return self  # immutable: a copy may be the state itself

    def __deepcopy__(self, memo: dict[int, object]) -> GameState:
        return self

    def __reduce__(self) -> tuple[Callable[..., GameState], tuple[object, ...]]:
        # The constructor's fields only (not the legal-actions cache); the rules pickle as
        # edition name + fingerprint (EditionData.__reduce__).
        return (GameState, _init_values(self))


_SPACE_INDEX: dict[ActionSpace, int] = {s: i for i, s in enumerate(ActionSpace)}

_INIT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(GameState) if f.init)
_init_values: Callable[[GameState], tuple[object, ...]] = attrgetter(*_INIT_FIELDS)
_PLAYERS_AT = _INIT_FIELDS.index("players")
_SPACES_AT = _INIT_FIELDS.index("spaces")
_PENDING_AT = _INIT_FIELDS.index("pending")
_new_state: Callable[..., GameState] = fast_constructor(GameState)


def _evolve(state: GameState, at: int, value: object) -> GameState:
    """`replace` of one field, by position: the constructor's fields read in one C call."""
    values = list(_init_values(state))
    values[at] = value
    return _new_state(*values)
