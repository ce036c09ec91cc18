"""The steered witness search's shortening (issue 41, item 4): after the first witness it
plays `shorten` more seeds, each cut below the shortest witness so far, and keeps the
shortest; deterministic, and the same witness again when started from its own seed."""

from __future__ import annotations

from village_rules.proofs.catalogue.catalogue import by_name
from village_rules.proofs.search.search import attempt, search

QUERY = by_name("mass-four-monks")  # 6a: short witnesses (about 55-60 actions), seconds to test
EDITION, PLAYERS, SHORTEN = "original-2011", 2, 20


def _length(seed: int) -> int | None:
    """The length of the whole steered game of `seed` up to the query (None: never)."""
    history = attempt(EDITION, PLAYERS, seed, QUERY.steer, QUERY.concrete, variant=QUERY.variant)
    return None if history is None else len(history.decisions)


def test_without_shorten_the_search_keeps_the_first_witness() -> None:
    witness, tried = search(EDITION, PLAYERS, QUERY.steer, QUERY.concrete, 40)
    assert witness is not None
    first = next(s for s in range(40) if _length(s) is not None)
    assert (witness.log.seed, tried, witness.attempts) == (first, first + 1, first + 1)
    assert len(witness.log.actions) == _length(first)


def test_shortening_keeps_the_shortest_witness_of_the_seeds_it_played() -> None:
    """The first witness is on seed 0; seeds 1-20 are played cut short, and the kept witness
    is the shortest of seeds 0-20 (the first among equals), shorter than seed 0's."""
    witness, tried = search(EDITION, PLAYERS, QUERY.steer, QUERY.concrete, 40, shorten=SHORTEN)
    assert witness is not None
    lengths = {s: _length(s) for s in range(SHORTEN + 1)}
    found = {s: n for s, n in lengths.items() if n is not None}
    shortest = min(found.values())
    assert tried == SHORTEN + 1
    assert len(witness.log.actions) == shortest < found[0]
    assert witness.log.seed == min(s for s, n in found.items() if n == shortest)
    assert witness.attempts == witness.log.seed + 1
    assert QUERY.concrete(witness.history)


def test_a_search_from_the_kept_seed_keeps_the_same_witness() -> None:
    """How the table stays reproducible: `prove --out` starts from the stored witness's seed."""
    witness, _ = search(EDITION, PLAYERS, QUERY.steer, QUERY.concrete, 40, shorten=SHORTEN)
    assert witness is not None
    again, _ = search(
        EDITION, PLAYERS, QUERY.steer, QUERY.concrete, 40, shorten=SHORTEN, hint=witness.log.seed
    )
    assert again is not None
    assert again.log == witness.log


def test_a_search_that_finds_nothing_plays_only_its_budget() -> None:
    never = search(EDITION, PLAYERS, QUERY.steer, lambda h: False, 2, shorten=SHORTEN)
    assert never == (None, 2)
