"""`village-rules check`, the library's verification: its steps and outcome (`steps`), the
static HTML report (`report`) and its matplotlib plots (`plots`, the optional `report` extra).

`from village_rules.check import run_check, CheckContext, FuzzStep, …` is the supported entry
point; the names below are those of `village_rules.check.steps`.
"""

from __future__ import annotations

from village_rules.check.steps import (
    CheckContext,
    CheckOutcome,
    CheckStep,
    DivergenceStep,
    Finding,
    FuzzResult,
    FuzzStep,
    GameStats,
    LogsStep,
    ProofsStep,
    StepResult,
    default_steps,
    default_workers,
    format_outcome,
    run_check,
)

__all__ = [
    "CheckContext",
    "CheckOutcome",
    "CheckStep",
    "DivergenceStep",
    "Finding",
    "FuzzResult",
    "FuzzStep",
    "GameStats",
    "LogsStep",
    "ProofsStep",
    "StepResult",
    "default_steps",
    "default_workers",
    "format_outcome",
    "run_check",
]
