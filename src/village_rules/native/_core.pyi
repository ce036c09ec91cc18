"""Type stub of the compiled native core (cpp/core.cpp, cpp/solo.cpp); use it through village_rules.native."""

from collections.abc import Callable, Mapping
from typing import Any

class NotSupportedError(RuntimeError):
    """A step or configuration the native core does not implement yet."""

class IllegalIdError(ValueError):
    """An action id that is not legal (or not an outcome) at the current state."""

class Tables:
    """Per edition data: the action ids and the numbers the supported steps need."""

    @property
    def n_actions(self) -> int: ...
    @property
    def observes(self) -> bool:
        """Whether the observation tensor's data was added (`set_observation_tables`)."""

def make_tables(
    universe: list[str],
    well_cubes: int,
    max_players: int,
    family_numbers: list[int],
    numbers: dict[str, int],
    church_step_grain: list[int],
    cubes_per_space: dict[int, list[int]],
    cubes_added: dict[int, list[int]],
    crafts: list[tuple[str, int, int, tuple[int, int, int, list[int], list[int]], list[str]]],
    mill_cost: tuple[int, int, int, list[int], list[int]],
    church_enter: list[tuple[int, int, int, list[int], list[int]]],
    chronicle_open: dict[int, list[int]],
    graveyard_open: dict[int, int],
    council_place: list[tuple[int, int, int, list[int], list[int]]],
    council_advance: list[tuple[int, int, int, list[int], list[int]]],
    council_advance_time: list[int],
    village: str,
    cities: list[tuple[str, str, int]],
    paths: list[tuple[str, str, tuple[int, int, int, list[int], list[int]]]],
    demand: dict[int, tuple[int, int, int, list[int], list[int]]],
    later_sale: tuple[int, int, int, list[int], list[int]],
    scoring: dict[str, list[int]],
    customer_points: dict[int, int],
    market_rows: dict[int, tuple[int, int]],
) -> Tables: ...
def set_solo_tables(
    tables: Tables,
    space_order: list[str],
    track_spaces: int,
    fate_slots: list[tuple[str, int]],
    fate_sets: list[tuple[str, list[str]]],
    death_places: dict[str, str],
) -> None:
    """Add an edition's solo data (data/solo_data.py SoloData) to its native tables (cpp/solo.cpp)."""

def set_observation_tables(
    tables: Tables,
    tiles: list[int],
    locations: list[str],
    solo_locations: list[str],
    cities: list[str],
    kinds: list[str],
    numbers: dict[str, str],
    layouts: dict[int, list[tuple[str, int, int]]],
) -> None:
    """Add the observation tensor's static data of an edition to its native tables
    (cpp/observation.cpp; adapters.native_observation.observation_tables): the customer tile
    ids in segment order, the member locations' texts in one-hot order (multi-player, then
    solo: [] without a solo mode), the city ids in data order, the pending kinds' class names
    (SOLO_PENDING_KINDS), the field of each kind's pending_number, and the layout (segment
    name, offset, size) per player count (1: solo)."""

class Game:
    """One game's current state in the native core."""

    def __init__(self, tables: Tables) -> None: ...
    def load(self, state: Mapping[str, object], rules_json: str, readings: dict[str, str]) -> None: ...
    def to_json(self) -> str: ...
    def copy(self) -> Game:
        """A copy of this game: the same state and tables, stepped apart from this one."""
    def is_terminal(self) -> bool: ...
    def is_chance(self) -> bool: ...
    def current_player(self) -> int: ...
    def round(self) -> int: ...
    def turn_begins(self) -> bool: ...
    def legal(self) -> list[int]: ...
    def chance(self) -> list[tuple[int, int, int]]: ...
    def apply(self, id: int) -> None: ...
    def apply_steps(
        self, id: int
    ) -> list[tuple[int, bool, list[tuple[str, int | None, int | None, int | None, bool, int | None, int]]]]:
        """`apply`, with the step's sub-steps (engine/core.py apply_steps; cpp/events.hpp): per
        sub-step (action id, forced, events), each event (rule, seat, turn_of, market_player,
        mass, end_by, round), None where the reference has None. The same checks and errors
        as `apply`, the state unchanged on an error."""
    def apply_judged(
        self, id: int, values: list[tuple[int, ...] | None]
    ) -> list[tuple[int, bool, int, tuple[tuple[int, ...] | None, ...], int]]:
        """`apply_steps`, with the catalogue's STEP queries and monitors judged after every
        sub-step (cpp/predicates.hpp, cpp/monitors.hpp): per sub-step (action id, forced, the
        STEP queries that hold as bits in `STEP_QUERIES`' order, every monitor's value after it
        in `MONITORS`' order, the monitors whose query holds as bits). `values`: each monitor's
        value before the step. The same checks and errors as `apply`, the state unchanged on an
        error."""
    def judge_sub(
        self,
        id: int,
        after: Game,
        events: list[tuple[str, int | None, int | None, int | None, bool, int | None, int]],
        values: list[tuple[int, ...] | None],
    ) -> tuple[int, tuple[tuple[int, ...] | None, ...], int]:
        """One sub-step handed in whole (this game's state, the action `id`, `after`'s state, its
        rule events as `apply_steps` gives them), judged as `apply_judged` judges each: (the STEP
        queries that hold as bits, every monitor's value after it, the monitors whose query holds
        as bits). The states need not be a step of the rules; the games must share their tables."""
    def set_predicate_plant(self, name: str) -> None:
        """A planted bug (tests): a native predicate or monitor made to differ
        (`PREDICATE_PLANTS`); "" plants nothing; any other name is refused (ValueError)."""
    def set_event_plant(self, name: str) -> None:
        """A planted bug (tests): "drop MKT-01" leaves that rule's events out of `apply_steps`;
        "" plants nothing; any other name is refused (ValueError)."""
    def playout(self, seed: int, max_steps: int) -> tuple[int, int]: ...
    def set_debug_swap(self, on: bool) -> None: ...
    def observation(self, observer: int, plant: str = "") -> bytes:
        """The observation tensor of the current state as seat `observer` sees it
        (cpp/observation.cpp): the bytes of little-endian float32, `observation_array`'s tensor
        float for float. ValueError for an observer that is not a seat; NotSupportedError
        before `set_observation_tables` for these tables. `plant` (tests): "customer pile
        forgets its last tile" writes a difference on purpose."""
    def scores(self) -> list[int]: ...
    def winners(self) -> list[int]: ...
    def violations(self, plant: str = "") -> list[tuple[str, str, str, str]]:
        """Every violated state invariant of the current state (cpp/checks.cpp): (invariant,
        component, expected, actual), as `checks.invariants.state_violations(state)` lists them."""
    def transition_violations(self, id: int, after: Game, plant: str = "") -> list[tuple[str, str, str, str]]:
        """Every violated transition invariant of the step from this game's state by the action
        `id` to `after`'s state (cpp/checks.cpp): (invariant, component, expected, actual), as
        `checks.invariants.transition_violations(before, action, after)` lists them."""

