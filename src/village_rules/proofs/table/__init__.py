"""Stage 6, table: the verdicts.

`run` (`prove`: one row's verdict and its artefacts; per row it runs the proofs of the model
(stage 3), the gate (5) for a proof found, then the search (2)), `table` (the stored verdict
table, `proofs/witnesses/results.json` at the repository top, and `prove --expect`),
`stored` (re-checking what was stored: every witness replayed to its query, every proof
proved again).

Hands on: `Result`s, witnesses, notes, proofs and the table, to the command line
(`village-rules prove`, `replay`, `check`); no other stage imports it (it is the top of the
package's layers). This package's `__init__` imports nothing.
"""
