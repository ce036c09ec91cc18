"""Action text and action values as untrusted input: only the canonical notation parses
(so every accepted text round-trips exactly), non-text is an `ActionSyntaxError`, and an
action built with wrongly typed fields is an `ActionTypeError` from `apply`, never an
`AttributeError` deep in the engine."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from village_rules import EDITIONS, apply, builtin_edition, new_game, to_json
from village_rules.data.components import ActionSpace, Cube, OnCouncil
from village_rules.data.tally import Tally
from village_rules.errors import ActionTypeError, VillageError
from village_rules.model.actions import (
    ActionSyntaxError,
    CallHome,
    Pay,
    Serve,
    TakeCube,
    Travel,
    action_universe,
    check_action,
    format_action,
    parse_action,
)

CANONICAL = sorted({format_action(a) for e in EDITIONS for a in action_universe(builtin_edition(e))})


def test_every_action_of_both_editions_is_canonical_and_well_typed() -> None:
    for e in EDITIONS:
        for action in action_universe(builtin_edition(e)):
            check_action(action)
            assert parse_action(format_action(action)) == action


@pytest.mark.parametrize(
    "text",
    [
        "serve ٣",  # Arabic-Indic digit
        "serve \uff17",  # full-width digit 7
        "serve 00007",
        "serve 07",
        "serve  7",
        " serve 7",
        "serve 7 ",
        "serve\t7",
        "SERVE 7",
        "pay 0 coins=green:1,green:1",
        "pay 0 coins=green:1,brown:1",
        "pay 0 coins=green:0",
        "pay 00",
        "call-home council:01 1",
        "church-step 1 ²",
        "serve 1234567890",
        "serve " + "9" * 5000,
    ],
)
def test_non_canonical_action_text_is_refused(text: str) -> None:
    with pytest.raises(ActionSyntaxError):
        parse_action(text)


def test_a_near_miss_names_the_canonical_form() -> None:
    with pytest.raises(ActionSyntaxError, match="write 'serve 7'"):
        parse_action("serve 007")
    with pytest.raises(ActionSyntaxError, match="write 'pay 0 coins=green:2'"):
        parse_action("pay 0 coins=green:1,green:1")


@pytest.mark.parametrize("value", [None, 7, b"serve 7", ["serve", "7"], Serve(7)])
def test_parse_action_of_something_that_is_not_text(value: object) -> None:
    with pytest.raises(ActionSyntaxError, match="must be a str"):
        parse_action(value)  # type: ignore[arg-type]


def _variants(text: str) -> st.SearchStrategy[str]:
    digits = st.sampled_from(["0", "00", "٣", "\uff17", "²", "1", " ", "\t", "-", "+", ",", ":", "green:1"])
    position = st.integers(0, len(text))
    return st.one_of(
        st.just(text),
        st.builds(lambda i, d: text[:i] + d + text[i:], position, digits),
        st.builds(lambda i: text[:i] + text[i + 1 :], position),
        st.builds(lambda i: text[:i] + text[i:].upper(), position),
        st.builds(lambda i, d: text[:i] + d + text[i + 1 :], position, digits),
    )


action_texts = st.one_of(
    st.sampled_from(CANONICAL).flatmap(_variants),
    st.text(alphabet=st.sampled_from("serv pay0123456789 :,=coinsgreb٣\uff17"), max_size=30),
    st.text(max_size=20),
)


@settings(max_examples=1500, deadline=None)
@given(text=action_texts)
def test_every_accepted_action_text_round_trips_exactly(text: str) -> None:
    """parse(text) succeeds => format(parse(text)) == text; otherwise ActionSyntaxError."""
    try:
        action = parse_action(text)
    except ActionSyntaxError:
        return
    assert format_action(action) == text


@pytest.mark.parametrize(
    "action",
    [
        Serve("7"),  # type: ignore[arg-type]
        Serve(True),
        Serve(7.0),  # type: ignore[arg-type]
        Serve(10**5000),
        TakeCube("market", "green"),  # type: ignore[arg-type]
        TakeCube(ActionSpace.MARKET, "green"),  # type: ignore[arg-type]
        CallHome(OnCouncil("1"), 1),  # type: ignore[arg-type]
        CallHome("council:1", 1),  # type: ignore[arg-type]
        Travel("village", 3, 1),  # type: ignore[arg-type]
        Pay(0, {Cube.GREEN: 1}),  # type: ignore[arg-type]
        Pay(0, Tally((("green", 1),))),  # type: ignore[arg-type]
        "take market green",
        object(),
    ],
)
def test_apply_refuses_an_action_with_wrongly_typed_fields(action: object) -> None:
    state = new_game("big-box-2023", 3, 1)
    before = to_json(state)
    with pytest.raises(ActionTypeError) as info:
        apply(state, action)  # type: ignore[arg-type]
    assert isinstance(info.value, VillageError) and isinstance(info.value, TypeError)
    assert to_json(state) == before
