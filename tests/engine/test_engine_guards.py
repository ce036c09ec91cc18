"""The engine's own consistency checks are real checks, not bare `assert`s: they raise
`InternalError` naming the place, also under `python -O`; and the dispatch table
`engine.spaces.rules_of` gives every payable action a module."""

from __future__ import annotations

import ast
import random
import subprocess
import sys

import pytest
from support import ROOT

from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.engine import church, mass
from village_rules.engine.context import Ctx
from village_rules.engine.guards import expect, present
from village_rules.engine.spaces import rules_of
from village_rules.errors import InternalError, VillageError
from village_rules.model.actions import (
    PAYABLE,
    BuyFromBag,
    ChurchEnter,
    ChurchStep,
    Die,
    DrawCube,
    DrawCustomer,
    DrawMember,
    DrawMonk,
    Harvest,
    Pay,
    PickCube,
    PickGood,
    Skip,
)

SRC = ROOT / "src" / "village_rules"


def test_no_bare_assert_in_the_engine_or_the_state() -> None:
    files = [*sorted((SRC / "engine").glob("*.py")), SRC / "model/state.py"]
    found = [
        f"{path.name}:{node.lineno}"
        for path in files
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Assert)
    ]
    assert found == []


def test_guards_name_the_place_and_narrow() -> None:
    assert present(3, "here", "a number") == 3
    assert expect(Harvest(), Harvest, "here") == Harvest()
    missing = r"^internal check failed in mass\.x: the mass in progress is missing$"
    with pytest.raises(InternalError, match=missing):
        present(None, "mass.x", "the mass in progress")
    with pytest.raises(InternalError, match=r"church\.effect: expected a ChurchEnter"):
        expect(Harvest(), ChurchEnter, "church.effect")


def test_an_engine_step_out_of_place_raises_the_library_error() -> None:
    state = new_game("big-box-2023", 2, 1)
    assert state.mass is None
    with pytest.raises(
        InternalError, match=r"mass\.start_draws: the mass in progress is missing"
    ) as info:
        mass.start_draws(state, Ctx(None))
    assert isinstance(info.value, VillageError)
    with pytest.raises(InternalError, match=r"church\.effect: the entering member is missing"):
        church.effect(state, 0, ChurchEnter(99), Ctx(None))


def test_the_checks_hold_under_python_optimize() -> None:
    code = (
        "from village_rules import new_game\n"
        "from village_rules.engine import mass\n"
        "from village_rules.engine.context import Ctx\n"
        "from village_rules.errors import InternalError\n"
        "assert False, 'asserts are on'\n"
    )
    probe = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=False)
    assert probe.returncode == 0, probe.stderr  # -O strips the probe's own assert
    code = code.replace("assert False, 'asserts are on'\n", "") + (
        "try:\n"
        "    mass.start_draws(new_game('original-2011', 3, 2), Ctx(None))\n"
        "except InternalError as exc:\n"
        "    print('raised:', exc)\n"
    )
    run = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    expected = "raised: internal check failed in mass.start_draws: the mass in progress is missing"
    assert run.stdout.strip() == expected


ANSWERS = (
    Skip,
    PickCube,
    PickGood,
    Pay,
    Die,
    BuyFromBag,
    ChurchStep,
    DrawCube,
    DrawCustomer,
    DrawMonk,
    DrawMember,
)


def test_every_payable_action_has_a_module_and_every_answer_none() -> None:
    """Over every decision and chance outcome of a few seeded games: a payable action (and
    every other chosen action) is priced and performed by a module; an answer to a pending
    step (a pick, a payment, a death, a mass step, a chance outcome) by the core."""
    seen: set[type] = set()
    for seed, edition in enumerate(("big-box-2023", "original-2011", "big-box-2023")):
        rng = random.Random(seed)
        state = new_game(edition, 3 + seed, seed)
        while not state.is_terminal:
            options = [a for a, _ in chance_outcomes(state)] if state.is_chance else legal_actions(state)
            for action in options:
                seen.add(type(action))
                module = rules_of(action)
                assert (module is None) == isinstance(action, ANSWERS), action
                if isinstance(action, PAYABLE):
                    assert module is not None
            state = apply(state, options[rng.randrange(len(options))])
    assert len(seen) >= 20, sorted(k.__name__ for k in seen)
    assert rules_of(ChurchEnter(1)) is church
