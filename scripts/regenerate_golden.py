"""Rewrite the golden playthroughs under tests/golden/ from the current engine.

    .venv/bin/python scripts/regenerate_golden.py

Run it only when a change of the games is intended (a rule, reading or data change), and
review `git diff --stat tests/golden/` with it: tests/adapters/test_golden.py fails on any
difference until then.
"""

from __future__ import annotations

from pathlib import Path

from village_rules.adapters.golden import write_all


def main() -> None:
    directory = Path(__file__).resolve().parents[1] / "tests" / "golden"
    for path in write_all(directory):
        lines = path.read_text(encoding="utf-8").count("\n")
        print(f"wrote {path.relative_to(directory.parents[1])}: {lines} lines, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
