"""`NativeEngine`: the native core behind the methods of the conformance runner's engine
protocol (`new_game`, `load`, `current_player`, `legal_actions`, `chance_outcomes`,
`apply`, `state_json`, `scores`, `winners`), so that it can be compared with the reference step by step.

The edition data is the Python loader's (`village_rules.data`): a shipped edition or a
user's own data file, handed to C++ once per data as `Tables` (the reference's action
universe, the well's cubes, the family numbers, the setup cards). The C++ side holds no
component value of its own. A game is set up by the reference (`engine.setup`) and loaded
into the core from the reference's canonical JSON; the core writes that JSON back byte for
byte.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from village_rules.data.components import ActionSpace, Category, Cube, Good, TieBreaker
from village_rules.data.edition import Cost, EditionData, Row
from village_rules.data.loader import builtin_edition, load_edition
from village_rules.drivers.serialization import from_json, state_to_dict, to_json
from village_rules.engine.setup import game_from_deal, new_game
from village_rules.model.actions import action_from_id, action_universe, format_action
from village_rules.model.state import GameState
from village_rules.native import _core
from village_rules.rules.variant import Variant

NotSupportedError = _core.NotSupportedError
"""Raised for a step or configuration the native core does not implement (a RuntimeError):
the caller falls back to the reference; the core never answers for what it does not know."""

IllegalIdError = _core.IllegalIdError
"""Raised for an action id that is not legal (or not an outcome) at the current state."""

SUPPORTED = {
    "editions": "both shipped editions and a user's own data file",
    "players": "1 (solo, against Carla: the 2023 edition's solo mode) and 2-5",
    "readings": "every reading, the solo readings (AMB-36..39, AMB-41..43) included",
    "legal": "every decision step, the player's choice of Carla's cube (ChooseCarlaCube) included",
    "chance": "SeedDraw, RefillDraw, MassDraw, FateReveal (solo)",
    "apply": "every step of a game of 2-5 players: the seeding, the turns at every space, the well and the "
    "free final actions, their payments and privileges, the market day, the deaths, the masses (the round's, "
    "AMB-33 b/c's before the final actions, AMB-45 b's in them, the final one),"
    " the end and the final actions; in solo Carla's steps (her take, the fate tiles, her reactions,"
    " her deaths, her market turns, her mass, her cubes back at a new round) and the solo end",
    "scores": "the final scoring's totals and the winners after the tie-breaks (AMB-29: a full tie shared);"
    " solo: Carla scores 0 and the player wins (SOLO-03, SOLO-30)",
    "observation": "the adapters' observation tensor (layout version 1) of every state of play, from"
    " every seat, once adapters.native_observation has handed the core its orders and layout",
}
"""What the native core implements, in words (docs/native.md has the same list)."""

READINGS_USED = (
    "AMB-01",
    "AMB-02",
    "AMB-03",
    "AMB-06",
    "AMB-08",
    "AMB-09",
    "AMB-10",
    "AMB-12",
    "AMB-15",
    "AMB-16",
    "AMB-17",
    "AMB-18",
    "AMB-19",
    "AMB-23",
    "AMB-24",
    "AMB-26",
    "AMB-33",
    "AMB-34",
    "AMB-36",
    "AMB-37",
    "AMB-38",
    "AMB-39",
    "AMB-41",
    "AMB-42",
    "AMB-43",
    "AMB-44",
    "AMB-45",
    "AMB-46",
)
"""The readings the native core consults (each resolved by the reference: the choice or the
edition's default); every other reading is fixed (no second reading) or a data value."""


class GameSetupLike(Protocol):
    """What `new_game` reads of a set-up (the conformance runner's `GameSetup` has it)."""

    @property
    def players(self) -> int: ...  # noqa: D102
    @property
    def edition(self) -> str | None: ...  # noqa: D102
    @property
    def data_file(self) -> str | None: ...  # noqa: D102
    @property
    def seed(self) -> int | None: ...  # noqa: D102
    @property
    def deal(self) -> tuple[int, ...] | None: ...  # noqa: D102
    @property
    def readings(self) -> tuple[tuple[str, str], ...]: ...  # noqa: D102
    @property
    def starting_compensation(self) -> bool: ...  # noqa: D102


@lru_cache(maxsize=16)
def tables_for(data: EditionData) -> _core.Tables:
    """The native tables of one edition data, built once from the loader's values."""
    cards: dict[int, list[int]] = {}
    added: dict[int, list[int]] = {}
    for players in data.player_counts:
        if players < 2:
            continue  # solo: played on the 2-player card (its solo data below)
        card = data.setup_card(players)
        per_space = dict(card.cubes_per_space)
        cards[players] = [per_space.get(space, 0) for space in ActionSpace]
        added[players] = [card.cubes_added[c] for c in Cube]
    tables = _core.make_tables(
        [format_action(a) for a in action_universe(data)],
        data.well_cubes,
        data.max_players,
        list(data.family_numbers),
        {
            "grain_capacity": data.grain_capacity,
            "harvest_base": data.harvest_base,
            "harvest_horse_plow": data.harvest_horse_plow,
            "harvest_ox_plow": data.harvest_ox_plow,
            "mass_coin_price": data.mass_coin_price,
            "mass_pieces": data.mass_pieces,
            "majority_prestige": data.majority_prestige,
            "church_stages": data.church_stages,
            "lifetime_track_length": data.lifetime_track_length,
            "plague_time": data.plague_time,
            "mill_coins": data.mill_coins,
            "council_stages": data.council_stages,
            "privilege_coin_price": data.privilege_coin_price,
            "privilege_prestige": data.privilege_prestige,
            "privilege_cubes": data.privilege_cubes,
            "privilege_goods": data.privilege_goods,
            "travel_markers": data.travel_markers,
            # what only the state invariants read (cpp/checks.cpp)
            "supply_coins": data.supply_coins,
            "supply_grain": data.supply_grain,
            "goods_each": data.goods_each,
            "influence_cubes_each": data.influence_cubes_each,
            "plague_cubes": data.plague_cubes,
            "monks": data.monks,
            "min_players": data.min_players,
        },
        list(data.church_step_grain),
        cards,
        added,
        [
            (
                c.building.value,
                c.training_time,
                c.production_time,
                _cost(c.purchase),
                [g.value for g in c.goods],
            )
            for c in data.crafts
        ],
        _cost(data.mill_cost),
        [_cost(c) for c in data.church_enter],
        {n: [data.chronicle_open(c, n) for c in Category] for n in data.player_counts if n >= 2},
        {n: data.graveyard_open(n) for n in data.player_counts if n >= 2},
        [_cost(c) for c in data.council_place],
        [_cost(c) for c in data.council_advance],
        list(data.council_advance_time),
        data.village,
        [(c.id, c.reward.value, c.amount) for c in data.cities],
        [(p.a, p.b, _cost(p.cost)) for p in data.paths],
        {c.id: _cost(c.demand()) for c in data.customers},
        _cost(data.later_sale),
        {
            "travel": list(data.score_travel),
            "church": list(data.score_church),
            "council": list(data.score_council),
            "chronicle": list(data.score_chronicle),
            "coin": [data.score_coin],
            "tie_breakers": [list(TieBreaker).index(t) for t in data.tie_breakers],
        },
        {c.id: c.points for c in data.customers},
        {n: _market_rows(data, n) for n in data.player_counts if n >= 2},
    )
    solo = data.solo
    if solo is not None:  # the solo mode's data (2023 pp. 15-19): Carla's board and fate tiles
        _core.set_solo_tables(
            tables,
            [space.value for space in solo.space_order],
            solo.track_spaces,
            [(slot.tile_set, slot.space) for slot in solo.fate_slots],
            [(name, [tile.value for tile in tiles]) for name, tiles in solo.fate_sets],
            {
                space.value: "graveyard" if place is None else place.value
                for space, place in solo.death_places
            },
        )
    return tables


def _market_rows(data: EditionData, players: int) -> tuple[int, int]:
    """The market's available and waiting spaces at a player count (its layout's rows)."""
    layout = data.market_layout(players)
    available = sum(1 for space in layout if space.row is Row.AVAILABLE)
    return available, len(layout) - available


def _cost(cost: Cost) -> tuple[int, int, int, list[int], list[int]]:
    """A cost as the native tables take it: time, grain, coins, cubes by Cube, goods by Good."""
    return (cost.time, cost.grain, cost.coins, [cost.cubes[c] for c in Cube], [cost.goods[g] for g in Good])


class NativeEngine:
    """One current game in the native core, with the engine protocol's methods."""

    def __init__(self) -> None:
        self._game: _core.Game | None = None
        self._data: EditionData | None = None
        self._swap = False

    def plant_swapped_legal_order(self, on: bool = True) -> None:
        """A test hook: the native core answers the first two legal ids swapped (in C++,
        for this engine's games), so the tests can show the tie catches and names it."""
        self._swap = on
        if self._game is not None:
            self._game.set_debug_swap(on)

    @property
    def game(self) -> _core.Game:
        """The native game; `NotSupportedError` before any game is loaded."""
        if self._game is None:
            raise NotSupportedError("no game: call new_game or load first")
        return self._game

    # --- setting up ------------------------------------------------------------------------

    def new_game(self, setup: GameSetupLike) -> None:
        """Set up a game as the reference does (its seed or deal), then load it natively."""
        if (setup.edition is None) == (setup.data_file is None):
            raise ValueError("a game names exactly one of an edition and a data file")
        data = (
            builtin_edition(setup.edition)
            if setup.edition is not None
            else load_edition(Path(str(setup.data_file)))
        )
        variant = Variant(setup.starting_compensation, setup.readings)
        if (setup.seed is None) == (setup.deal is None):
            raise ValueError("a game gives exactly one of a seed and a set-up deal")
        if setup.seed is not None:
            state = new_game(data, setup.players, setup.seed, variant)
        else:
            dealt = [action_from_id(data, i) for i in setup.deal or ()]
            state = game_from_deal(data, setup.players, dealt, variant)
        self.load_state(state)

    def new_game_from(
        self,
        *,
        edition: str,
        players: int,
        seed: int,
        readings: Sequence[tuple[str, str]] = (),
        starting_compensation: bool = True,
    ) -> None:
        """`new_game` with the set-up given as keywords."""
        variant = Variant(starting_compensation, tuple(readings))
        self.load_state(new_game(edition, players, seed, variant))

    def load(self, state_json: str) -> None:
        """Make the state written as `state_json` (the reference's `to_json`) current; the
        reference's decoder checks it first."""
        self.load_state(from_json(state_json))

    def load_state(self, state: GameState) -> None:
        """Make a reference state current (its canonical JSON handed to the core)."""
        game = native_game(state)
        game.set_debug_swap(self._swap)
        self._game, self._data = game, state.rules.data

    # --- the engine protocol ----------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, CHANCE (-1) or TERMINAL (-4)."""
        return self.game.current_player()

    @property
    def is_chance(self) -> bool:
        """Whether a chance event is pending."""
        return self.game.is_chance()

    @property
    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.game.is_terminal()

    def legal_actions(self) -> list[int]:
        """The legal action ids in the reference's order; empty at chance and at the end."""
        return self.game.legal()

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        """(id, exact probability) of the pending chance event, in the reference's order."""
        return [(i, Fraction(n, d)) for i, n, d in self.game.chance()]

    def apply(self, action: int) -> None:
        """Apply an action or outcome id; `NotSupportedError` (state unchanged) for a step the
        core does not implement, `IllegalIdError` for an id not allowed now."""
        self.game.apply(action)

    def state_json(self) -> str:
        """The current state as the reference's canonical JSON (`to_json`)."""
        return self.game.to_json()

    def scores(self) -> list[int] | None:
        """Every seat's final total at the end (the reference's `score_breakdown` totals);
        None before."""
        game = self.game
        return game.scores() if game.is_terminal() else None

    def winners(self) -> list[int] | None:
        """The winning seats at the end, after the tie-breaks (more than one only after a
        full tie, AMB-29); None before."""
        game = self.game
        return game.winners() if game.is_terminal() else None


def native_game(state: GameState) -> _core.Game:
    """A native game holding the reference state `state`: its canonical JSON, its rules text
    and the readings the core reads, handed to the core (which refuses a state it cannot
    hold). The one way every native tool loads a reference state."""
    raw = state_to_dict(state)
    rules_json = json.dumps(raw["rules"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    game = _core.Game(tables_for(state.rules.data))
    game.load(raw, rules_json, {amb: state.rules.reading(amb) for amb in READINGS_USED})
    return game


def reference_json(state: GameState) -> str:
    """The reference's canonical JSON of a state (what `state_json` is compared with)."""
    return to_json(state)
