"""typed_hash (issue 24): values of different place, pending and action classes hash apart,
so the explorer's fingerprints (a state's hash) no longer merge states that differ only in
such a field; a plain dataclass shows the collision the decorator removes."""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.data.components import Farmyard, InGraveyard, OnChurch, OnCouncil, Removed
from village_rules.data.typed_hash import typed_hash
from village_rules.engine.setup import new_game
from village_rules.explore.search import fingerprint
from village_rules.model.evolve import replace
from village_rules.model.pending import ChooseDying, ChooseTurn


def test_places_and_pending_steps_of_different_kinds_hash_apart() -> None:
    assert hash(InGraveyard()) != hash(Removed()) != hash(Farmyard())
    assert hash(OnCouncil(1)) != hash(OnChurch(1))
    assert hash(ChooseTurn(0)) != hash(ChooseDying(0))
    assert hash(OnChurch(2)) == hash(OnChurch(2)) and OnChurch(2) == OnChurch(2)


def test_a_plain_dataclass_hash_ignores_the_class() -> None:
    @dataclass(frozen=True)
    class A:
        pass

    @dataclass(frozen=True)
    class B:
        pass

    @typed_hash
    @dataclass(frozen=True)
    class C:
        pass

    assert hash(A()) == hash(B())  # what the decorator is for
    assert hash(C()) != hash(A()) and C() == C() and hash(C()) == hash(C())


def test_states_that_differ_only_in_graveyard_or_removed_have_different_fingerprints() -> None:
    state = new_game("big-box-2023", 2, 0)
    p = state.players[0]
    first = state.with_player(0, replace(p, members=(InGraveyard(), Removed(), *p.members[2:])))
    second = state.with_player(0, replace(p, members=(Removed(), InGraveyard(), *p.members[2:])))
    assert first != second
    assert fingerprint(first) != fingerprint(second)
