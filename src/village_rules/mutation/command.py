"""The mutation score's command line (`benchmarks/mutation_score.py`).

Exit 0 when the semantic score reaches `--floor` (default 0: no floor), 1 when it falls
below, 2 for bad input (an unknown mutant or layer, a stale patch, a bad option, a layer that
fails on the unmutated package)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from village_rules.mutation.corpus import CORPUS, MutationError, load_corpus, select
from village_rules.mutation.layers import LAYERS, layer_named
from village_rules.mutation.runner import HARD_CAP_SECONDS, matrix_text, reasons_text, run, sample


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        """Bad options exit 2 with the message, as argparse does, but through MutationError."""
        raise MutationError(message)


def parser() -> argparse.ArgumentParser:
    """The options."""
    p = _Parser(prog="mutation_score", description=__doc__)
    p.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus file (default: the shipped one)")
    p.add_argument("--mutant", action="append", default=[], help="run only this mutant (repeatable)")
    p.add_argument("--sample", type=int, default=None, help="a seeded sample of this many mutants")
    p.add_argument("--seed", type=int, default=25, help="the sample's seed")
    p.add_argument("--layers", default=None, help="comma-separated layers to run (default: all)")
    p.add_argument("--skip-layer", action="append", default=[], help="leave this layer out (repeatable)")
    p.add_argument(
        "--floor", type=float, default=0.0, help="fail (exit 1) below this semantic score, in percent"
    )
    p.add_argument("--jobs", type=int, default=1, help="mutants run at once")
    p.add_argument("--cap", type=float, default=HARD_CAP_SECONDS, help="hang guard per layer run, in seconds")
    p.add_argument(
        "--full-matrix",
        action="store_true",
        help="run the regression layers on every mutant (default: only on the semantic survivors)",
    )
    p.add_argument("--reasons", action="store_true", help="also print the reason of every kill")
    p.add_argument("--list", action="store_true", help="list the corpus and the layers, run nothing")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the mutation score; the exit status."""
    try:
        return _main(argv)
    except MutationError as exc:
        print(f"mutation_score: {exc}", file=sys.stderr)
        return 2


def _main(argv: Sequence[str] | None) -> int:
    args = parser().parse_args(argv)
    if not 0 <= args.floor <= 100:
        raise MutationError(f"--floor is a percentage, 0 to 100, not {args.floor}")
    if args.cap <= 0:
        raise MutationError(f"--cap must be positive, not {args.cap}")
    mutants = load_corpus(args.corpus)
    if args.mutant:
        mutants = select(mutants, args.mutant)
    if args.sample is not None:
        mutants = sample(mutants, args.sample, args.seed)
    try:
        layers = [layer_named(n) for n in args.layers.split(",")] if args.layers else list(LAYERS)
        skipped = [layer_named(n).name for n in args.skip_layer]
    except KeyError as exc:
        raise MutationError(str(exc.args[0])) from exc
    layers = [la for la in layers if la.name not in skipped]
    if not layers:
        raise MutationError("no layer left to run")
    if args.list:
        for m in mutants:
            print(f"{m.id}  [{m.rule}]  {m.file}: {m.breaks}")
        for la in layers:
            print(f"layer {la.name} ({la.kind.value}): {la.description}")
        return 0
    scores = run(
        mutants,
        layers,
        jobs=args.jobs,
        full_matrix=args.full_matrix,
        cap=args.cap,
        progress=lambda s: print(s, file=sys.stderr, flush=True),
    )
    print(matrix_text(scores))
    if args.reasons:
        print()
        print(reasons_text(scores))
    if 100 * scores.semantic < args.floor:
        print(
            f"mutation_score: the semantic score {100 * scores.semantic:.1f}% "
            f"is below the floor {args.floor:g}%"
        )
        return 1
    return 0
