"""Regenerate the committed pictures of the README and the documentation site.

    python scripts/make_pictures.py          # write docs/images/*.svg
    python scripts/make_pictures.py --check  # exit 1 if a committed picture is stale

The pictures are drawn from seeded games, so they change only when the engine, the data or
the drawing changes; tests/test_doc_pictures.py fails when they are stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from village_rules import apply, builtin_edition
from village_rules.drivers.play import play_logged, replay
from village_rules.model.actions import parse_action
from village_rules.pictures.svg import actor_of, state_svg, travel_map_svg

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"

EXAMPLE_GAME = ("big-box-2023", 4, 5)
"""The README picture: this game (edition, players, seed) after `EXAMPLE_AT` actions."""
EXAMPLE_AT = 508


def pictures() -> dict[str, str]:
    """File name -> SVG text of every committed picture."""
    edition, players, seed = EXAMPLE_GAME
    final, log = play_logged(edition, players, seed)
    at = min(EXAMPLE_AT, len(log.actions))
    before = replay(log.initial_state(), log.actions[: at - 1])
    last = parse_action(log.actions[at - 1])
    middle = apply(before, last)
    before_end = replay(log.initial_state(), log.actions[:-1])
    return {
        "example-state.svg": state_svg(middle, last, actor_of(before)),
        "example-final.svg": state_svg(final, parse_action(log.actions[-1]), actor_of(before_end)),
        "travel-map.svg": travel_map_svg(builtin_edition(edition), middle),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="only compare with the committed files")
    args = parser.parse_args()
    stale = []
    for name, text in pictures().items():
        path = IMAGES / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        IMAGES.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if stale:
        print(f"stale: {', '.join(stale)}; run python scripts/make_pictures.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
