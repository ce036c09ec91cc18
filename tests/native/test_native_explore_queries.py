"""The native explorer's verdicts on the catalogue's `STEP` queries (issue 40, items 3 and 4):
`explore_counts(config, queries=True)` judges every `STEP` query after every sub-step of
every edge in C++ (cpp/predicates.cpp, tied predicate by predicate in
test_native_predicates.py), and its verdicts are the Python explorer's on the shipped
configurations: the same queries reachable, each with a shortest witness of the same length
(the very same witness on one thread, where both loops expand in the same order), which
replays on the reference to an edge that meets the query; the others unreachable by
exhaustion. The `PATH` queries with a monitor are decided on the product of the graph and
the monitor's value (`explore_counts(monitor=)`), as `explore(monitor=)` decides them: the
product's counts, the verdict and the witness are the Python explorer's. A planted predicate
(query 2 never holds natively) and a planted monitor (four monks after three) each change a
verdict, named.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from village_rules.engine.core import apply, apply_steps
from village_rules.explore.configs import configuration
from village_rules.explore.monitors import MONITORS
from village_rules.explore.native import explore_counts, monitor_verdict, monitor_verdicts, query_verdicts
from village_rules.explore.search import Exploration, QueryVerdict, explore, roots
from village_rules.proofs.catalogue.catalogue import CATALOGUE, by_name
from village_rules.proofs.catalogue.query import STEP
from village_rules.proofs.search.history import History
from village_rules.rules.variant import Variant

STEP_QUERIES = [q for q in CATALOGUE if q.horizon == STEP]


def verdict_differences(name: str, workers: int = 1, plant: str = "") -> list[str]:
    """Where the native explorer's `STEP` verdicts on the configuration differ from the Python
    explorer's, in words (empty when they tie); each native witness is also replayed."""
    config = configuration(name)
    native = query_verdicts(config.data, explore_counts(name, queries=True, workers=workers, plant=plant))
    python = python_verdicts(name)
    out: list[str] = []
    for q in STEP_QUERIES:
        mine, theirs = native[q.name], python[q.name]
        if mine.reachable != theirs.reachable:
            out.append(f"{name} {q.name}: native reachable={mine.reachable}, Python {theirs.reachable}")
        elif mine.witness is not None and theirs.witness is not None:
            lengths = len(mine.witness[1]), len(theirs.witness[1])
            if lengths[0] != lengths[1]:
                out.append(f"{name} {q.name}: native witness {lengths[0]} actions, Python {lengths[1]}")
            elif workers == 1 and mine.witness != theirs.witness:
                out.append(f"{name} {q.name}: another witness of the same length on one thread")
            if not _meets(name, mine):
                out.append(f"{name} {q.name}: the native witness does not meet the query on the reference")
    return out


@cache
def python_run(name: str) -> Exploration:
    """The Python explorer's run judging the `STEP` queries and collecting the rules fired
    on the configuration (once per process)."""
    config = configuration(name)
    return explore(config.data, config.player_counts[0], queries=STEP_QUERIES, check=False, rules=True)


def python_verdicts(name: str) -> dict[str, QueryVerdict]:
    """The Python explorer's `STEP` verdicts on the configuration."""
    return python_run(name).verdicts


def _meets(name: str, verdict: QueryVerdict) -> bool:
    """Whether the witness's last edge meets its query after some sub-step (as `expand`
    judges it: a history begun at the edge's source)."""
    assert verdict.witness is not None
    config = configuration(name)
    root, actions = verdict.witness
    state = roots(config.data, config.player_counts[0])[root].state
    for action in actions[:-1]:
        state = apply(state, action)
    history = History([state])
    query = by_name(verdict.query)
    for sub in apply_steps(state, actions[-1]):
        history.push_sub(sub)
        if query.concrete(history):
            return True
    return False


def test_the_native_verdicts_on_tiny_are_the_python_explorer_s() -> None:
    assert verdict_differences("tiny") == []


@pytest.mark.slow  # the Python explorer's verdicts: about 6 s
def test_the_native_verdicts_on_solo_are_the_python_explorer_s() -> None:
    assert verdict_differences("solo") == []


@pytest.mark.slow
@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand"): 8-10 s each
@pytest.mark.parametrize("name", ["small", "births"])
def test_the_native_verdicts_on_a_larger_configuration_are_the_python_explorer_s(name: str) -> None:
    assert verdict_differences(name) == []


@pytest.mark.slow
def test_the_native_verdicts_on_two_threads_have_witnesses_of_the_same_lengths() -> None:
    assert verdict_differences("tiny", workers=2) == []


def test_the_reachable_step_queries_of_tiny_are_pinned() -> None:
    config = configuration("tiny")
    native = query_verdicts(config.data, explore_counts("tiny", queries=True))
    reachable = {q for q, v in native.items() if v.reachable}
    assert reachable == {"free-final-action", "grain-short-at-harvest", "shared-win"}


def test_a_planted_predicate_changes_a_verdict_and_is_named() -> None:
    assert verdict_differences("tiny", plant="free-final-action never holds") == [
        "tiny free-final-action: native reachable=False, Python True"
    ]


def test_the_rules_a_native_run_fires_are_the_python_explorer_s() -> None:
    # issue 40 item 6: a query none of whose rules an edge fires is vacuous, natively too,
    # so the native run collects the rule IDs its edges fire (their rule events) as the
    # Python explorer collects `apply`'s trace
    native = explore_counts("tiny", queries=True, workers=2)
    assert native.rules_fired is not None and native.rules_fired == python_run("tiny").rules_fired
    assert "MKT-01" in native.rules_fired and "TRV-01" not in native.rules_fired
    # a product run folds its monitors on every edge, so it collects them too
    product = explore_counts("tiny", monitor="mass-four-monks")
    assert product.rules_fired == native.rules_fired
    # a run that judges nothing collects nothing, rather than a part
    assert explore_counts("tiny").rules_fired is None


