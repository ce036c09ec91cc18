"""The hand-written rule mutants (`corpus.json`): what each breaks, and how it is applied.

A mutant replaces one exact text of one file under `src/village_rules/` (an engine module
or a data file). The text must occur exactly once: the engine changes, and a patch whose text
is gone (or has become ambiguous) is refused by the mutant's name rather than silently
testing the unmutated engine."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).with_name("corpus.json")
GENERATED_CORPUS = Path(__file__).with_name("generated.json")
"""The generated mutants (`generate.py` writes it; reading it needs no cosmic-ray)."""

HAND_WRITTEN = "hand-written"
GENERATED = "generated"


class MutationError(Exception):
    """Bad input to the mutation runner: an unknown mutant or layer, a patch whose text is
    not in its file, a bad option, a corpus that does not parse. The command line exits 2."""


@dataclass(frozen=True)
class Mutant:
    """One rule mutant: the rule it breaks and the edit that breaks it."""

    id: str
    rule: str
    file: str
    """The file to edit, relative to the package folder (`engine/turn.py`)."""
    find: str
    replace: str
    breaks: str
    """What the mutant breaks, in words."""
    equivalent: str | None = None
    """When set: why the mutant cannot change any game (it is then left out of the scores)."""
    corpus: str = HAND_WRITTEN
    """Which corpus it comes from: `HAND_WRITTEN` (corpus.json) or `GENERATED`
    (generated.json, cosmic-ray's); the runner scores each apart."""

    def patched(self, package: Path) -> str:
        """The text of the mutated file, from the package folder `package`; `MutationError`
        if the file is missing or the text is not there exactly once."""
        path = package / self.file
        if not path.is_file():
            raise MutationError(f"mutant {self.id}: no file {self.file} in the package")
        text = path.read_text(encoding="utf-8")
        count = text.count(self.find)
        if count != 1:
            where = "is not found" if count == 0 else f"occurs {count} times"
            raise MutationError(
                f"mutant {self.id}: the text to replace {where} in {self.file}: {self.find!r}"
            )
        return text.replace(self.find, self.replace)

    def apply(self, package: Path) -> None:
        """Edit the copy of the package at `package` (`patched`, written back)."""
        text = self.patched(package)
        (package / self.file).write_text(text, encoding="utf-8")


_FIELDS = ("id", "rule", "file", "find", "replace", "breaks")


def load_corpus(path: Path = CORPUS, corpus: str = HAND_WRITTEN) -> tuple[Mutant, ...]:
    """The mutants of a corpus file, in its order; `MutationError` for a malformed one.
    `corpus` names the corpus they are scored in (`HAND_WRITTEN` or `GENERATED`)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MutationError(f"{path}: cannot read the corpus: {exc}") from exc
    entries = raw.get("mutants") if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        raise MutationError(f"{path}: the corpus has no list of mutants")
    out: list[Mutant] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in _FIELDS):
            raise MutationError(f"{path}: mutant {i} needs the text fields {', '.join(_FIELDS)}")
        equivalent = entry.get("equivalent")
        if equivalent is not None and not isinstance(equivalent, str):
            raise MutationError(f"{path}: mutant {entry['id']}: equivalent must be a text")
        if entry["id"] in seen:
            raise MutationError(f"{path}: two mutants named {entry['id']}")
        seen.add(entry["id"])
        out.append(
            Mutant(
                id=entry["id"],
                rule=entry["rule"],
                file=entry["file"],
                find=entry["find"],
                replace=entry["replace"],
                breaks=entry["breaks"],
                equivalent=equivalent,
                corpus=corpus,
            )
        )
    return tuple(out)


def load_generated(path: Path = GENERATED_CORPUS) -> tuple[Mutant, ...]:
    """The generated mutants (`generated.json`), scored as the `GENERATED` corpus."""
    return load_corpus(path, GENERATED)


def select(mutants: tuple[Mutant, ...], names: list[str]) -> tuple[Mutant, ...]:
    """The named mutants, in the order named; `MutationError` for an unknown name."""
    by_id = {m.id: m for m in mutants}
    unknown = [n for n in names if n not in by_id]
    if unknown:
        raise MutationError(f"unknown mutant(s): {', '.join(unknown)}")
    return tuple(by_id[n] for n in names)
