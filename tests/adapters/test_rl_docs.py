"""Issue 28: docs/rl.md names only parameters the OpenSpiel game accepts, and its example
game string loads (it once listed `coin_substitution_at_well`, which the game rejects)."""

from __future__ import annotations

import re

import pytest
from support import ROOT

pyspiel = pytest.importorskip("pyspiel")

import village_rules.adapters.openspiel as adapter  # noqa: E402

PAGE = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")


def test_the_parameters_paragraph_names_real_parameters() -> None:
    paragraph = PAGE[PAGE.index("Parameters: `edition`") :].split("\n\n", 1)[0]
    named = set(re.findall(r"`([a-z_0-9]+)`", paragraph)) - {"players", "edition", "big", "original"}
    accepted = set(adapter._DEFAULTS)
    assert {"amb_01", "starting_compensation", "max_moves"} <= named
    assert named - {"amb_26"} <= accepted | {"ambiguities"}, sorted(named - accepted)
    assert "coin_substitution_at_well" not in PAGE


def test_the_example_game_string_loads_with_coins_forbidden_at_the_well() -> None:
    example = re.search(r"`(python_village\(edition=big-box-2023,players=2,amb_01=b\))`", PAGE)
    assert example is not None
    game = pyspiel.load_game(example[1])
    assert dict(game.spec.variant.readings) == {"AMB-01": "b"}
    with pytest.raises(Exception, match="coin_substitution_at_well"):
        pyspiel.load_game("python_village(coin_substitution_at_well=false)")
