"""Stage 5, gate: no "unreachable" is printed unless the link held in the same run.

`gate` (`open_gate`, `Gate`): in the run that proves, it plays the link's games, replays its
regression inputs and runs its hunt (stage 4), and checks concrete(s) => abstract(alpha(s))
for every query on the states it reaches; `Gate.refusal(query)` says why a proof of that
query must not be printed.

Hands to the next stage: the open or refusing `Gate`, which the table (stage 6) asks before
it prints a row z3 proved as "unreachable".

Imports: the link, the model, the search (`History`) and the catalogue (`Query`). This
package's `__init__` imports nothing.
"""
