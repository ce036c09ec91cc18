"""`village-rules prove --shrink DIR`: shrink the stored witnesses of a `prove --out` folder
in place, without searching again (after the judge or the shrinker changed, or on
witnesses stored before there was a shrinker).

Each witness is shrunk (`proofs/search/shrink.py`); one that got shorter is written again with its
note (its "Last actions" and length then describe the shrunk game, and the note says what
it was shrunk from), and its row of `results.json` / `results.md` takes the new length, so
`prove --expect` still matches. A witness that is already 1-minimal is left as it is (the
command is idempotent). The folder is replaced whole once every witness is done: a witness
that does not replay to its query is refused, naming it, and nothing changes.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import replace
from pathlib import Path

from village_rules.data.files import staged_folder
from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_text_file
from village_rules.drivers.engine_choice import REFERENCE
from village_rules.drivers.play import GameLog
from village_rules.errors import LogFormatError
from village_rules.proofs.catalogue.catalogue import CATALOGUE
from village_rules.proofs.catalogue.query import Query
from village_rules.proofs.catalogue.user_queries import UserQueries, shown_query
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.search.search import Witness
from village_rules.proofs.search.shrink import NotAWitnessError
from village_rules.proofs.table.run import (
    MINIMAL_WORDS,
    NOT_MINIMAL_WORDS,
    REACHABLE,
    recorded_query,
    shrink_for,
    shrink_words,
    write_witness,
)
from village_rules.proofs.table.stored import witness_files
from village_rules.proofs.table.table import TABLE, Row, read_table, write_table

MAX_SHRINK_STEPS = 1_000_000_000
"""The largest shrink budget (`--shrink-steps`) the command line takes."""

_ATTEMPT = re.compile(r"found by the steered search \(attempt (\d+)\)")


def _read(path: Path) -> str:
    try:
        return read_text_file(path, MAX_LOG_CHARS, "game log")
    except JsonInputError as exc:
        raise LogFormatError(f"{path}: {exc.problem}") from None


def witness_of_file(path: Path, log: GameLog, user: UserQueries | None) -> Query:
    """The query a stored witness shows (`user_queries.shown_query`)."""
    query = shown_query(path, log.query, user)
    if query is None:
        raise ProveArgumentError(f"prove --shrink: {path}: names no query of the catalogue (or of --queries)")
    return query


def shrink_folder(
    folder: Path, user: UserQueries | None, max_steps: int, quiet: bool, engine: str = REFERENCE
) -> int:
    """Shrink every witness of `folder` in place, its candidates judged on `engine`
    (`run.shrink_for`); print one line per witness and a summary."""
    if not folder.is_dir():
        raise ProveArgumentError(f"prove --shrink: {folder}: not a folder (give a `prove --out` folder)")
    files = witness_files(folder)
    if not files:
        raise ProveArgumentError(f"prove --shrink: {folder}: holds no witnesses (*p.json)")
    known = [*CATALOGUE, *(user.queries if user is not None else ())]
    befores, afters = [], []
    with staged_folder(folder, keep=True) as staging:
        lengths: dict[tuple[str, str, int], int] = {}
        for path in files:
            log = GameLog.from_json(_read(path), source=str(path))
            query = witness_of_file(path, log, user)
            try:
                shrunk = shrink_for(query, log, max_steps, engine)
            except NotAWitnessError as exc:
                problem = f"prove --shrink: {path}: not a witness of {query.name}: {exc}"
                raise ProveArgumentError(problem) from None
            befores.append(shrunk.before)
            afters.append(shrunk.after)
            state = "1-minimal" if shrunk.minimal else "budget ran out"
            if not quiet:
                print(
                    f"{path.name}: {shrunk.before} -> {shrunk.after} actions "
                    f"({shrunk.replays} replays, {shrunk.steps} steps, {state})",
                    flush=True,
                )
            note = path.with_suffix(".md")
            old = note.read_text(encoding="utf-8") if note.is_file() else ""
            if shrunk.after == shrunk.before:
                # as short as the shrinker makes it: left as it is, but a note that said its
                # shrink ran out of budget now says what this one found
                if shrunk.minimal and NOT_MINIMAL_WORDS in old:
                    found = f"{MINIMAL_WORDS} (a later shrink of {shrunk.steps} engine steps found it)"
                    (staging / note.name).write_text(old.replace(NOT_MINIMAL_WORDS, found), encoding="utf-8")
                continue
            attempt = _ATTEMPT.search(old)
            found = "found by the steered search" + (f" (attempt {attempt.group(1)})" if attempt else "")
            witness = Witness(replace(shrunk.log, query=recorded_query(query)), 1, shrunk.history)
            write_witness(staging, query, witness, f"{found}, then {shrink_words(shrunk)}")
            lengths[(query.name, log.edition, log.players)] = shrunk.after
        table_path = folder / TABLE
        if lengths and table_path.is_file():
            table = read_table(table_path)
            for key, after in lengths.items():
                row = table.get(key)
                if row is not None and row.verdict == REACHABLE:
                    table[key] = Row(*key, row.verdict, f"{after} actions", row.budget, row.note)
            write_table(staging, table, known)
    shorter = sum(1 for b, a in zip(befores, afters, strict=True) if a < b)
    print(
        f"{len(files)} witnesses, {shorter} shortened: median {statistics.median(befores):g} -> "
        f"{statistics.median(afters):g} actions, {sum(befores)} -> {sum(afters)} in all"
    )
    return 0

