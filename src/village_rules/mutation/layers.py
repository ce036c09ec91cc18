"""The verification layers a mutant is run against, each as one subprocess.

A probe layer runs `village_rules.mutation.probes` inside the mutated copy (first on
`PYTHONPATH`), which prints its verdict as its last line: `SURVIVED`, or `KILLED: <reason>`.
Any other ending (a traceback, an import that fails, a non-zero exit) is a kill too, with the
last line of the output as its reason. A pytest layer is killed by any failure.
Every budget is a count (games, actions, examples, states), so a verdict never depends on the
machine's speed; the runner's hard time cap only guards against a hang, and a layer that hits
it is reported as killed with the reason "timeout".

Semantic layers check the rules themselves (what a user's own engine would be run under);
regression layers compare with stored artefacts (logs, witnesses, counts) and would not see a
rule bug in a new rule or in a user's engine."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from village_rules.mutation import budgets as b


class Kind(Enum):
    """Whether a layer checks the rules (semantic) or compares with stored results (regression)."""

    SEMANTIC = "semantic"
    REGRESSION = "regression"


@dataclass(frozen=True)
class Layer:
    """One verification layer: its name, kind, and either a probe (`probes.PROBES`) or the
    arguments of a pytest run (exit 0: survived; anything else: killed)."""

    name: str
    kind: Kind
    description: str
    probe: str | None = None
    pytest_args: tuple[str, ...] = ()
    reference_side: bool = False
    cap: float | None = None
    """Its own hang guard in seconds, when it needs more than the runner's (`conform`)."""
    """The probe runs on the unmutated package and reaches the mutated copy itself (the
    `conform` layer serves the copy in a child process); otherwise it runs inside the copy."""

    def command(self, python: str) -> list[str]:
        """The subprocess's argument list for the given interpreter."""
        if self.probe is not None:
            return [python, "-m", "village_rules.mutation.probes", self.probe]
        return [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *self.pytest_args]


RULE_TESTS = (
    "tests/engine/test_time_and_death.py",
    "tests/engine/test_market_day.py",
    "tests/engine/test_end_of_game.py",
    "tests/engine/test_crafts.py",
    "tests/engine/test_travel.py",
    "tests/engine/test_council_chamber.py",
    "tests/engine/test_church.py",
    "tests/engine/test_mass.py",
    "tests/engine/test_harvest.py",
    "tests/engine/test_family.py",
    "tests/engine/test_turn_and_well.py",
    "tests/engine/test_scoring.py",
    "tests/engine/test_setup.py",
    "tests/engine/test_solo.py",
)

LAYERS: tuple[Layer, ...] = (
    Layer(
        "fuzz",
        Kind.SEMANTIC,
        f"invariants under the fuzzer: {b.FUZZ_GAMES} games from seed {b.FUZZ_SEED}, "
        f"at most {b.FUZZ_MAX_STEPS} actions each",
        probe="fuzz",
    ),
    Layer(
        "machine",
        Kind.SEMANTIC,
        f"the Hypothesis machine, derandomized: {b.MACHINE_EXAMPLES} examples "
        f"of at most {b.MACHINE_STEPS} steps",
        probe="machine",
    ),
    Layer(
        "refinement",
        Kind.SEMANTIC,
        f"the z3 refinement link on {len(b.REFINEMENT_GAMES)} seeded games, "
        f"at most {b.REFINEMENT_MAX_STEPS} actions each",
        probe="refinement",
    ),
    Layer(
        "link",
        Kind.SEMANTIC,
        f"the rule-content model's link (prove's gate) on {b.LINK_GAMES_PER_ROW} seeded game per "
        f"edition and player count, at most {b.LINK_MAX_STEPS} actions each",
        probe="link",
    ),
    Layer(
        "explore",
        Kind.SEMANTIC,
        "the exhaustive explorer's invariants, deadlocks and ends on "
        + ", ".join(f"{n} ({p} players, at most {m} states)" for n, p, m in b.EXPLORE_CONFIGS),
        probe="explore",
    ),
    Layer(
        "conform",
        Kind.SEMANTIC,
        f"village-rules conform: the mutated copy served over the JSON-lines protocol and compared "
        f"with the unmutated reference at every step of {b.CONFORM_GAMES} seeded games from seed "
        f"{b.CONFORM_SEED} (every edition and player count, readings drawn), at most "
        f"{b.CONFORM_MAX_STEPS} actions each, then the first "
        + " and ".join(f"{n:,} states of {c}" for c, n in b.CONFORM_STATES)
        + " (every edge out of each)",
        probe="conform",
        reference_side=True,
        cap=b.CONFORM_CAP,
    ),
    Layer(
        "rules",
        Kind.SEMANTIC,
        "the rule tests: " + ", ".join(t.rsplit("/", 1)[1] for t in RULE_TESTS),
        pytest_args=RULE_TESTS,
    ),
    Layer(
        "golden",
        Kind.REGRESSION,
        "the golden logs replayed",
        pytest_args=("tests/adapters/test_golden.py", "tests/engine/test_engine_golden.py"),
    ),
    Layer(
        "witnesses",
        Kind.REGRESSION,
        "the stored divergence witnesses still diverge",
        pytest_args=("tests/readings/test_witnesses.py",),
    ),
    Layer(
        "pinned",
        Kind.REGRESSION,
        "the explorer's pinned counts",
        pytest_args=("tests/explore/test_explore.py",),
    ),
)
"""Every layer, semantic first, in the kill matrix's column order."""


def layer_named(name: str) -> Layer:
    """The layer of that name; `KeyError` naming the known ones otherwise."""
    for layer in LAYERS:
        if layer.name == name:
            return layer
    raise KeyError(f"unknown layer {name!r}; the layers are {', '.join(la.name for la in LAYERS)}")
