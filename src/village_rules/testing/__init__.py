"""Property-based testing tools for Village: Hypothesis strategies, the `VillageMachine`
stateful test, and settings profiles.

Importing this package registers two Hypothesis settings profiles (it loads neither):

- ``"ci"`` (the default of `profile_settings`): a few dozen examples of a few dozen steps,
  so the stateful test takes seconds; no deadline (a step plays a whole engine transition).
- ``"long"``: many examples and long runs, for nightly or pre-release runs. If the
  environment variable ``VILLAGE_HYPOTHESIS_DB`` names a directory, failing examples are
  saved there (a `DirectoryBasedExampleDatabase`), so every machine that shares the
  directory replays them first; without it neither profile keeps an example database (no
  ``.hypothesis/`` directory shared by parallel test workers or left between runs).

How to load them:

- per test: ``TestVillage.settings = profile_settings()`` or ``@profile_settings()`` on a
  ``@given`` test — the profile named by ``VILLAGE_HYPOTHESIS_PROFILE``, else ``"ci"``;
- for a whole pytest session: call ``village_rules.testing.load_profile()`` in
  ``tests/conftest.py`` (it reads the same variable), or import this package there and run
  ``pytest --hypothesis-profile=long``;
- from the shell: ``VILLAGE_HYPOTHESIS_PROFILE=long VILLAGE_HYPOTHESIS_DB=.hypothesis/village
  pytest -m slow``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from village_rules.testing.machine import VillageMachine
from village_rules.testing.strategies import (
    GameRun,
    GameSetup,
    editions,
    finished_games,
    game_runs,
    game_setups,
    illegal_actions_of,
    legal_actions_of,
    next_actions,
    player_counts,
    reachable_states,
    setups,
    variants,
)

CI = "ci"
LONG = "long"
PROFILE_ENV = "VILLAGE_HYPOTHESIS_PROFILE"
DATABASE_ENV = "VILLAGE_HYPOTHESIS_DB"

_SLOW_IS_FINE = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
"""No `Phase.explain`: on a game of a few hundred actions it replays for minutes, and the
replayable log says more than its comments would."""

settings.register_profile(
    CI,
    database=None,
    max_examples=60,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=_SLOW_IS_FINE,
    phases=_PHASES,
    print_blob=True,
)

settings.register_profile(
    LONG,
    database=None,
    max_examples=2_000,
    stateful_step_count=400,
    deadline=None,
    suppress_health_check=_SLOW_IS_FINE,
    phases=_PHASES,
    print_blob=True,
)
if os.environ.get(DATABASE_ENV):
    settings.register_profile(
        LONG,
        parent=settings.get_profile(LONG),
        database=DirectoryBasedExampleDatabase(os.environ[DATABASE_ENV]),
    )


def profile_name() -> str:
    """The profile chosen by ``VILLAGE_HYPOTHESIS_PROFILE`` (default ``"ci"``)."""
    return os.environ.get(PROFILE_ENV, CI)


def profile_settings(name: str | None = None) -> settings:
    """The settings of a registered profile (default: `profile_name()`)."""
    return settings.get_profile(name or profile_name())


def load_profile(name: str | None = None) -> None:
    """Make a profile the default for every Hypothesis test of the session."""
    settings.load_profile(name or profile_name())


__all__ = [
    "CI",
    "DATABASE_ENV",
    "LONG",
    "PROFILE_ENV",
    "GameRun",
    "GameSetup",
    "VillageMachine",
    "editions",
    "finished_games",
    "game_runs",
    "game_setups",
    "illegal_actions_of",
    "legal_actions_of",
    "load_profile",
    "next_actions",
    "player_counts",
    "profile_name",
    "profile_settings",
    "reachable_states",
    "setups",
    "variants",
]
