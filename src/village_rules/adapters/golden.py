"""Golden playthroughs: seeded games recorded step by step (as OpenSpiel keeps for its
games), so that any change of the rules' behaviour shows up as a diff.

A playthrough starts from the setup's deal and plays to the end, choosing every decision
and chance outcome with one `random.Random(seed)` from the *sorted* ids (so a change in
the order the engine lists actions does not change the game). Each line of a transcript
(JSON lines) is one step: who acts, the legal action ids (or chance outcome ids with their
probabilities), fingerprints of the observation tensor and of the state, and the action
taken in the text notation; the last line holds the returns, the scores and the final
state in full. `GOLDEN_GAMES` are the recorded games; `scripts/regenerate_golden.py`
rewrites them and `tests/adapters/test_golden.py` diffs them.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

from village_rules.adapters.ids import chance_outcome_ids, legal_action_ids, sorted_outcome_ids
from village_rules.adapters.observation import OBSERVATION_VERSION, observation_tensor, tensor_digest
from village_rules.data.files import write_text
from village_rules.data.loader import builtin_edition
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply
from village_rules.engine.scoring import returns, score_breakdown
from village_rules.engine.setup import board_after, deal_outcomes, game_from_deal
from village_rules.model.actions import Action, action_from_id
from village_rules.model.chance import sample
from village_rules.rules.variant import Variant

GOLDEN_FORMAT = "village-rules-golden"
GOLDEN_FORMAT_VERSION = 1


@dataclass(frozen=True)
class GoldenGame:
    """A golden playthrough: a named seeded game whose transcript is stored under tests/golden/."""
    name: str
    edition: str
    players: int
    seed: int
    variant: Variant = field(default_factory=Variant)


_NO_COIN_AT_WELL = Variant(readings={"AMB-01": "b"})  # AMB-01: no coin may stand in at the well
_NO_COMPENSATION = Variant(starting_compensation=False)  # AMB-11 the other way

GOLDEN_GAMES: tuple[GoldenGame, ...] = (
    GoldenGame("original-2p", "original-2011", 2, 1),
    GoldenGame("original-3p", "original-2011", 3, 2),
    GoldenGame("original-4p", "original-2011", 4, 3),
    GoldenGame("original-3p-no-coin-at-well", "original-2011", 3, 4, _NO_COIN_AT_WELL),
    GoldenGame("bigbox-2p", "big-box-2023", 2, 5),
    GoldenGame("bigbox-3p", "big-box-2023", 3, 6),
    GoldenGame("bigbox-4p", "big-box-2023", 4, 7),
    GoldenGame("bigbox-5p", "big-box-2023", 5, 8),
    GoldenGame("bigbox-4p-no-compensation", "big-box-2023", 4, 9, _NO_COMPENSATION),
    GoldenGame("bigbox-3p-no-coin-at-well", "big-box-2023", 3, 10, _NO_COIN_AT_WELL),
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _ids(ids: Sequence[int]) -> str:
    return " ".join(map(str, ids))


def playthrough(game: GoldenGame) -> Iterator[str]:
    """The transcript lines of `game`, header first."""
    data = builtin_edition(game.edition)
    rng = random.Random(game.seed)
    yield json.dumps(
        {
            "format": GOLDEN_FORMAT,
            "format_version": GOLDEN_FORMAT_VERSION,
            "observation_version": OBSERVATION_VERSION,
            "name": game.name,
            "edition": game.edition,
            "players": game.players,
            "seed": game.seed,
            "variant": asdict(game.variant),
            "data_fingerprint": data.fingerprint,
        }
    )
    dealt: list[Action] = []
    move = 0
    while outcomes := sorted_outcome_ids(data, deal_outcomes(data, game.players, dealt, game.variant)):
        board = board_after(data, game.players, dealt, game.variant)
        chosen = action_from_id(data, sample(outcomes, rng))
        yield json.dumps(
            {
                "move": move,
                "player": "chance (setup)",
                "chance": " ".join(f"{i}:{_fraction(p)}" for i, p in outcomes),
                "observation": tensor_digest(observation_tensor(board, 0, dealing=True)),
                "state": _digest(to_json(board)),
                "action": str(chosen),
            }
        )
        dealt.append(chosen)
        move += 1
    state = game_from_deal(data, game.players, dealt, game.variant)
    while not state.is_terminal:
        player = state.current_player()
        line: dict[str, object] = {"move": move, "player": "chance" if state.is_chance else player}
        if state.is_chance:
            chance = chance_outcome_ids(state)
            line["chance"] = " ".join(f"{i}:{_fraction(p)}" for i, p in chance)
            chosen_id = sample(chance, rng)
        else:
            legal = legal_action_ids(state)
            line["legal"] = _ids(legal)
            chosen_id = legal[rng.randrange(len(legal))]
        line["observation"] = tensor_digest(observation_tensor(state, max(player, 0)))
        line["state"] = _digest(to_json(state))
        chosen = action_from_id(data, chosen_id)
        line["action"] = str(chosen)
        yield json.dumps(line)
        state = apply(state, chosen)
        move += 1
    yield json.dumps(
        {
            "move": move,
            "returns": [_fraction(r) for r in returns(state)],
            "scores": [b.total for b in score_breakdown(state)],
            "final_state": json.loads(to_json(state)),
        },
        sort_keys=True,
    )


def transcript_path(directory: Path, game: GoldenGame) -> Path:
    """Where a golden game's transcript is stored in `directory`."""
    return directory / f"{game.name}.jsonl"


def write_all(directory: Path) -> list[Path]:
    """Write every golden transcript into `directory`; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for game in GOLDEN_GAMES:
        path = transcript_path(directory, game)
        write_text(path, "\n".join(playthrough(game)) + "\n")
        written.append(path)
    return written


def first_difference(stored: Sequence[str], fresh: Sequence[str]) -> str | None:
    """None if the transcripts agree; else where and how they first differ."""
    for number, (old, new) in enumerate(zip(stored, fresh, strict=False), start=1):
        if old != new:
            return f"line {number} differs:\n  stored: {old[:600]}\n  now:    {new[:600]}"
    if len(stored) != len(fresh):
        return f"the stored transcript has {len(stored)} lines, the game now gives {len(fresh)}"
    return None
