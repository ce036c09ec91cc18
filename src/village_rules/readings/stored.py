"""The register's divergence witnesses: a `Witness` as stored JSON and replayable logs, and
where the shipped witnesses are."""

from __future__ import annotations

import json
from pathlib import Path

from village_rules.data.shipped import shipped_folder
from village_rules.drivers.play import GameLog
from village_rules.errors import ReadingError
from village_rules.readings.divergence import LEGAL, Witness
from village_rules.rules.register import (
    reading,
)

WITNESS_FORMAT = "village-rules-witness"


WITNESSES = shipped_folder("village_rules.readings", "witnesses")
"""The stored divergence witnesses, shipped as package data (`village_rules/readings/witnesses/`)."""


NO_WITNESS = "no stored witness: the search found no divergence yet (not a proof that none exists)"


def witness_name(amb: str, edition: str, left: str, right: str) -> str:
    """The file stem of a stored divergence witness, e.g. AMB-26-big-box-2023-a-b."""
    return f"{amb}-{edition}-{left}-{right}"


def paragraph(w: Witness) -> str:
    """One paragraph: what differs, at which action."""
    entry = reading(w.amb)
    last = f"action {len(w.actions)} ({w.actions[-1]!r})" if w.actions else "the setup"
    return (
        f"{w.amb} {w.left_letter} ({entry.meaning(w.left_letter)}) against {w.right_letter} "
        f"({entry.meaning(w.right_letter)}), {w.edition}, {w.players} players, seed {w.seed}: "
        f"the same {len(w.actions)} actions replay under both readings; after {last} the "
        f"{w.kind} {'differ' if w.kind == LEGAL else 'differs'} ({w.detail}). Search: {w.method}."
    )


def witness_to_json(w: Witness) -> str:
    """A divergence witness as the JSON text stored under village_rules/readings/witnesses/."""
    return json.dumps(
        {
            "format": WITNESS_FORMAT,
            "amb": w.amb,
            "edition": w.edition,
            "players": w.players,
            "seed": w.seed,
            "readings": [w.left_letter, w.right_letter],
            "kind": w.kind,
            "detail": w.detail,
            "method": w.method,
            "paragraph": paragraph(w),
            "actions": list(w.actions),
        },
        indent=1,
    )


def witness_from_json(text: str) -> Witness:
    """Read a stored divergence witness; raises ReadingError on another file format."""
    raw = json.loads(text)
    if not isinstance(raw, dict) or raw.get("format") != WITNESS_FORMAT:
        raise ReadingError(f"not a {WITNESS_FORMAT} file")
    left, right = raw["readings"]
    return Witness(
        raw["amb"],
        raw["edition"],
        raw["players"],
        raw["seed"],
        left,
        right,
        tuple(raw["actions"]),
        raw["kind"],
        raw["detail"],
        raw["method"],
    )


def write_witness(w: Witness, directory: Path) -> Path:
    """`<name>.json` (the witness) and `<name>.<letter>.log.json` (a `village-rules replay`
    log under each reading)."""
    directory.mkdir(parents=True, exist_ok=True)
    name = witness_name(w.amb, w.edition, w.left_letter, w.right_letter)
    path = directory / f"{name}.json"
    path.write_text(witness_to_json(w) + "\n", encoding="utf-8")
    for variant, letter in zip(w.variants(), (w.left_letter, w.right_letter), strict=True):
        log = GameLog(w.edition, w.players, w.seed, w.actions, variant)
        (directory / f"{name}.{letter}.log.json").write_text(log.to_json() + "\n", encoding="utf-8")
    return path
