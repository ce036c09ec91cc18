"""The mutation score's command line (`benchmarks/mutation_score.py`).

One run scores two corpora apart: the hand-written rule mutants (`corpus.json`, floor
`--floor`) and the generated ones (`generated.json`, cosmic-ray's, floor `--generated-floor`).
Exit 0 when each semantic score reaches its floor (default 0: no floor), 1 when one falls
below, 2 for bad input (an unknown mutant or layer, a stale patch, a bad option, a layer that
fails on the unmutated package)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from village_rules.mutation.corpus import (
    CORPUS,
    GENERATED,
    GENERATED_CORPUS,
    HAND_WRITTEN,
    MutationError,
    load_corpus,
    load_generated,
    select,
)
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
    p.add_argument(
        "--generated",
        type=Path,
        default=GENERATED_CORPUS,
        help="the generated mutants' file (default: the shipped generated.json)",
    )
    p.add_argument("--no-generated", action="store_true", help="run the hand-written corpus only")
    p.add_argument("--no-hand-written", action="store_true", help="run the generated mutants only")
    p.add_argument("--mutant", action="append", default=[], help="run only this mutant (repeatable)")
    p.add_argument(
        "--sample", type=int, default=None, help="a seeded sample of this many hand-written mutants"
    )
    p.add_argument(
        "--generated-sample", type=int, default=None, help="a seeded sample of this many generated mutants"
    )
    p.add_argument("--seed", type=int, default=25, help="the sample's seed")
    p.add_argument("--layers", default=None, help="comma-separated layers to run (default: all)")
    p.add_argument("--skip-layer", action="append", default=[], help="leave this layer out (repeatable)")
    p.add_argument(
        "--floor",
        type=float,
        default=0.0,
        help="fail (exit 1) below this semantic score of the hand-written mutants, in percent",
    )
    p.add_argument(
        "--generated-floor",
        type=float,
        default=0.0,
        help="fail (exit 1) below this semantic score of the generated non-equivalent mutants, in percent",
    )
    p.add_argument("--jobs", type=int, default=1, help="mutants run at once")
    p.add_argument("--cap", type=float, default=HARD_CAP_SECONDS, help="hang guard per layer run, in seconds")
    p.add_argument(
        "--full-matrix",
        action="store_true",
        help="run the regression layers on every mutant (default: only on the semantic survivors)",
    )
    p.add_argument(
        "--first-kill",
        action="store_true",
        help="stop a mutant's semantic layers at the first that kills it (the semantic and checkers' "
        "scores stay whole, a layer's own count does not; CI's floor check)",
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
    for name, floor in (("--floor", args.floor), ("--generated-floor", args.generated_floor)):
        if not 0 <= floor <= 100:
            raise MutationError(f"{name} is a percentage, 0 to 100, not {floor}")
    if args.cap <= 0:
        raise MutationError(f"--cap must be positive, not {args.cap}")
    hand = () if args.no_hand_written else load_corpus(args.corpus)
    made = () if args.no_generated else load_generated(args.generated)
    if args.sample is not None:
        hand = sample(hand, args.sample, args.seed)
    if args.generated_sample is not None:
        made = sample(made, args.generated_sample, args.seed)
    mutants = (*hand, *made)
    if args.mutant:
        mutants = select(mutants, args.mutant)
    if not mutants:
        raise MutationError("no mutant left to run")
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
            print(f"{m.id}  [{m.rule}]  ({m.corpus})  {m.file}: {m.breaks}")
        for la in layers:
            print(f"layer {la.name} ({la.kind.value}): {la.description}")
        return 0
    scores = run(
        mutants,
        layers,
        jobs=args.jobs,
        full_matrix=args.full_matrix,
        first_kill=args.first_kill,
        cap=args.cap,
        progress=lambda s: print(s, file=sys.stderr, flush=True),
    )
    print(matrix_text(scores))
    if args.reasons:
        print()
        print(reasons_text(scores))
    status = 0
    for corpus, floor in ((HAND_WRITTEN, args.floor), (GENERATED, args.generated_floor)):
        part = scores.part(corpus)
        if part.results and 100 * part.semantic < floor:
            print(
                f"mutation_score: the semantic score of the {corpus} mutants "
                f"{100 * part.semantic:.1f}% is below the floor {floor:g}%"
            )
            status = 1
    return status
