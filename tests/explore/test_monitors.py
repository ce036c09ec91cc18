"""The monitors of the PATH queries (village_rules.explore.monitors) agree with the queries'
own predicates at every step of random games, and decide them on the reduced configurations."""

from __future__ import annotations

import random

import pytest

from village_rules.data.shipped import shipped_folder
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply, apply_steps, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.explore.configs import configuration
from village_rules.explore.monitors import MONITORS, Monitor
from village_rules.explore.search import explore
from village_rules.model.actions import parse_action
from village_rules.model.chance import sample
from village_rules.proofs.catalogue.catalogue import PATH, by_name
from village_rules.proofs.search.history import History


@pytest.mark.parametrize("name", sorted(MONITORS))
@pytest.mark.parametrize("config", ["tiny", "solo", "small"])
def test_a_monitor_agrees_with_its_query_at_every_step_of_random_games(name: str, config: str) -> None:
    monitor: Monitor = MONITORS[name]
    query = by_name(name)
    assert query.horizon == PATH
    c = configuration(config)
    players = c.player_counts[0]
    agreed_true = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = new_game(c.data, players, seed, query.variant)
        history = History([state])
        value = monitor.start
        while not state.is_terminal and len(history.actions) < 2_000:
            if state.is_chance:
                action = sample(chance_outcomes(state), rng)
            else:
                legal = legal_actions(state)
                action = legal[rng.randrange(len(legal))]
            for sub in apply_steps(state, action):  # both judged after every sub-step
                history.push_sub(sub)
                value = monitor.update(value, sub.before, sub.action, sub.after)
                expected = query.concrete(history)
                found = monitor.holds(value, sub.before, sub.action, sub.after)
                assert found == expected, (config, seed, len(history.actions))
                agreed_true += expected
            state = history.last
    if config == "small" and name in HAPPENS_IN_SMALL:
        assert agreed_true > 0  # it happens in these games: the agreement is not vacuous


HAPPENS_IN_SMALL = {"two-deaths-one-turn", "two-deaths-owed", "mass-four-monks"}
"""The monitored queries that 40 random games of `small` meet (the others are rare or
forbidden by the rules: a buyer of a whole mass, a free later sale, acting after a pass)."""


WITNESSES = shipped_folder("village_rules.proofs", "witnesses")

EXPECTED = {
    # (config, query): the shortest witness's length, or None for unreachable by exhaustion
    ("tiny", "two-deaths-one-turn"): 7,
    ("tiny", "mass-four-monks"): 8,
    ("tiny", "mass-one-buyer"): None,
}


@pytest.mark.parametrize(("config", "name"), sorted(EXPECTED))
def test_a_monitored_query_is_decided_by_exhaustion(config: str, name: str) -> None:
    c = configuration(config)
    result = explore(c.data, c.player_counts[0], check=False, monitor=MONITORS[name], queries=[by_name(name)])
    verdict = result.verdicts[name]
    assert verdict.decided
    assert (len(verdict.witness[1]) if verdict.witness else None) == EXPECTED[config, name]


@pytest.mark.parametrize("prefix", ["5b-two-deaths-owed", "16b-free-sale-amb-06-b"])
def test_a_monitor_holds_at_the_end_of_its_querys_stored_witnesses(prefix: str) -> None:
    # the stored witnesses of the whole game (proofs/witnesses) meet the query at their last
    # step only: so must the monitor, along the same path and under the same reading
    name = prefix.split("-", 1)[1]
    monitor = MONITORS[name]
    paths = sorted(WITNESSES.glob(f"{prefix}-*.json"))
    assert paths
    for path in paths:
        log = GameLog.from_json(path.read_text(encoding="utf-8"))
        state, value, held = log.initial_state(), monitor.start, []
        for text in log.actions:
            action = parse_action(text)
            after = apply(state, action)
            value = monitor.update(value, state, action, after)
            held.append(monitor.holds(value, state, action, after))
            state = after
        assert held[-1] and not any(held[:-1]), path.name
