"""The exhaustive explorer (village_rules.explore): pinned counts of the reduced
configurations, every invariant at every state, shortest witnesses that replay, verdicts
that change when a rule does, and clear refusals."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import z3
from support import (
    LARGE_PINNED,
    PINNED,
    SLOW_PINNED,
    TINY_STATES,
    loses_a_coin_at_the_market,
    planted_steps,
)

from village_rules.cli.main import main
from village_rules.data.loader import load_edition
from village_rules.drivers.play import GameLog, data_file_name
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.errors import VillageError
from village_rules.explore import search
from village_rules.explore.configs import CONFIGS, NotReducedError, configuration, shipped_names
from village_rules.explore.crosscheck import disagreements, model_proves
from village_rules.explore.search import (
    ENGINE_EXCEPTION,
    REFINEMENT,
    ExplorationLimitError,
    explore,
    fingerprint,
    roots,
)
from village_rules.explore.seen import SeenSet, collision_probability
from village_rules.explore.witnesses import holds_after, witness_log
from village_rules.model.actions import Action, format_action, parse_action
from village_rules.model.chance import sample
from village_rules.model.evolve import replace
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import CATALOGUE, PATH, STEP, Query, by_name
from village_rules.proofs.model import model

TINY_RULES_EXPLORED = [
    # every rule ID some edge of tiny fires (docs/exploration.md)
    *("CHU-01", "CNC-01", "CNC-05", "CRAFT-01", "CRAFT-03", "CRAFT-04", "CRAFT-05"),
    *("DEATH-01", "DEATH-02", "DEATH-03", "DEATH-04", "DEATH-05"),
    *("END-01", "END-02", "END-03", "END-05", "END-06", "HARV-01", "HARV-02", "HARV-03"),
    *("MASS-01", "MASS-03", "MASS-04", "MASS-05", "MKT-01", "MKT-02", "MKT-03", "MKT-04", "MKT-05", "MKT-06"),
    *("ROUND-01", "ROUND-02", "SCORE-01", "SEED-02", "TIME-01", "TURN-01", "TURN-02", "TURN-03"),
]
BIRTHS_RULES_EXPLORED = sorted([*TINY_RULES_EXPLORED, "FAM-01"])
"""Every rule ID some edge of `births` fires: tiny's and the birth (FAM-01)."""


def _explore(name: str, players: int) -> search.Exploration:
    return explore(configuration(name).data, players)


def _assert_pinned(result: search.Exploration, pinned: dict[str, object]) -> None:
    found = {
        "roots": result.roots,
        "states": result.states,
        "edges": result.edges,
        "depth": result.depth,
        "terminal": dict(result.terminal),
    }
    expected = {k: v for k, v in pinned.items() if k in found}
    assert found == expected, f"the reachable game changed: pinned {expected}, now {found}"
    assert result.deadlocks == 0
    assert result.violation_count == 0, result.violations
    assert result.states_checked == result.states and result.edges_checked == result.edges


@pytest.fixture(scope="module")
def tiny() -> search.Exploration:
    return explore(configuration("tiny").data, 2, rules=True)


def test_the_tiny_configuration_is_explored_to_exhaustion_with_its_counts_pinned(
    tiny: search.Exploration,
) -> None:
    _assert_pinned(tiny, PINNED["tiny", 2])
    reachable = {name for name, v in tiny.verdicts.items() if v.reachable}
    assert reachable == PINNED["tiny", 2]["reachable"]
    # every query has a verdict: a STEP query is decided either way, a PATH one is not claimed
    assert set(tiny.verdicts) == {q.name for q in CATALOGUE}
    assert all(not v.reachable for v in tiny.verdicts.values() if v.horizon == PATH)
    assert 8 <= tiny.bytes_per_state <= 16
    assert tiny.rules_fired is not None and sorted(tiny.rules_fired) == TINY_RULES_EXPLORED


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_the_births_configuration_lets_members_be_born_and_keeps_its_counts() -> None:
    # no other configuration has cubes on the family space; here a third member (a "2")
    # waits to be born, and some explored edge fires the birth (FAM-01)
    result = explore(configuration("births").data, 2, rules=True)
    _assert_pinned(result, PINNED["births", 2])
    assert {name for name, v in result.verdicts.items() if v.reachable} == PINNED["births", 2]["reachable"]
    assert result.rules_fired is not None and "FAM-01" in result.rules_fired
    assert sorted(result.rules_fired) == BIRTHS_RULES_EXPLORED, sorted(result.rules_fired)
    assert "FAM-01" not in TINY_RULES_EXPLORED


