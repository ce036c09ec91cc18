"""Stage 2, search: the reachable side, a witness the engine plays.

`history` (a game path by sub-steps, as concrete predicates read it), `search` (seeded games
under a query's `Steer`, giving a `Witness`), `archive_steer` with `archive_target`
(`prove --z3-steer`: a Go-Explore search with no hand-written steer, its cells cut by z3's
macro target over the counts model), `shrink` (a witness cut down to one a person can read,
1-minimal under removal).

Hands to the next stages: a witness, a `GameLog` the engine replays to the query's concrete
predicate, which the table (stage 6) stores as the row's "reachable" (no proof is tried on
it); the states its searches reach feed the gate (5) too. `History` and `Steer` are also
the catalogue's (1) vocabulary.

Imports: the model only (the archive's macro target is stated over the counts model); the
shrinker reads a query through a Protocol of its own (`shrink.Judged`), not the catalogue's
`Query`. This package's `__init__` imports nothing.
"""
