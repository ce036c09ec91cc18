"""Generated: a shipped data file with 1-3 values changed (nudged up or down, set to 0, a
key removed, an entry dropped or repeated) is either refused with a `DataError` naming a
key, or it sets up and plays: random steps from a set-up game keep every invariant, and
the set-up state saves and loads back (issue 14: data files the engine cannot play)."""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_state_mutations import play_checked

import village_rules
from village_rules import EDITIONS, from_json, new_game, to_json
from village_rules.data.loader import parse_edition
from village_rules.errors import DataError
from village_rules.rules.register import random_choices
from village_rules.rules.variant import Variant

DATA = village_rules.__file__.rsplit("/", 1)[0] + "/data"


@cache
def shipped(edition: str) -> str:
    with open(f"{DATA}/{edition}.json", encoding="utf-8") as f:
        return f.read()


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            if k != "provenance":
                out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*path, i))
    return out


def _int_paths(raw: Any) -> list[tuple[Any, ...]]:
    out = []
    for p in _paths(raw):
        v = raw
        for k in p:
            v = v[k]
        if type(v) is int:
            out.append(p)
    return out


@st.composite
def mutated_data(draw: st.DrawFn) -> tuple[str, str]:
    edition = draw(st.sampled_from(EDITIONS))
    raw = json.loads(shipped(edition))
    ints = _int_paths(raw)
    everything = _paths(raw)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["int", "int", "int", "zero", "drop", "repeat"]))
        path = draw(st.sampled_from(ints if kind in ("int", "zero") else everything))
        try:
            parent = raw
            for k in path[:-1]:
                parent = parent[k]
            key = path[-1]
            parent[key]
        except (KeyError, IndexError, TypeError):
            continue
        if kind in ("int", "zero") and type(parent[key]) is not int:
            continue  # an earlier mutation replaced it (with None or a copy of its parent)
        if kind == "int":
            parent[key] = max(0, parent[key] + draw(st.sampled_from([-3, -2, -1, 1, 2, 10])))
        elif kind == "zero":
            parent[key] = 0
        elif kind == "drop":
            del parent[key]
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        else:
            parent[key] = copy.deepcopy(parent) if draw(st.booleans()) else None
    return edition, json.dumps(raw)


def check_data_mutant(text: str, seed: int, steps: int) -> bool:
    """True if the mutant loaded and played soundly; False if refused with a DataError."""
    try:
        data = parse_edition(text, "mutant.json")
    except DataError as exc:
        assert exc.file == "mutant.json"
        return False
    rng = random.Random(seed)
    players = rng.choice(list(data.playable_counts))  # 2023: solo games (1 player) too
    variant = Variant(rng.random() < 0.5, random_choices(rng))
    state = new_game(data, players, seed, variant)
    assert from_json(to_json(state)) == state
    play_checked(state, steps, seed)
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutant=mutated_data(), seed=st.integers(0, 2**32))
def test_a_mutated_data_file_is_refused_or_plays(mutant: tuple[str, str], seed: int) -> None:
    check_data_mutant(mutant[1], seed, steps=200)


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutant=mutated_data(), seed=st.integers(0, 2**32))
def test_many_mutated_data_files_are_refused_or_play(mutant: tuple[str, str], seed: int) -> None:
    check_data_mutant(mutant[1], seed, steps=600)