@pytest.mark.slow  # ~25 s: two configurations of 2-3 x 10^4 states, every invariant checked
@pytest.mark.parametrize(("name", "players"), sorted(SLOW_PINNED))
def test_the_solo_and_small_configurations_keep_their_counts(name: str, players: int) -> None:
    _assert_pinned(_explore(name, players), SLOW_PINNED[name, players])


LARGE_RULES_FIRED = [
    # the rule IDs 300 seeded random games of `large` fire (docs/exploration.md): what its
    # exhaustive exploration at least exercises, beyond `tiny`: the council chamber with the
    # next starting player marker, a scroll bought with influence cubes, calling a member home
    # and the farmyard's 5 grain at most
    "CHU-01",
    "CNC-01",
    "CNC-05",
    "CRAFT-01",
    "CRAFT-03",
    "CRAFT-04",
    "CRAFT-05",
    "DEATH-01",
    "DEATH-02",
    "DEATH-03",
    "DEATH-04",
    "DEATH-05",
    "END-01",
    "END-02",
    "END-03",
    "END-05",
    "END-06",
    "FAM-02",
    "HARV-01",
    "HARV-02",
    "HARV-03",
    "MASS-01",
    "MASS-03",
    "MASS-04",
    "MASS-05",
    "MKT-01",
    "MKT-04",
    "MKT-05",
    "MKT-06",
    "ROUND-01",
    "ROUND-02",
    "SCORE-01",
    "SEED-02",
    "TIME-01",
    "TURN-01",
    "TURN-02",
    "TURN-03",
]


def test_the_large_configurations_games_exercise_the_rules_its_docs_name() -> None:
    data = configuration("large").data
    fired: set[str] = set()
    for seed in range(300):
        state, rng = new_game(data, 2, seed), random.Random(seed)
        while not state.is_terminal:
            legal = None if state.is_chance else legal_actions(state)
            action = sample(chance_outcomes(state), rng) if legal is None else rng.choice(legal)
            trace: list[str] = []
            state = apply(state, action, trace=trace)
            fired.update(trace)
    assert sorted(fired) == LARGE_RULES_FIRED, f"docs: {LARGE_RULES_FIRED}, the games fire {sorted(fired)}"


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow  # ~3 min on one core: 2.0 x 10^6 states
def test_the_large_configuration_keeps_its_counts() -> None:
    """One process (about 180 s of CPU): 2 workers give the same counts (docs/exploration.md,
    tests/explore/test_parallel.py on the small configurations) for about twice the CPU,
    which CI's budget cannot spare; xdist's other worker takes the other core."""
    config = configuration("large")
    result = search.explore(config.data, 2, check=False, queries=[], max_states=3_000_000)
    found = {
        "roots": result.roots,
        "states": result.states,
        "edges": result.edges,
        "depth": result.depth,
        "terminal": dict(result.terminal),
    }
    assert found == LARGE_PINNED, f"the reachable game changed: pinned {LARGE_PINNED}, now {found}"
    assert result.states >= 1_000_000 and result.deadlocks == 0
    assert result.bytes_per_state <= 16


def test_every_shortest_witness_replays_to_its_query_from_new_game(tiny: search.Exploration) -> None:
    config = configuration("tiny")
    starts = roots(config.data, 2)
    for name, verdict in tiny.verdicts.items():
        if verdict.witness is None:
            continue
        root, actions = verdict.witness
        log = witness_log(config.data, data_file_name(config.path), 2, starts[root].state, actions=actions)
        assert log is not None, name
        log = GameLog.from_json(log.to_json())
        # judged after every sub-step, with its events; shortest: on no earlier step
        held = holds_after(log.initial_state(), log.actions, by_name(name))
        q = by_name(name)
        if q.horizon == PATH:
            assert held and held[-1] == len(log.actions), name
        else:
            assert held == [len(log.actions)], name


