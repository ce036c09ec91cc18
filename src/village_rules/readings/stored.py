"""The register's divergence witnesses: a `Witness` as stored JSON and replayable logs, and
where the shipped witnesses are."""

from __future__ import annotations

import json
from pathlib import Path

from village_rules.data.files import write_text
from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_json, read_text_file
from village_rules.data.loader import EDITIONS
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


_WITNESS_KEYS = frozenset(
    {
        "format",
        "amb",
        "edition",
        "players",
        "seed",
        "readings",
        "kind",
        "detail",
        "method",
        "paragraph",
        "actions",
    }
)


def witness_from_json(text: str, source: str = "divergence witness") -> Witness:
    """Read a stored divergence witness; raises `ReadingError` naming `source` and the field
    for anything but a well-formed witness file."""

    def fail(key: str, problem: str) -> ReadingError:
        return ReadingError(f"{source}: {key or '<top level>'}: {problem}")

    try:
        raw = read_json(text, MAX_LOG_CHARS, "divergence witness")
    except JsonInputError as exc:
        raise fail("", exc.problem) from None
    if not isinstance(raw, dict) or raw.get("format") != WITNESS_FORMAT:
        raise fail("format", f"not a {WITNESS_FORMAT} file")
    if set(raw) != _WITNESS_KEYS:
        raise fail("", f"must have exactly the fields {', '.join(sorted(_WITNESS_KEYS))}")

    def string(key: str) -> str:
        value = raw[key]
        if not isinstance(value, str):
            raise fail(key, "must be a string")
        return value

    def whole(key: str, least: int) -> int:
        value = raw[key]
        if type(value) is not int or value < least:
            raise fail(key, f"must be a whole number, {least} or more")
        return value

    amb, edition = string("amb"), string("edition")
    if edition not in EDITIONS:
        raise fail("edition", f"must be one of {', '.join(EDITIONS)}")
    letters, actions = raw["readings"], raw["actions"]
    if not isinstance(letters, list) or len(letters) != 2 or not all(isinstance(x, str) for x in letters):
        raise fail("readings", "must be two reading letters")
    entry = reading(amb)
    for x in letters:
        if x not in entry.letter_names:
            raise fail("readings", f"{amb} has no reading {x!r}")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise fail("actions", "must be a list of action texts")
    return Witness(
        amb,
        edition,
        whole("players", 1),
        whole("seed", 0),
        letters[0],
        letters[1],
        tuple(actions),
        string("kind"),
        string("detail"),
        string("method"),
    )


def read_witness(path: Path) -> Witness:
    """A stored divergence witness file (read no further than `MAX_LOG_CHARS` bytes);
    `ReadingError` naming the file."""
    try:
        text = read_text_file(path, MAX_LOG_CHARS, "divergence witness")
    except JsonInputError as exc:
        raise ReadingError(f"{path}: {exc.problem}") from None
    except OSError as exc:
        raise ReadingError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return witness_from_json(text, str(path))


def write_witness(w: Witness, directory: Path) -> Path:
    """`<name>.json` (the witness) and `<name>.<letter>.log.json` (a `village-rules replay`
    log under each reading)."""
    directory.mkdir(parents=True, exist_ok=True)
    name = witness_name(w.amb, w.edition, w.left_letter, w.right_letter)
    path = directory / f"{name}.json"
    write_text(path, witness_to_json(w) + "\n")
    for variant, letter in zip(w.variants(), (w.left_letter, w.right_letter), strict=True):
        log = GameLog(w.edition, w.players, w.seed, w.actions, variant)
        write_text(directory / f"{name}.{letter}.log.json", log.to_json() + "\n")
    return path
