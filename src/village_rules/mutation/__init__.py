"""Mutation testing of the verification: rule-breaking engine mutants kept as data
(`corpus.json`), applied to a temporary copy of the package, and each verification layer run
on every mutant in its own subprocess under a budget of games, steps, examples or states
(issue 25). `village_rules.mutation.runner` builds the kill matrix and the scores;
`benchmarks/mutation_score.py` is its command line.

Nothing here imports the rest of the package: every layer runs in a subprocess whose
`PYTHONPATH` points at the mutated copy, so the package under test is always the copy."""