def _step(state: GameState, text: str) -> tuple[Action, GameState]:
    action = parse_action(text)
    return action, apply(state, action)


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_planted_rule_bug_is_found_at_some_explored_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("village_rules.explore.search.apply", loses_a_coin_at_the_market)
    monkeypatch.setattr("village_rules.explore.search.apply_steps", planted_steps(loses_a_coin_at_the_market))
    result = _explore("tiny", 2)
    assert result.violation_count > 0
    assert any(v.invariant == "conservation.coins" for _, v in result.violations), result.violations


def test_an_engine_that_raises_is_a_finding_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    real = apply

    def refuses_the_market(state: GameState, action: Action, trace: list[str] | None = None) -> GameState:
        if "market" in format_action(action):
            raise VillageError("planted refusal")
        return real(state, action, trace)

    monkeypatch.setattr("village_rules.explore.search.apply", refuses_the_market)
    monkeypatch.setattr("village_rules.explore.search.apply_steps", planted_steps(refuses_the_market))
    result = explore(configuration("tiny").data, 2, check=False)
    assert any(v.invariant == ENGINE_EXCEPTION for _, v in result.violations)


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_data_change_alters_the_pinned_figures(tmp_path: Path) -> None:
    # With 3 graves instead of 1 the graveyard never fills before the chronicle does: the
    # terminal states by end type no longer match the pinned ones.
    raw = json.loads((CONFIGS / "tiny.json").read_text(encoding="utf-8"))
    raw["graveyard"]["value"] = [2, 2, 2]
    path = tmp_path / "graves.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    changed = explore(load_edition(path), 2, check=False)
    assert changed.terminal == Counter({"chronicle": 1_501})
    assert dict(changed.terminal) != PINNED["tiny", 2]["terminal"]


def test_no_two_distinct_states_of_tiny_share_a_fingerprint(tiny: search.Exploration) -> None:
    # Ground truth for the fingerprint: a breadth-first search that keeps the states
    # themselves (compared by equality, round counter zeroed) reaches as many states as the
    # explorer counts by fingerprint, and their fingerprints are all different. (With the
    # dataclasses' own hash, which ignores the class, a member in the graveyard and one
    # removed hashed alike and the explorer counted 7,678 of these 10,175 states.)
    level = list({replace(r.state, round=0) for r in roots(configuration("tiny").data, 2)})
    seen = set(level)
    while level:
        reached = {replace(apply(s, a), round=0) for s in level for a, _ in search.moves(s)}
        level = [t for t in reached if t not in seen]
        seen.update(level)
    assert len(seen) == tiny.states == TINY_STATES
    assert len({fingerprint(s) for s in seen}) == len(seen)


FINGERPRINTS = """
import sys
from village_rules.explore.configs import configuration
from village_rules.explore.search import fingerprint, moves, roots
from village_rules.engine.core import apply
level = [r.state for r in roots(configuration(sys.argv[1]).data, int(sys.argv[2]))]
seen = []
for _ in range(10):
    level = [apply(s, a) for s in level for a, _ in moves(s)][:300]
    seen += [fingerprint(s) for s in level]
print(len(seen), *seen)
"""


@pytest.mark.parametrize(("name", "players"), [("tiny", 2), ("solo", 1)])
def test_two_processes_with_one_string_hash_seed_give_a_state_the_same_fingerprint(
    name: str, players: int
) -> None:
    # What checkpoints (resumed in a new process) and Ray actors rely on. Before Python 3.12
    # hash(None) is None's address, different in every process; a state holds many Nones
    # (no turn yet, no Carla, an empty market space), which `data.typed_hash` hashes as a
    # constant. Without it a resumed `small` counted 31,628 states for 31,598.
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", FINGERPRINTS, name, str(players)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        ).stdout
        for _ in range(2)
    ]
    assert int(runs[0].split()[0]) > 500
    assert runs[0] == runs[1]


def test_the_fingerprint_ignores_only_the_round_counter() -> None:
    state = roots(configuration("tiny").data, 2)[0].state
    assert fingerprint(replace(state, round=7)) == fingerprint(state)
    assert fingerprint(replace(state, start_player=1)) != fingerprint(state)


