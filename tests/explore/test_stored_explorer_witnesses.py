"""The shortest witnesses `explore --engine native --witnesses` found on the configurations
nearer the real game (`longer`, `longest`; issue 40), stored in proofs/explorer/: each is
what `replay` and `view` say it is (a game on that configuration after whose last action the
query holds, and after no earlier one), and they are the configuration's pinned reachable
queries, neither more nor fewer (docs/exploration.md gives them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ROOT

from village_rules.cli.main import main
from village_rules.explore.pinned import pinned
from village_rules.explore.witnesses import parse_witness_name

FOLDER = ROOT / "proofs" / "explorer"
STORED = sorted(FOLDER.glob("*.json"))


def test_the_stored_explorer_witnesses_are_the_pinned_reachable_queries() -> None:
    named = [parse_witness_name(p.name) for p in STORED]
    assert None not in named, [p.name for p, n in zip(STORED, named, strict=True) if n is None]
    configurations = {(n.configuration, n.players) for n in named if n is not None}
    assert configurations == {("longer", 2), ("longest", 2)}
    for name, players in configurations:
        reachable = pinned(name, players).reachable
        assert reachable is not None, name
        stored = {n.query.name for n in named if n is not None and n.configuration == name}
        assert stored == set(reachable), name


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_a_stored_explorer_witness_replays_and_views_as_its_query(
    path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    named = parse_witness_name(path.name)
    assert named is not None
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    q = named.query
    assert f"this is an explorer witness of query {q.number} ({q.name})" in out
    assert "and after no earlier action (the shortest witness the explorer found)" in out
    assert main(["view", str(path), "--out", str(tmp_path / "page.html")]) == 0
    said = capsys.readouterr().out
    assert f"explorer witness of query {q.number} on configuration {named.configuration}" in said
