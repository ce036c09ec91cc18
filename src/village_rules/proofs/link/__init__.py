"""Stage 4, link: the engine never leaves the model, checked on real steps.

`refinement` (every engine step inside the counts model, on the fuzzer's games and the
Hypothesis machines), `link` (every engine sub-step inside the rule-content model:
`check_step`, `check_game`, `check_log`, `link_check`), `sample` (the link on `check`'s
games), `hunt` (a hunt for breaking steps by rare branches), `regressions` (every game that
ever broke a clause, replayed from the repository's `proofs/regressions/`), `coverage` (the
branches the checked steps exercised).

Hands to the next stage: the broken steps, each named by its clause and its step (or none),
with the branches covered, which the gate (stage 5) turns into its refusal or its pass.

Imports: the model (the clauses it checks) and the search (a game's path is a `History`;
the hunt plays the search's `options`). This package's `__init__` imports nothing.
"""
