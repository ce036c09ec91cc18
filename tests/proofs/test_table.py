"""Deterministic verdicts: the same rows give the same table twice, the stored table
(`witnesses/results.json`) is what `prove` gives now, and `prove --expect` names a changed
row. Budgets are counts (seeded games, z3's rlimit), so none of this depends on the clock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.proofs.catalogue.catalogue import by_name
from village_rules.proofs.table.run import REACHABLE, UNKNOWN, UNREACHABLE, prove, stored_witness
from village_rules.proofs.table.stored import WITNESSES
from village_rules.proofs.table.table import Row, differences, read_table, row_of, to_json

TABLE = WITNESSES / "results.json"

ROWS = [
    ("shared-win", "original-2011", 2),  # reachable from its stored seed
    ("grain-short-at-harvest", "big-box-2023", 2),  # unreachable (k-induction)
    ("two-deaths-owed", "original-2011", 2),  # reachable under AMB-23 b
    ("act-after-pass", "original-2011", 2),  # unreachable (rule-content k-induction)
    ("carla-two-customers", "big-box-2023", 1),  # unknown after its seeded games (solo)
]


def _decide(name: str, edition: str, players: int) -> Row:
    """A row as `prove --expect` decides it: from the stored witness, taken as it is."""
    query = by_name(name)
    return row_of(prove(query, edition, players, stored=stored_witness(WITNESSES, query, edition, players)))


@pytest.mark.by_hand  # CI's `prove --expect` decides every row and compares it with the stored table
@pytest.mark.slow  # ~25 s: every row of the catalogue decided
@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_the_rows_give_the_stored_table() -> None:
    # The stored table was written by other processes at other times, so agreeing with it
    # is the determinism that matters (a second pass in this process, until 2026-12-07,
    # cost 22 s and could only repeat the first).
    rows = [_decide(*key) for key in ROWS]
    assert {r.verdict for r in rows} == {REACHABLE, UNREACHABLE, UNKNOWN}
    assert differences(read_table(TABLE), rows) == []


def test_the_stored_table_covers_the_catalogue_and_keeps_unknowns_explained() -> None:
    table = read_table(TABLE)
    unknown = [r for r in table.values() if r.verdict == UNKNOWN]
    assert unknown and all(r.note for r in unknown)
    text = (WITNESSES / "results.md").read_text(encoding="utf-8")
    for r in unknown:
        assert f"| {r.query} | {r.edition} | {r.players} | unknown |" in text


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_prove_expect_names_the_row_that_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = read_table(TABLE)
    key = ("shared-win", "original-2011", 2)
    old = table[key]
    assert old.verdict == REACHABLE
    table[key] = Row(*key, UNKNOWN, "40 steered games", old.budget, "planted")
    stored = tmp_path / "results.json"
    stored.write_text(to_json(table.values()), encoding="utf-8")
    args = ["prove", "shared-win", "--edition", "original-2011", "--players", "2", "--expect"]
    assert main([*args, str(stored)]) == 1
    err = capsys.readouterr().err
    assert "1 of 1 rows differ" in err
    was = f"unknown (40 steered games; budget: {old.budget})"
    assert f"shared-win original-2011 2p: {was} -> reachable" in err
    # a table that matches: CI's `prove --expect proofs/witnesses/results.json` (every row)


def test_prove_expect_refuses_a_broken_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "results.json"
    raw = json.loads(TABLE.read_text(encoding="utf-8"))
    raw["rows"][0]["players"] = "two"
    bad.write_text(json.dumps(raw), encoding="utf-8")
    args = ["prove", "shared-win", "--edition", "original-2011", "--players", "2", "--expect", str(bad)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "rows[0].players: missing, or not a int" in err and "Traceback" not in err


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_resource_limit_too_small_never_proves_unreachable() -> None:
    """z3 answering "unknown" under its rlimit is neither a path nor a proof."""
    query = by_name("grain-short-at-harvest")
    assert prove(query, "big-box-2023", 2).verdict == UNREACHABLE
    starved = prove(query, "big-box-2023", 2, rlimit=1, games=1)
    assert starved.verdict == UNKNOWN
    assert "resource limit" in starved.note
