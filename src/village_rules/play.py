"""Supported entry point `village_rules.play`: playing and replaying games, the game log,
`random_policy`.

The code lives in `village_rules.drivers.play`; this module re-exports its public names so
that imports of `village_rules.play` keep working (docs/api.md, "Entry points").
"""

from __future__ import annotations

from village_rules.drivers.play import (
    LOG_FORMAT,
    LOG_FORMAT_VERSION,
    GameLog,
    LogFormatError,
    Policy,
    Replayed,
    play,
    play_logged,
    random_policy,
    replay,
    replay_log,
    step,
)

__all__ = [
    "LOG_FORMAT",
    "LOG_FORMAT_VERSION",
    "GameLog",
    "LogFormatError",
    "Policy",
    "Replayed",
    "play",
    "play_logged",
    "random_policy",
    "replay",
    "replay_log",
    "step",
]
