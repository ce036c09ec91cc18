"""`village-rules conform`: check an implementation of the game against the reference, step
by step (docs/conformance.md).

- `protocol`: the engine protocol (`Engine`) and what is compared at a step (`Observation`);
- `reference`: the reference engine behind that protocol;
- `wire`, `serve`, `client`: the versioned JSON-lines protocol on stdin/stdout, a server for
  any engine (`python -m village_rules.conform.serve`), and a subprocess client with a
  per-step time limit;
- `inputs`, `states`: seeded games, golden games, stored witnesses, every state of the
  shipped reduced configurations;
- `compare`, `runner`, `shrink`, `run`: the comparison, the run, ddmin, the report;
- `pack`: the reference's traces as a file, to check an implementation offline.
"""
