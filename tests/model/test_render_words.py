"""village_rules.model.render: pending steps and actions in the rulebook's words, not the
engine's reprs (what the pictures' header and the viewer print)."""

from __future__ import annotations

import re
import typing

from village_rules import apply
from village_rules.data.components import ActionSpace, Cube
from village_rules.drivers.play import play_logged
from village_rules.model import pending as p
from village_rules.model.actions import Action, DrawCube, Pass, TakeCube, parse_action
from village_rules.model.render import action_words, pending_text, pending_words, render


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


ENGINE_REPR = re.compile(r"\b[A-Z][A-Za-z]*\(|\[['\d]")
"""What an engine repr looks like in text: `ClassName(`, or a Python list of strings or
numbers (`['c1'`, `[8`)."""


def test_the_text_picture_of_every_state_is_in_words() -> None:
    """`render` (what `village-rules show`, `replay` and the witness notes print) on every
    state of whole games of both editions and solo: the pending step in the rulebook's
    words, no repr; and the pattern would catch the repr it printed before."""
    kinds: set[type] = set()
    for edition, players in (("big-box-2023", 3), ("original-2011", 2), ("big-box-2023", 1)):
        _, log = play_logged(edition, players, seed=2)
        state = log.initial_state()
        for text in [*log.actions, None]:
            kinds.add(type(state.pending))
            picture = render(state)
            assert not ENGINE_REPR.search(picture), (ENGINE_REPR.search(picture), picture)
            assert f"waiting for: {pending_words(state.pending)}" in picture
            if text is not None:
                state = apply(state, parse_action(text))
    assert len(kinds) >= 12
    assert ENGINE_REPR.search(f"waiting for: {pending_text(state)}")  # the old line: caught
