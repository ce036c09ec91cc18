"""Stage: table (the stored table).

The stored verdict table of `village-rules prove` (`witnesses/results.json`) and the
comparison CI runs against it (`prove --expect`).

A row is what a run decides deterministically: the verdict, its depth (witness length, the
induction depth, or the games searched) and the budgets used; the comparison reads the
verdict and the depth. Times are left out on purpose:
they differ between runs, the verdicts must not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from village_rules.data.files import write_text
from village_rules.data.jsonio import MAX_DATA_CHARS, JsonInputError, is_version, read_json, read_text_file
from village_rules.proofs.catalogue.query import Query
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.table.run import Result, witness_stem

TABLE = "results.json"
"""The stored verdict table's file name in a `--out` folder (and in the shipped witnesses)."""

FORMAT = "village-rules-prove-table"
VERSION = 1

Key = tuple[str, str, int]
"""(query name, edition, player count): one row of the table."""


@dataclass(frozen=True, slots=True)
class Row:
    """One decided row, as stored."""

    query: str
    edition: str
    players: int
    verdict: str
    depth: str
    budget: str
    note: str = ""

    @property
    def key(self) -> Key:
        """The row's query, edition and player count."""
        return (self.query, self.edition, self.players)

    def shown(self) -> str:
        """The verdict and depth as the comparison prints them."""
        return f"{self.verdict} ({self.depth}; budget: {self.budget})"


def row_of(result: Result) -> Row:
    """The stored form of a `prove` result."""
    return Row(
        result.query, result.edition, result.players, result.verdict, result.depth, result.budget, result.note
    )


def to_json(rows: Iterable[Row]) -> str:
    """The table as JSON text (rows in the given order)."""
    body = [
        {
            "query": r.query,
            "edition": r.edition,
            "players": r.players,
            "verdict": r.verdict,
            "depth": r.depth,
            "budget": r.budget,
            "note": r.note,
        }
        for r in rows
    ]
    return json.dumps({"format": FORMAT, "version": VERSION, "rows": body}, indent=1) + "\n"


def read_table(path: Path) -> dict[Key, Row]:
    """A stored table by key; `ProveArgumentError` naming the file and the field otherwise."""
    try:
        raw = read_json(read_text_file(path, MAX_DATA_CHARS, "prove table"), MAX_DATA_CHARS, "prove table")
    except JsonInputError as exc:
        raise ProveArgumentError(f"{path}: {exc.problem}") from None
    except OSError as exc:
        raise ProveArgumentError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ProveArgumentError(f"{path}: format: not a {FORMAT} file")
    if not is_version(raw.get("version"), VERSION):
        raise ProveArgumentError(
            f"{path}: version: must be the integer {VERSION}, not {raw.get('version')!r}"
        )
    rows = raw.get("rows")
    if not isinstance(rows, list):
        raise ProveArgumentError(f"{path}: rows: missing, or not a list")
    table: dict[Key, Row] = {}
    for i, item in enumerate(rows):
        if not isinstance(item, dict):
            raise ProveArgumentError(f"{path}: rows[{i}]: must be an object")
        fields = {"query": str, "edition": str, "players": int, "verdict": str, "depth": str, "budget": str}
        for name, kind in fields.items():
            if type(item.get(name)) is not kind:
                raise ProveArgumentError(f"{path}: rows[{i}].{name}: missing, or not a {kind.__name__}")
        note = item.get("note", "")
        if not isinstance(note, str):
            raise ProveArgumentError(f"{path}: rows[{i}].note: not a str")
        row = Row(
            item["query"],
            item["edition"],
            item["players"],
            item["verdict"],
            item["depth"],
            item["budget"],
            note,
        )
        if row.key in table:
            raise ProveArgumentError(f"{path}: rows[{i}]: a second row for {_name(row.key)}")
        table[row.key] = row
    return table


def _name(key: Key) -> str:
    return f"{key[0]} {key[1]} {key[2]}p"


def differences(stored: dict[Key, Row], now: Sequence[Row]) -> list[str]:
    """One line per row of `now` whose verdict or depth differs from the stored one (old ->
    new, budgets shown); rows of the stored table that were not run are not compared. The
    depth of an unknown row is the number of games searched, so a changed search budget
    shows there; a reachable row found again from its stored seed is the same row whether
    or not the seed was given as a hint."""
    lines = []
    for row in now:
        old = stored.get(row.key)
        if old is None:
            lines.append(f"{_name(row.key)}: not in the stored table -> {row.shown()}")
        elif (old.verdict, old.depth) != (row.verdict, row.depth):
            lines.append(f"{_name(row.key)}: {old.shown()} -> {row.shown()}")
    return lines


def write_table(out: Path, table: dict[Key, Row], known: list[Query]) -> None:
    """results.json and results.md in `out` from the rows of `table` whose query is `known`."""
    path = out / TABLE
    by = {q.name: q for q in known}
    order = {q.name: i for i, q in enumerate(known)}
    ranked = sorted((k for k in table if k[0] in order), key=lambda k: (order[k[0]], k[1], k[2]))
    write_text(path, to_json(table[k] for k in ranked))
    verdicts = ("reachable", "unreachable", "unknown")
    counts = {v: sum(1 for k in ranked if table[k].verdict == v) for v in verdicts}
    share = 100 * counts["unknown"] / len(ranked) if ranked else 0.0
    lines = [
        "# Results of `village-rules prove`",
        "",
        "Regenerate with `village-rules prove --out proofs/witnesses`"
        " (see docs/proofs.md); CI checks the table with"
        " `village-rules prove --expect proofs/witnesses/results.json`.",
        "",
        f"{len(ranked)} rows: {counts['reachable']} reachable, {counts['unreachable']} unreachable, "
        f"{counts['unknown']} unknown ({share:.1f} %). Budgets are counts, so the table is the same "
        "on every machine; an unknown row says why in its last column.",
        "",
        "| query | edition | players | verdict | depth or bound | witness / proof "
        "| budget, and why unknown |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key in ranked:
        row = table[key]
        stem = witness_stem(by[row.query], row.edition, row.players)
        if row.verdict == "reachable":
            file = f"[{stem}.json]({stem}.json)"
        elif row.verdict == "unreachable":
            file = f"[proof]({stem}.proof.md)"
        else:
            file = "-"
        why = f"{row.budget}; {row.note}" if row.note else row.budget
        lines.append(
            f"| {row.query} | {row.edition} | {row.players} | {row.verdict} | {row.depth} | {file} | {why} |"
        )
    write_text(out / "results.md", "\n".join(lines) + "\n")
