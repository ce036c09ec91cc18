"""village_rules.model.render: pending steps and actions in the rulebook's words, not the
engine's reprs (what the pictures' header and the viewer print)."""

from __future__ import annotations

import typing

from village_rules.data.components import ActionSpace, Cube
from village_rules.drivers.play import play_logged
from village_rules.model import pending as p
from village_rules.model.actions import Action, DrawCube, Pass, TakeCube, parse_action
from village_rules.model.render import action_words, pending_words


def test_the_issues_examples_read_as_the_rulebook_says() -> None:
    assert pending_words(p.SeedDraw(ActionSpace.CHURCH, 3)) == "seeding the church: 3 cubes to draw"
    assert (
        pending_words(p.SeedDraw(ActionSpace.GRAIN_HARVEST, 1)) == "seeding the grain harvest: 1 cube to draw"
    )
    assert pending_words(p.GameOver()) == "game over: final scores"
    assert pending_words(p.MarketChoice(2)) == "market day: seat 2 serves a customer or passes"
    assert pending_words(p.MassDraw(4)) == "mass: 4 pieces to draw from the black bag"


def test_actions_read_in_words_with_their_articles() -> None:
    assert action_words(DrawCube(Cube.ORANGE)) == "an orange cube is drawn from the green bag"
    assert action_words(TakeCube(ActionSpace.COUNCIL_CHAMBER, Cube.GREEN)) == (
        "takes a green cube from the council chamber"
    )
    assert action_words(Pass()) == "passes for the rest of the market day"


def test_no_words_are_an_engine_repr() -> None:
    """Every action of whole games of both editions (and solo) and every pending kind."""
    seen: set[type] = set()
    for edition, players in (("big-box-2023", 5), ("original-2011", 3), ("big-box-2023", 1)):
        _, log = play_logged(edition, players, seed=1)
        for text in log.actions:
            action = parse_action(text)
            seen.add(type(action))
            words = action_words(action)
            assert words and "=" not in words and type(action).__name__ not in words and "<" not in words
    assert len(seen) >= 20  # most kinds of action were worded at least once
    assert len(seen) <= len(typing.get_args(Action))
