"""Stage 3, model: the unreachable side, two abstractions of the engine and z3 over each.

The counts model: `abstraction` (alpha: a state as named counts), `model` (the clauses of
one step over them: `Constants`, `Vars`, `STATE_CLAUSES`, `STEP_CLAUSES`), decided by
`solver` (BMC and k-induction). The rule-content model, which extends it: `content`
(alpha_c: the counts plus the pending step, the market day, the turn's path variables, the
scoring) and `guarded` (one guarded command per kind of action, every counts clause
included), decided by `induction` (k-induction, `RULE_PREDICATES`). Why there are two: the
package's docstring (`village_rules.proofs`).

Hands to the next stages: a proof that a query's abstract predicate is unreachable (or an
abstract path up to the bound), which the table (stage 6) prints only when the link (4) and
the gate (5) held in the same run; and the clauses and abstraction functions the link checks
the engine's real steps against.

Imports: no other stage; it is the bottom of the package's layers. This package's
`__init__` imports nothing.
"""