def test_queries_with_a_checkpoint_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not kept in a checkpoint"):
        explore_counts("tiny", queries=True, checkpoint=tmp_path / "x.ckpt")


# --- the PATH queries on their monitors' products ---------------------------------------------


@cache
def python_product(name: str, monitor: str) -> Exploration:
    """The Python explorer's run on the product with `monitor`, under its query's readings."""
    config = configuration(name)
    query = by_name(monitor)
    return explore(
        config.data,
        config.player_counts[0],
        queries=[query],
        check=False,
        monitor=MONITORS[monitor],
        variant=query.variant,
    )


def product_differences(name: str, monitor: str, plant: str = "") -> list[str]:
    """Where the native product run with `monitor` differs from the Python explorer's: its
    counts, its query's verdict and witness (empty when they tie)."""
    config = configuration(name)
    query = by_name(monitor)
    native = explore_counts(name, monitor=monitor, variant=query.variant, plant=plant)
    python = python_product(name, monitor)
    out = []
    mine = (native.states, native.edges, native.depth, dict(native.terminal))
    theirs = (python.states, python.edges, python.depth, dict(python.terminal))
    if mine != theirs:
        out.append(f"{name} {monitor}: the product's counts native {mine}, Python {theirs}")
    verdict = monitor_verdict(config.data, native)
    assert verdict is not None
    expected = python.verdicts[monitor]
    if verdict.witness != expected.witness:
        lengths = [None if w is None else len(w[1]) for w in (verdict.witness, expected.witness)]
        out.append(f"{name} {monitor}: native witness of {lengths[0]} actions, Python {lengths[1]}")
    return out


def test_a_monitor_s_product_on_tiny_is_the_python_explorer_s() -> None:
    assert product_differences("tiny", "mass-four-monks") == []


def test_a_planted_monitor_changes_a_witness_and_is_named() -> None:
    assert product_differences("tiny", "mass-four-monks", plant="mass-four-monks holds after three") == [
        "tiny mass-four-monks: native witness of 7 actions, Python 8"
    ]


@pytest.mark.slow  # about 11 s: eight Python product runs
@pytest.mark.parametrize("monitor", sorted(MONITORS))
def test_every_monitor_s_product_on_tiny_is_the_python_explorer_s(monitor: str) -> None:
    assert product_differences("tiny", monitor) == []


@pytest.mark.slow
@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand"): 24 Python product runs, minutes
@pytest.mark.parametrize("monitor", sorted(MONITORS))
@pytest.mark.parametrize("name", ["solo", "small", "births"])
def test_every_monitor_s_product_on_a_larger_configuration_is_the_python_explorer_s(
    name: str, monitor: str
) -> None:
    assert product_differences(name, monitor) == []


# --- several monitors on one product ----------------------------------------------------------


def combined_differences(name: str, plant: str = "") -> list[str]:
    """Where the native product with every monitor that shares the default readings gives a
    query another verdict or witness length than that monitor's own native product (empty
    when they tie); each witness of the combined run is also replayed on the reference."""
    config = configuration(name)
    shared = [m for m in sorted(MONITORS) if by_name(m).variant == Variant()]
    combined = monitor_verdicts(config.data, explore_counts(name, monitors=shared, plant=plant))
    out = []
    for monitor in shared:
        alone = monitor_verdict(config.data, explore_counts(name, monitor=monitor))
        assert alone is not None
        lengths = [None if v.witness is None else len(v.witness[1]) for v in (combined[monitor], alone)]
        if lengths[0] != lengths[1]:
            out.append(f"{name} {monitor}: combined witness of {lengths[0]} actions, alone {lengths[1]}")
        elif combined[monitor].witness is not None and not _meets_path(name, combined[monitor]):
            out.append(f"{name} {monitor}: the combined witness does not meet the query on the reference")
    return out


def _meets_path(name: str, verdict: QueryVerdict) -> bool:
    """Whether the `PATH` query holds after some sub-step of the witness's last action, judged
    on the whole game by its Python predicate (a history from the root, sub-step by sub-step)."""
    assert verdict.witness is not None
    config = configuration(name)
    root, actions = verdict.witness
    query = by_name(verdict.query)
    history = History([roots(config.data, config.player_counts[0], query.variant)[root].state])
    met = False
    for action in actions:
        met = False
        for sub in apply_steps(history.last, action):
            history.push_sub(sub)
            met = met or query.concrete(history)
    return met


def test_one_product_of_every_default_monitor_decides_each_query_as_its_own_product() -> None:
    # the command line explores one product for the monitors that share their readings: a
    # breadth-first walk of any product meets each query after the fewest actions a game needs
    assert combined_differences("tiny") == []


@pytest.mark.slow  # about 5 s: solo's seven products
def test_one_product_of_every_default_monitor_decides_each_query_on_solo() -> None:
    assert combined_differences("solo") == []


def test_a_planted_monitor_in_the_combined_product_is_named() -> None:
    assert combined_differences("tiny", plant="mass-four-monks holds after three") == [
        "tiny mass-four-monks: combined witness of 7 actions, alone 8"
    ]


def test_bad_monitors_are_refused_before_the_work() -> None:
    with pytest.raises(ValueError, match="not both"):
        explore_counts("tiny", monitor="mass-four-monks", monitors=["mass-one-buyer"])
    with pytest.raises(ValueError, match="no native monitor for 'no-such'"):
        explore_counts("tiny", monitors=["mass-four-monks", "no-such"])
    with pytest.raises(ValueError, match="a monitor named twice"):
        explore_counts("tiny", monitors=["mass-four-monks", "mass-four-monks"])