STEP_QUERIES: tuple[str, ...]
"""The catalogue's STEP queries the core judges (cpp/predicates.hpp), in its bits' order."""
MONITORS: tuple[str, ...]
"""The PATH queries whose monitors the core runs (cpp/monitors.hpp), in its values' order."""
MONITOR_STARTS: tuple[tuple[int, ...] | None, ...]
"""Each monitor's start value, in `MONITORS`' order."""
PREDICATE_PLANTS: tuple[str, ...]
"""The planted bugs `Game.set_predicate_plant` takes (tests)."""

def set_high_scores(tables: Tables, high_scores: Mapping[int, int]) -> None:
    """Query 13's lower side of a high score by player count (proofs/catalogue HIGH_SCORE)."""

def explore(
    roots: list[Game],
    max_states: int,
    plant: str = "",
    check_json: bool = False,
    progress: Callable[[int, int, int, int], None] | None = None,
    workers: int = 1,
    check: bool = False,
    stop: Callable[[], bool] | None = None,
    checkpoint: Checkpointing | None = None,
    queries: bool = False,
    monitors: list[str] = ...,
) -> dict[str, Any]:
    """Every state reachable from the roots' states, breadth first (cpp/explore.cpp): the
    counts (roots, states, edges, depth, terminal by what ended the game, deadlocks, engine
    exceptions), the seen-set's bytes, the loop's wall seconds; `limit_reached` past `max_states`.
    With `checkpoint`: saved and resumed (`saved`, `checkpoints_written`, `checkpoint_bytes`,
    `resumed_states`, `resumed_depth`). With `queries`: the catalogue's STEP queries judged on
    every edge (cpp/predicates.hpp), `query_witness` a shortest witness (root index, action
    ids) of each met; refused with a checkpoint. With `monitors` (`MONITORS` names): the product
    of the graph and the monitors' values (cpp/monitors.hpp), each query's witness in
    `query_witness` if met; refused with `check_json`, a planted bug or a checkpoint."""

class Checkpointing:
    """A native run's checkpoint options (cpp/explore.hpp): the file to save to ("" none),
    the states between two saves, the file to resume from ("" none), and the header (the
    run's identity) written first and required of the file resumed."""

    def __init__(self, save: str = "", every: int = 500000, resume: str = "", header: str = "") -> None: ...
    @property
    def save(self) -> str: ...
    @property
    def every(self) -> int: ...
    @property
    def resume(self) -> str: ...
    @property
    def header(self) -> str: ...

class CheckpointDamagedError(ValueError):
    """A checkpoint that cannot be resumed (truncated, altered, malformed, another header)."""

class CheckpointUnwritableError(OSError):
    """A checkpoint that could not be written (the old file, if any, is unchanged)."""

def build_id() -> str:
    """The SHA-256 of the C++ sources compiled into this extension (setup.py); '' without it."""

def fingerprint(game: Game) -> int:
    """The 64-bit fingerprint of the game's state: every field but the round counter (cpp/explore.cpp)."""

class Shard:
    """One shard of a native run spread over processes (cpp/explore.hpp Shard,
    explore/native_shards.py): the states whose fingerprints it owns."""

    ROOT_ID: int
    def __init__(self, roots: list[Game], owner: int, shards: int, check: bool = False) -> None: ...
    def seed(self) -> int: ...
    def expand(self) -> list[bytes]: ...
    def keep(self, boxes: list[bytes]) -> int: ...
    def advance(self) -> tuple[int, int]: ...
    def parent_of(self, local: int) -> tuple[int, int]: ...
    def replay(self, root: int, moves: list[int]) -> list[int]: ...
    def counts(self) -> dict[str, Any]: ...

class SeenSet:
    """The native explorer's seen set (cpp/explore.hpp): 64-bit fingerprints, quotiented into
    65,536 segments of 6-byte slots; exact, at most 10 bytes a value from 10^6 values up."""

    def __init__(self) -> None: ...
    def add(self, fingerprint: int) -> bool: ...
    def __len__(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    def keys(self) -> list[int]: ...
