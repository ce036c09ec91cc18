"""`conform --write-pack FILE`: the reference's side of every compared step as a file, so an
implementation can be checked offline, in any language, without Python.

The pack is JSON lines (docs/conformance.md, "The pack"): a header line, then one line per
game (its `new_game` request and every step: the seat to act, the legal ids or the chance
outcomes with their exact probabilities, the SHA-256 of the state's canonical JSON, the
scores at the end, the id applied next) and one line per explored state (the state itself,
what is offered there, and every edge's id with the digest of the state it reaches).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from village_rules.conform.inputs import GameInput
from village_rules.conform.protocol import CHANCE, Observation
from village_rules.conform.runner import Recorder
from village_rules.conform.states import StatesRecord
from village_rules.conform.wire import PROTOCOL, VERSION, fraction_text, player_text
from village_rules.data.files import write_text

PACK_FORMAT = "village-rules-conform-pack"
PACK_VERSION = 1


def digest(state_json: str) -> str:
    """The SHA-256 (hex) of a state's canonical JSON text, UTF-8 encoded."""
    return hashlib.sha256(state_json.encode("utf-8")).hexdigest()


def _step(obs: Observation) -> dict[str, object]:
    out: dict[str, object] = {"player": player_text(obs.player)}
    if obs.player == CHANCE:
        out["outcomes"] = [[i, fraction_text(p)] for i, p in obs.chance]
    elif not obs.terminal:
        out["actions"] = list(obs.legal)
    out["state_sha256"] = digest(obs.state)
    if obs.scores is not None:
        out["scores"] = list(obs.scores)
    if obs.winners is not None:
        out["winners"] = list(obs.winners)
    return out


class PackWriter(Recorder):
    """Collects the reference's steps and writes them as a pack (`write`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._game: dict[str, object] | None = None
        self._steps: list[dict[str, object]] = []
        self.counts = {"games": 0, "steps": 0, "states": 0, "edges": 0}

    def start_game(self, game: GameInput) -> None:
        """Open a game's line."""
        self._game = {
            "kind": game.kind,
            "name": game.name,
            "new_game": {"op": "new_game", **game.setup.to_message()},
        }
        self._steps = []

    def step(self, obs: Observation, applied: int | None) -> None:
        """One step of the open game."""
        line = _step(obs)
        if applied is not None:
            line["apply"] = applied
        self._steps.append(line)

    def end_game(self) -> None:
        """Close the open game's line."""
        if self._game is None:
            return
        self._game["steps"] = self._steps
        self.lines.append(json.dumps(self._game, separators=(",", ":"), ensure_ascii=False))
        self.counts["games"] += 1
        self.counts["steps"] += len(self._steps)
        self._game = None

    def state(self, record: StatesRecord) -> None:
        """One explored state with its edges."""
        line: dict[str, object] = {
            "kind": "states",
            "name": record.name,
            "state": json.loads(record.obs.state),
        }
        line.update(_step(record.obs))
        line["edges"] = [[ident, digest(text)] for ident, text in record.edges]
        self.lines.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
        self.counts["states"] += 1
        self.counts["edges"] += len(record.edges)

    def write(self, path: Path) -> None:
        """The header and every line, written at once (the old file or the whole new one)."""
        header = {
            "format": PACK_FORMAT,
            "format_version": PACK_VERSION,
            "protocol": PROTOCOL,
            "protocol_version": VERSION,
            "state_digest": "sha256 of the state's canonical JSON (sorted keys, no spaces, UTF-8)",
            **self.counts,
        }
        write_text(path, "\n".join([json.dumps(header, separators=(",", ":")), *self.lines]) + "\n")
