"""What `conform` plays: seeded games over every edition, player count and switchable
reading; the golden games; every stored witness. (Every state of the reduced explorer
configurations is the fourth input, walked in `states.py`.)

Everything here comes from the installed package (tests/ is not shipped): the golden games
are played from `adapters.golden.GOLDEN_GAMES` as `playthrough` plays them, the witnesses
are the logs in `proofs/witnesses/` and `readings/witnesses/`; more log files or folders
can be given (`extra_logs`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from village_rules.adapters.golden import GOLDEN_GAMES
from village_rules.adapters.ids import sorted_outcome_ids
from village_rules.conform.protocol import ConformError, GameSetup
from village_rules.data.loader import EDITIONS, builtin_edition
from village_rules.data.shipped import shipped_folder
from village_rules.drivers.play import LOG_FORMAT, GameLog, data_path
from village_rules.engine.setup import deal_outcomes
from village_rules.errors import VillageError
from village_rules.model.actions import Action, action_from_id, action_id, parse_action
from village_rules.model.chance import sample
from village_rules.rules.register import READINGS, SOLO_READINGS

SEEDED = "seeded"
GOLDEN = "golden"
WITNESS = "witnesses"
STATES = "states"
KINDS = (SEEDED, GOLDEN, WITNESS, STATES)
"""The input kinds, in the order they run and are reported."""

MAX_STEPS = 5_000
"""The most steps of one seeded game (a count: a game is cut there, compared all the way)."""


@dataclass(frozen=True, slots=True)
class GameInput:
    """One game to compare: its kind and name, its set-up, and how its steps are chosen: the
    action ids to play (`actions`, a stored game), the seed of uniform random choices
    (`choice_seed`), or a golden game's generator (`golden_rng`)."""

    kind: str
    name: str
    setup: GameSetup
    actions: tuple[int, ...] | None = None
    choice_seed: str | None = None
    golden_rng: object = None
    """A golden game's `random.Random` state after the deal: the runner chooses with it
    over the sorted ids, as `adapters.golden.playthrough` does."""
    max_steps: int = MAX_STEPS


def combinations() -> list[tuple[str, int]]:
    """Every (edition, player count) a game can have: 1 (solo) is 2023's only."""
    return [(e, n) for e in EDITIONS for n in builtin_edition(e).playable_counts]


def seeded_games(
    count: int, seed: int, max_steps: int = MAX_STEPS, player_counts: tuple[int, ...] | None = None
) -> list[GameInput]:
    """`count` seeded games: game i has the (edition, players) `combinations()[i % k]` (of
    the `player_counts` only, when given), each switchable reading (the solo ones in solo
    games only) drawn with probability 1/2, else the edition's default, and the 2023
    starting compensation dropped one time in four. Game i's set-up depends on `seed`, i
    and the combinations drawn from, so narrower `player_counts` give other games."""
    combos = [c for c in combinations() if player_counts is None or c[1] in player_counts]
    if not combos:
        raise ConformError(f"--players {players_text(player_counts)}: no edition is played by these counts")
    out: list[GameInput] = []
    for i in range(count):
        rng = random.Random(f"village-rules conform {seed} {i}")
        edition, players = combos[i % len(combos)]
        readings = []
        for entry in READINGS:
            if entry.amb in SOLO_READINGS and players != 1:
                continue
            if rng.random() < 0.5:
                readings.append((entry.amb, rng.choice(entry.letter_names)))
        compensation = rng.random() < 0.75
        setup = GameSetup(
            players=players,
            edition=edition,
            seed=rng.getrandbits(31),
            readings=tuple(sorted(readings)),
            starting_compensation=compensation,
        )
        out.append(
            GameInput(SEEDED, f"seeded game {i}", setup, choice_seed=f"{seed} {i}", max_steps=max_steps)
        )
    return out


def players_text(players: tuple[int, ...] | None) -> str:
    """`players` as `--players` takes it (every count when None)."""
    return "every count" if players is None else ",".join(str(n) for n in players)


def golden_games() -> list[GameInput]:
    """The golden playthroughs (`adapters.golden`): the set-up deal drawn as `playthrough`
    draws it (one `random.Random(seed)` over the sorted outcome ids); the runner then makes
    the rest of the choices with the same generator (`golden_rng`), over the sorted ids."""
    out: list[GameInput] = []
    for game in GOLDEN_GAMES:
        data = builtin_edition(game.edition)
        rng = random.Random(game.seed)
        dealt: list[Action] = []
        while outcomes := sorted_outcome_ids(data, deal_outcomes(data, game.players, dealt, game.variant)):
            dealt.append(action_from_id(data, sample(outcomes, rng)))
        setup = GameSetup(
            players=game.players,
            edition=game.edition,
            deal=tuple(action_id(data, a) for a in dealt),
            readings=game.variant.choices,
            starting_compensation=game.variant.starting_compensation,
        )
        out.append(GameInput(GOLDEN, f"golden {game.name}", setup, golden_rng=rng.getstate()))
    return out


def witness_files() -> list[Path]:
    """The stored witness logs shipped in the package: the proofs' and the readings'."""
    files = sorted(shipped_folder("village_rules.proofs", "witnesses").glob("*.json"))
    files += sorted(shipped_folder("village_rules.readings", "witnesses").glob("*.json"))
    return files


def _logs(paths: Sequence[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob("*.json"))
        else:
            yield path


def log_game(path: Path, kind: str = WITNESS) -> GameInput | None:
    """A game log as an input (None for a JSON file that is not a game log, such as a
    divergence witness's summary); `ConformError` naming the file for a bad log."""
    try:
        text = path.read_text(encoding="utf-8")
        raw = json.loads(text)
    except (OSError, ValueError) as exc:
        raise ConformError(f"{path}: cannot read it as JSON: {exc}") from None
    if not isinstance(raw, dict) or raw.get("format") != LOG_FORMAT:
        return None
    try:
        log = GameLog.from_json(text, str(path))
        data = log.data()
        ids = tuple(action_id(data, parse_action(a)) for a in log.actions)
    except VillageError as exc:
        raise ConformError(f"{path}: {exc}") from None
    setup = GameSetup(
        players=log.players,
        edition=None if log.data_file else log.edition,
        data_file=str(data_path(log.data_file)) if log.data_file else None,
        seed=log.seed,
        readings=log.variant.choices,
        starting_compensation=log.variant.starting_compensation,
    )
    return GameInput(kind, path.name, setup, actions=ids)


def witness_games(extra_logs: Sequence[Path] = ()) -> list[GameInput]:
    """Every stored witness (and every log in `extra_logs`, files or folders) as an input."""
    out: list[GameInput] = []
    for path in [*witness_files(), *_logs(extra_logs)]:
        game = log_game(path)
        if game is not None:
            out.append(game)
    return out
