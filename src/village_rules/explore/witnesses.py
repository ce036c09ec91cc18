"""A path of the explored graph as a game log `village-rules replay` reproduces.

The explorer starts from every set-up deal; a log starts from `new_game`'s seed. The log of
a witness therefore uses the first seed (counting from 0, at most `MAX_SEED_SEARCH`) whose
set-up is the witness's starting state, and records the configuration's file as its data
(a shipped configuration as `village_rules:explore/configs/<name>.json`, the same on every
machine, see `drivers.play.PACKAGE_DATA`).

`explore --witnesses DIR` names each file `{configuration}-{players}p-{query}.json`
(`witness_name`); `replay` reads the name back (`parse_witness_name`) and checks the
query's concrete predicate along the replayed path (`holds_after`), as it does for the
proof catalogue's witnesses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from village_rules.data.edition import EditionData
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply_steps
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, format_action, parse_action
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import CATALOGUE
from village_rules.proofs.catalogue.query import Query
from village_rules.proofs.search.history import History, play_steps
from village_rules.rules.variant import Variant

MAX_SEED_SEARCH = 10_000


def seed_of(data: EditionData, players: int, root: GameState, variant: Variant | None = None) -> int | None:
    """The first seed whose set-up is `root`, or None within `MAX_SEED_SEARCH` seeds."""
    for seed in range(MAX_SEED_SEARCH):
        if new_game(data, players, seed, variant) == root:
            return seed
    return None


def witness_log(
    data: EditionData,
    data_file: str,
    players: int,
    root: GameState,
    *,
    actions: Sequence[Action],
    variant: Variant | None = None,
) -> GameLog | None:
    """The witness as a replayable log, or None if no seed sets up its starting state;
    `data_file` is what the log records (`drivers.play.data_file_name` of the file)."""
    seed = seed_of(data, players, root, variant)
    if seed is None:
        return None
    return GameLog(
        data.edition,
        players,
        seed,
        tuple(format_action(a) for a in actions),
        variant or Variant(),
        data_file,
        data.fingerprint,
    )


def witness_name(configuration: str, players: int, query: str) -> str:
    """The file name `explore --witnesses` gives the shortest witness of `query`. A
    configuration given as a data file is named by its file's stem, so the witness is
    written inside the witnesses folder, not along the data file's path."""
    stem = Path(configuration).name.removesuffix(".json")
    return f"{stem}-{players}p-{query}.json"


@dataclass(frozen=True, slots=True)
class WitnessName:
    """What an explorer witness's file name says: the configuration, players and query."""

    configuration: str
    players: int
    query: Query


def parse_witness_name(name: str) -> WitnessName | None:
    """The configuration, player count and catalogue query of a file named as
    `witness_name` names one; None for any other name (the longest query name that fits
    wins, so a query whose name ends another's is told apart)."""
    for query in sorted(CATALOGUE, key=lambda q: -len(q.name)):
        head = name.removesuffix(f"p-{query.name}.json")
        if head == name:
            continue
        configuration, _, players = head.rpartition("-")
        if configuration and players.isascii() and players.isdigit():
            return WitnessName(configuration, int(players), query)
    return None


def holds_after(initial: GameState, actions: Sequence[str], query: Query) -> list[int]:
    """Every number of actions (1 or more) at which `query`'s concrete predicate holds along
    the path from `initial`, in order: after some sub-step of that action's step, judged by
    its rule events (`proofs.search.history`). Raises the engine's error (`VillageError`) for an
    action that does not apply."""
    history = History([initial])
    held = []
    for k, text in enumerate(actions, start=1):
        action = parse_action(text)
        if play_steps(history, apply_steps(history.last, action), query.concrete):
            held.append(k)
    return held
