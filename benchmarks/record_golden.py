"""Record the engine's golden games: seeded random games and a hash of each final state.

    python benchmarks/record_golden.py

Writes `tests/golden/engine-golden/<edition>-<players>p-seed<seed>.json` (a
`village-rules-log`) and `tests/golden/engine-golden/final-states.json` (the SHA-256 of
each game's final `to_json`). `tests/engine/test_engine_golden.py` replays every log and compares
the final state's hash, so an engine change that alters any seeded game is caught. Re-run
this script (and commit its output) only when a change of rules or data is *meant* to
change seeded games.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from village_rules.data.loader import builtin_edition
from village_rules.drivers.play import play_logged
from village_rules.drivers.serialization import to_json

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "golden" / "engine-golden"
SEEDS = (1, 2, 3)


def golden_name(edition: str, players: int, seed: int) -> str:
    return f"{edition}-{players}p-seed{seed}.json"


def main() -> int:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for old in GOLDEN_DIR.glob("*.json"):
        old.unlink()
    hashes: dict[str, str] = {}
    for edition in ("big-box-2023", "original-2011"):
        for players in builtin_edition(edition).player_counts:
            for seed in SEEDS:
                final, log = play_logged(edition, players, seed)
                name = golden_name(edition, players, seed)
                (GOLDEN_DIR / name).write_text(log.to_json() + "\n", encoding="utf-8")
                hashes[name] = hashlib.sha256(to_json(final).encode("utf-8")).hexdigest()
                print(f"{name}: {len(log.actions)} actions")
    (GOLDEN_DIR / "final-states.json").write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    print(f"{len(hashes)} golden games written to {GOLDEN_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