def test_the_seen_set_is_a_set_of_64_bit_fingerprints_in_at_most_16_bytes_each() -> None:
    seen = SeenSet(capacity=4)
    values = [(k * 0x9E3779B97F4A7C15) & ((1 << 64) - 1) for k in range(1, 20_001)]
    assert all(seen.add(v) for v in values)
    assert not any(seen.add(v) for v in values[::3])
    assert len(seen) == 20_000 and all(v in seen for v in values[::11])
    assert (12345 in seen) is False
    assert seen.bytes_per_state <= 16
    assert sorted(seen.keys()) == sorted(v - (1 << 64) if v >= 1 << 63 else v for v in values)
    assert collision_probability(1) == 0.0
    assert collision_probability(10**6) == pytest.approx(10**12 / 2 / 2**64, rel=1e-5)


def test_the_state_budget_stops_a_larger_game_with_a_clear_error() -> None:
    with pytest.raises(ExplorationLimitError, match=r"more than 500 distinct states .* raise --max-states"):
        explore(configuration("tiny").data, 2, max_states=500, check=False)


@pytest.mark.slow  # ~12 s: tiny explored, its three monitored products, and a --shape run
def test_the_command_line_explores_and_refuses_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["explore", "tiny", "--quiet", "--witnesses", str(tmp_path), "--expect"]) == 0
    out = capsys.readouterr().out
    assert f"states      {TINY_STATES:,} distinct" in out
    assert "expect      matches the pinned figures" in out
    # issue 40 item 6: what the verdicts are about, and which of them are vacuous there
    assert "scope       verdicts about tiny only, not the whole original-2011 game; it has action spaces " \
        "seeded 2 of 7 (grain harvest, market);" in out
    assert "end-market-trigger       unreachable by exhaustion" in out
    # the path queries with a monitor are decided on the product, the score pump without prestige
    assert "two-deaths-one-turn      reachable: shortest witness 7 actions" in out
    # no edge of tiny buys out of the bag (MASS-02) or travels (TRV-01): those are vacuous there
    assert "mass-one-buyer           vacuous: it needs MASS-02, which no edge" in out
    assert "markers-out-new-city     vacuous: it needs TRV-01, which no edge" in out
    assert "carla-two-customers      vacuous: it needs SOLO-10, which no edge" in out
    assert "score-pump               unreachable by exhaustion: no cycle" in out
    written = sorted(p.name for p in tmp_path.iterdir())
    monitored = {"two-deaths-one-turn", "mass-four-monks", "two-deaths-owed"}
    reached = {*PINNED["tiny", 2]["reachable"], *monitored}  # type: ignore[misc]
    assert written == sorted(f"tiny-2p-{q}.json" for q in reached)
    assert main(["explore", "tiny", "--max-states", "100", "--quiet"]) == 2  # refused before the work
    assert "tiny at 2 player(s) has 10,175 distinct states (pinned)" in capsys.readouterr().err
    copy = tmp_path / "copy" / "tiny.json"  # the same data, not the shipped file: no pin
    copy.parent.mkdir()
    copy.write_bytes(configuration("tiny").path.read_bytes())
    assert main(["explore", str(copy), "--max-states", "100", "--quiet"]) == 2  # stopped at the limit
    assert "more than 100 distinct states" in capsys.readouterr().err
    assert main(["explore", "tiny", "--players", "3"]) == 2
    assert "tiny is for 2 player(s), not 3" in capsys.readouterr().err
    assert main(["explore", "tiny", "--query", "no-such-query"]) == 2
    assert "no-such-query" in capsys.readouterr().err
    assert main(["explore", "src/no/such/file.json"]) == 2
    assert "no/such/file.json" in capsys.readouterr().err
    assert main(["explore", "tiny", "--max-states", "-3"]) == 2
    shape_run = ["explore", "tiny", "--no-check", "--shape", "--random-games", "40", "--no-monitors"]
    assert main([*shape_run, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "cycles      none: the graph is acyclic" in out
    assert "lasso                    unreachable by exhaustion" in out  # no cycle, no lasso
    assert "liveness    every state can still reach an end" in out
    assert "chronicle                0.7130 = 263086699/369008640   random games" in out
    assert main(["explore", "tiny", "--random-games", "-1"]) == 2
    assert main(["explore", "--list"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in shipped_names())


def test_a_whole_game_is_refused_unless_forced() -> None:
    from village_rules.data.shipped import shipped_folder  # noqa: PLC0415

    whole = shipped_folder("village_rules", "data") / "original-2011.json"
    whole_game = r"not a reduced configuration .* 11 members a player, 18 cubes"
    with pytest.raises(NotReducedError, match=whole_game):
        configuration(str(whole))
    assert configuration(str(whole), force=True).data.reduced is None


def test_every_query_says_what_it_reads() -> None:
    horizons = Counter(q.horizon for q in CATALOGUE)
    assert set(horizons) == {STEP, PATH}
    assert {q.name for q in CATALOGUE if q.horizon == PATH} == {
        "two-deaths-one-turn",
        "mass-four-monks",
        "mass-one-buyer",
        "lasso",
        "score-pump",
        "two-deaths-owed",
        "free-sale-not-first",
        "free-sale-amb-06-b",
        "carla-two-customers",
        "act-after-pass",
    }


def test_the_shipped_configurations_are_reduced_data_files_the_loader_accepts() -> None:
    assert shipped_names() == ["births", "large", "longer", "longest", "small", "solo", "tiny"]
    for name in shipped_names():
        config = configuration(name)
        assert config.data.reduced, name
        text = (CONFIGS / f"{name}.json").read_text(encoding="utf-8")
        assert "reconstructed: reduced configuration" in text


# --- the z3 model against exhaustion: the refinement link and the verdicts ---------------


@pytest.mark.slow  # ~5 s: the abstraction of every state of tiny
def test_the_refinement_link_holds_on_every_edge_of_tiny() -> None:
    result = explore(configuration("tiny").data, 2, check=False, refinement=True)
    assert result.edges_refined == result.edges == PINNED["tiny", 2]["edges"]
    assert result.violation_count == 0, result.violations


@pytest.mark.slow  # ~5 s: the abstraction of every state of tiny
def test_a_model_clause_the_engine_breaks_is_reported_on_the_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    # A planted model error: "the supply's grain never falls". The harvest takes grain from
    # it, so the link must name the clause on those edges.
    planted = dict(model.STEP_CLAUSES)
    planted["planted.grain never rises"] = lambda a, b, k, ops: b["grain_supply"] >= a["grain_supply"]
    monkeypatch.setattr(model, "STEP_CLAUSES", planted)
    result = explore(configuration("tiny").data, 2, check=False, refinement=True)
    assert result.violation_count > 0
    assert all(v.invariant == REFINEMENT for _, v in result.violations)
    assert "planted.grain never rises" in result.violations[0][1].actual


def test_no_query_the_explorer_reaches_is_proved_unreachable_by_z3(tiny: search.Exploration) -> None:
    data = configuration("tiny").data
    assert disagreements(data, 2, tiny) == []
    # what the model knows of the ground truth: none of tiny's 12 unreachable step queries
    # (9 of the first catalogue, 1a among them since queries are judged by rule events, and
    # 14, 15, 17 of proofs/catalogue/rule_queries.py)
    proves = model_proves(data, 2, tiny)
    assert len(proves) == 12 and not any(proves.values())
    assert {"death-during-mass", "market-day-during-mass", "trigger-final-action"} <= set(proves)


def test_a_wrong_abstract_predicate_is_caught_by_exhaustion() -> None:
    # z3 proves "false" unreachable at once; the concrete side holds on the first edge.
    planted = Query(
        "planted", "0", "a query whose abstract side is wrong", lambda v, k: z3.BoolVal(False), lambda h: True
    )
    data = configuration("tiny").data
    result = explore(data, 2, check=False, queries=[planted])
    assert result.verdicts["planted"].reachable
    (wrong,) = disagreements(data, 2, result, [planted])
    assert wrong.query == "planted" and "the model or the query's abstract predicate is wrong" in str(wrong)
