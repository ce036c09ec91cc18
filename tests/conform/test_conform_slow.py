"""`conform` at larger budgets (`slow`): the reference against itself over the protocol on
every input kind, and the mutation runner's `conform` layer on the unmutated copy and on a
mutant."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

from village_rules.conform.client import ProtocolEngine
from village_rules.conform.inputs import GOLDEN, KINDS, SEEDED, WITNESS
from village_rules.conform.reference import ReferenceEngine
from village_rules.conform.run import Selection, failure_text, run
from village_rules.mutation.corpus import load_corpus, select
from village_rules.mutation.layers import layer_named
from village_rules.mutation.runner import copy_package, run_layer

pytestmark = pytest.mark.slow


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
def test_every_input_kind_agrees_over_the_protocol() -> None:  # about 25 s
    selection = Selection(kinds=KINDS, games=6, golden=2, witnesses=8, configs=("tiny", "solo"), states=600)
    with ProtocolEngine([sys.executable, "-m", "village_rules.conform.serve"]) as served:
        result = run(served, selection)
    assert result.failure is None, failure_text(result.failure)
    c = result.coverage
    assert (c.games[SEEDED], c.games[GOLDEN], c.games[WITNESS]) == (6, 2, 8)
    assert len(c.combinations) == 6
    assert c.states["tiny"] == c.states["solo"] == 600


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
def test_the_golden_games_and_witnesses_agree_in_process() -> None:  # about 20 s
    # the first 60 witnesses: tests/native/test_native_conform.py runs every one, against the
    # native core (every player count, solo included), at half the reference's cost of this
    # self-comparison
    result = run(ReferenceEngine(), Selection(kinds=(GOLDEN, WITNESS), witnesses=60))
    assert result.failure is None, failure_text(result.failure)
    assert result.coverage.games[GOLDEN] == 10
    assert result.coverage.games[WITNESS] == 60


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand"): about 60 s, the whole budget
def test_the_conform_layer_spares_the_reference() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_package(Path(tmp))
        verdict = run_layer(layer_named("conform"), root)
    assert not verdict.killed, verdict.reason


def test_the_conform_layer_kills_a_mutant() -> None:  # about 4 s: it stops at the first difference
    mutant = select(load_corpus(), ["mill-extra-coin"])[0]  # consistent: only the rule tests saw it
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_package(Path(tmp))
        mutant.apply(root / "village_rules")
        verdict = run_layer(layer_named("conform"), root)
    assert verdict.killed
    assert verdict.reason.startswith("conform seeded game")
