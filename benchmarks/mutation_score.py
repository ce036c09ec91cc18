"""The mutation score of the verification (issue 25): every hand-written rule mutant of
`src/village_rules/mutation/corpus.json` run against every verification layer, each in its
own subprocess on a mutated copy of the package, under a budget of games, steps, examples or
states. Prints the kill matrix, the semantic and all-layers scores and the survivors.

    .venv/bin/python benchmarks/mutation_score.py --jobs 2            # the whole corpus
    .venv/bin/python benchmarks/mutation_score.py --sample 8 --floor 90 --skip-layer golden ...

See docs/verification.md ("How strong is the verification?")."""

from __future__ import annotations

import sys

from village_rules.mutation.command import main

if __name__ == "__main__":
    sys.exit(main())
