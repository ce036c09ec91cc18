"""What the step-through viewer costs (not a test: figures vary by machine and load): the
time to draw one picture, and for a stored proof witness, a stored divergence witness and a
whole seeded game the time to tell the story (replay with every invariant checked, one
picture per step) and the size of the page `village-rules view` writes; then the report's
pages (the last `VIEWER_STEPS` actions of every stored witness), as `check` writes them.

    python benchmarks/bench_viewer.py [--pictures 50] [--no-report]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from village_rules.check.steps import VIEWER_STEPS, _viewer
from village_rules.check.stories import log_story, story_of_file
from village_rules.drivers.play import play_logged
from village_rules.pictures.svg import state_svg
from village_rules.pictures.viewer import viewer_html
from village_rules.proofs.table.stored import WITNESSES as PROOFS
from village_rules.readings.stored import WITNESSES as READINGS


def whole(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pictures", type=whole, default=50, help="pictures timed (default 50)")
    parser.add_argument("--no-report", action="store_true", help="skip the report's pages")
    args = parser.parse_args()

    final, log = play_logged("big-box-2023", 4, seed=2)
    state_svg(final)
    start = time.perf_counter()
    for _ in range(args.pictures):
        state_svg(final)
    each = (time.perf_counter() - start) / args.pictures
    print(f"one picture (4 players, the end of a game): {each * 1000:.1f} ms")

    cases = [
        ("proof witness", lambda: story_of_file(PROOFS / "11-no-living-member-acts-big-box-2023-2p.json")),
        ("divergence witness", lambda: story_of_file(READINGS / "AMB-01-big-box-2023-c-a.json")),
        ("a whole game (4 players)", lambda: log_story(log, "game")),
    ]
    for name, tell in cases:
        start = time.perf_counter()
        story = tell()
        told = time.perf_counter() - start
        page = viewer_html(story)
        steps = len(story.frames) - 1
        print(
            f"{name}: {steps} steps told in {told:.2f} s ({told / (steps + 1) * 1000:.1f} ms a step), "
            f"page {len(page) / 1e6:.2f} MB ({len(page) / (steps + 1) / 1000:.1f} kB a step)"
        )

    if not args.no_report:
        files = sorted(PROOFS.glob("*p.json")) + sorted(
            p for p in READINGS.glob("*.json") if not p.name.endswith(".log.json")
        )
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder)
            start = time.perf_counter()
            for path in files:
                _viewer(out, "pages", path)
            spent = time.perf_counter() - start
            size = sum(p.stat().st_size for p in out.rglob("*.html"))
        print(
            f"the report's pages: {len(files)} witnesses, last {VIEWER_STEPS} actions each: {spent:.1f} s, "
            f"{size / 1e6:.1f} MB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
