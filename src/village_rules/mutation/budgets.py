"""The budgets of the semantic layers, all counts (games, actions, examples, states), never
seconds: a verdict must not depend on the machine's speed. Read by `probes` (which runs
them) and `layers` (which describes them)."""

from __future__ import annotations

FUZZ_GAMES = 24
FUZZ_SEED = 2025
FUZZ_MAX_STEPS = 5_000
"""A game not over within this many actions is the fuzzer's `game.length` kill (no end)."""

MACHINE_EXAMPLES = 12
MACHINE_STEPS = 30

REFINEMENT_GAMES: tuple[tuple[str, int, int], ...] = (
    ("original-2011", 2, 1),
    ("big-box-2023", 3, 2),
    ("big-box-2023", 4, 3),
    ("original-2011", 4, 4),
)
REFINEMENT_MAX_STEPS = 5_000

LINK_GAMES_PER_ROW = 1
"""The rule-content link's games: `proofs.link.link.default_games(1)`, one seeded game per edition
and player count with the policies in turn (the gate `prove` opens before any verdict)."""
LINK_MAX_STEPS = 3_000

EXPLORE_CONFIGS: tuple[tuple[str, int, int], ...] = (("tiny", 2, 200_000),)
"""(configuration, players, most states): more states than that is a kill (no end in reach)."""

CONFORM_GAMES = 32
"""The `conform` layer's seeded games (4 per edition and player count, readings drawn), the
mutated copy served over the JSON-lines protocol and compared with the unmutated reference
at every step."""
CONFORM_SEED = 2025
CONFORM_STATES: tuple[tuple[str, int], ...] = (("tiny", 1_500), ("solo", 1_500))
"""Then the first this many states of these reduced configurations (breadth first, every
edge out of each): what random games rarely reach (a death into a full graveyard)."""
CONFORM_MAX_STEPS = 5_000
CONFORM_STEP_LIMIT = 20.0
"""Seconds the served copy may take to answer one request: a hang guard for a mutant that
loops inside one step (it is then killed with the reason), never a budget."""
CONFORM_CAP = 900.0
"""The layer run's hang guard, in seconds: its baseline is about 100 CPU seconds (two
processes: the reference and the served copy), over 300 s of wall time on 2 shared cores
under load, beyond the other layers' 150 s guard."""
