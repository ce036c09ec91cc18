"""The `view` command: a step-through page of a game log, a fuzz failure log, a proof
witness or a divergence witness, written as one self-contained HTML file.

`register(subparsers)` adds the command to the `village-rules` parser.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from village_rules.check.stories import story_of_file
from village_rules.cli.replay import add_queries_option
from village_rules.data.files import check_writable, refuse_inputs, write_text
from village_rules.pictures.viewer import viewer_html
from village_rules.proofs.catalogue.user_queries import load_queries


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `view` subcommand to the command line's subparsers."""
    p = sub.add_parser(
        "view",
        help="a step-through HTML page of a game log or witness (the board after each action)",
        description=(
            "Write one self-contained HTML page (no server, no network) that steps through LOG: "
            "the board after each action, previous/next buttons and a slider, the action in words "
            "and the rule IDs it fired. The step the file is about is highlighted: where a proof "
            "witness's query holds, where a divergence witness's readings part, where a fuzz "
            "failure breaks an invariant."
        ),
    )
    p.add_argument(
        "log",
        type=Path,
        metavar="LOG",
        help="a game log (play --log), a fuzz failure log, a proof witness (prove --out) "
        "or a divergence witness (diverge --write)",
    )
    p.add_argument(
        "--out", type=Path, help="the page to write (default: LOG's name with .html, in the current folder)"
    )
    add_queries_option(p)
    p.set_defaults(func=_view)


def default_page(log: Path) -> Path:
    """`game.json` -> `game.html`, `AMB-01-x.a.log.json` -> `AMB-01-x.a.log.html`, in the current folder."""
    return Path(log.with_suffix(".html").name)


def _view(args: argparse.Namespace) -> int:
    out: Path = args.out if args.out is not None else default_page(args.log)
    refuse_inputs(out, [args.log])
    check_writable(out)
    user = None if args.query_file is None else load_queries(args.query_file)
    story = story_of_file(args.log, queries=user)
    write_text(out, viewer_html(story), inputs=[args.log])
    where = f"; step {story.highlight} highlighted: {story.note}" if story.highlight is not None else ""
    print(f"{story.kind}, {story.first + len(story.frames) - 1} actions: page written to {out}{where}")
    return 0
