"""Policies that play: deterministic given their RNG, with the call shape of
`village_rules.drivers.play.random_policy` (state, legal actions, rng) -> action, so
`play`, the fuzzer, `check`, the Hypothesis machine and the adapters can all use them.

`POLICIES` names them; `policy_named` looks one up with a clear error (docs/policies.md).
"""

from __future__ import annotations

from collections.abc import Callable

from village_rules.drivers.play import Policy, random_policy
from village_rules.errors import ParameterError
from village_rules.policies.greedy import greedy_policy
from village_rules.policies.planners import chronicle_planner, climber, traveller
from village_rules.policies.search import SearchPolicy

__all__ = ["POLICIES", "SearchPolicy", "policy_named"]

POLICIES: dict[str, Callable[[], Policy]] = {
    "random": lambda: random_policy,
    "greedy": lambda: greedy_policy,
    "chronicle": lambda: chronicle_planner,
    "traveller": lambda: traveller,
    "climber": lambda: climber,
    "search": SearchPolicy,
}
"""Each policy's name and a maker of a fresh instance (the search policy counts its
decisions, so each game gets its own)."""


def policy_named(name: str) -> Policy:
    """A fresh instance of the policy called `name`; `ParameterError` names the known ones."""
    maker = POLICIES.get(name)
    if maker is None:
        raise ParameterError("policy", f"no policy named {name!r}; the policies are {', '.join(POLICIES)}")
    return maker()
