"""`python -m village_rules.conform.serve [--engine module:attr]`: an engine served over the
JSON-lines protocol (`wire`) on stdin/stdout, the reference's by default.

The reference's `hello` names the package folder it was imported from, so a caller can
check which copy answers (the mutation runner serves mutated copies this way)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from village_rules.conform.loading import load_engine
from village_rules.conform.protocol import ConformError, Engine
from village_rules.conform.reference import ReferenceEngine
from village_rules.conform.wire import serve

REFERENCE_NAME = "village-rules reference"


def reference_name() -> str:
    """The reference's name in `hello`: with the folder of the package that answers."""
    return f"{REFERENCE_NAME} at {Path(__file__).resolve().parents[1]}"


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until `quit` or the end of input; 2 for an engine that cannot be loaded."""
    parser = argparse.ArgumentParser(prog="python -m village_rules.conform.serve", description=__doc__)
    parser.add_argument("--engine", help="serve this engine (module:attr) instead of the reference")
    args = parser.parse_args(argv)
    engine: Engine
    if args.engine:
        try:
            engine = load_engine(args.engine)
        except ConformError as exc:
            print(f"serve: {exc}", file=sys.stderr)
            return 2
        name = args.engine
    else:
        engine, name = ReferenceEngine(), reference_name()
    return serve(engine, name)


if __name__ == "__main__":
    sys.exit(main())
