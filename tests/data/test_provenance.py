"""The four provenance kinds (issue 9): `secondary` sits between `derived` and
`reconstructed` and must cite a title and an address."""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path

import pytest

from village_rules.data.loader import builtin_edition, load_edition
from village_rules.data.provenance import Provenance, SourceKind
from village_rules.errors import DataError


def test_kinds_are_ranked_by_authority() -> None:
    ranked = sorted(SourceKind, key=lambda k: k.rank)
    assert ranked == [SourceKind.RULEBOOK, SourceKind.DERIVED, SourceKind.SECONDARY, SourceKind.RECONSTRUCTED]


def test_secondary_needs_a_title_and_an_address() -> None:
    ok = Provenance.parse('secondary: "Recon 4: Village", https://www.playboardgamesbetter.com/2013/01/x/')
    assert ok.kind is SourceKind.SECONDARY
    assert Provenance.parse('secondary: "Village-Player-Aid", scribd.com').kind is SourceKind.SECONDARY
    for bad in ("secondary: a review somewhere", 'secondary: "A title" only', "secondary: scribd.com"):
        with pytest.raises(ValueError, match="title in double quotes and its address"):
            Provenance.parse(bad)


def test_a_data_file_with_an_uncited_secondary_value_is_refused(tmp_path: Path) -> None:
    source = importlib.resources.files("village_rules") / "data" / "big-box-2023.json"
    raw = json.loads(source.read_text(encoding="utf-8"))
    raw["lifetime_track_length"]["provenance"] = "secondary: a forum post"
    path = tmp_path / "uncited.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(DataError, match=r"lifetime_track_length\.provenance"):
        load_edition(path)


@pytest.mark.parametrize("edition", ["big-box-2023", "original-2011"])
def test_the_values_from_secondary_sources(edition: str) -> None:
    data = builtin_edition(edition)
    assert data.lifetime_track_length == 10
    assert "mavengames.co.uk" in data.provenance_of("lifetime_track_length").where
    stables = next(c for c in data.crafts if c.building.value == "stables")
    assert stables.training_time == 3
    assert "scribd.com" in data.provenance_of("crafts.stables.training_time").where
    steps = data.provenance_of("church.step_grain")
    assert steps.kind is SourceKind.RECONSTRUCTED and "FLAGGED CHOICE" in steps.where
    assert "playboardgamesbetter.com" in data.provenance_of("setup_cards.2").where


def test_church_steps_fit_both_examples() -> None:
    """BB p. 11: a member drawn onto stage 1 moves to 2 for 1 grain; p. 18: 1 -> 4 costs 4.
    [1, 1, 2] and [1, 2, 1] both fit; the data holds the flagged choice [1, 1, 2]."""
    steps = builtin_edition("big-box-2023").church_step_grain
    assert steps[0] == 1 and sum(steps) == 4 and min(steps) >= 1
    assert steps == (1, 1, 2)
