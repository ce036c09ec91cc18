"""Stage 1, catalogue: what is asked.

A `Query` (`query`) is one rule edge case stated twice: an abstract predicate over the
model's variables, for z3, and a concrete predicate over the real game path (a `History`),
for the engine; with the steer its witness search plays by, its rows (editions, player
counts) and its search budget. `catalogue` holds the catalogue (`CATALOGUE`, `by_name`),
`rule_queries` the market-day, mass and end queries (5b, 14-19), `user_queries` loads a
user's own queries from a file (`prove --queries FILE`).

Hands to the next stages: queries. The search (stage 2) looks for a game where a query's
concrete predicate holds; the model (3) decides its abstract predicate; the gate (5) checks
on real states that the concrete one implies the abstract one; the table (6) runs its rows.

Imports: a query is written in the vocabulary of the stages after it (the search's
`History` and `Steer`, the model's `Constants` and `Vars`), so in the import layers
(pyproject.toml, `[tool.importlinter]`) the catalogue sits above the search and the model,
although a row meets it first. This package's `__init__` imports nothing; what a user
writing a query needs is re-exported by `village_rules.proofs`.
"""
