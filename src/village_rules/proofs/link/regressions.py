"""Stage: link (its regression inputs).

The link's regression inputs: every game that ever broke a clause, replayed on every run.

The folder `proofs/regressions/` at the top of the repository (shipped in the package as
`village_rules/proofs/regressions/`) holds `village-rules-log` files, one game each.
The gate (`gate.open_gate`) replays every one of them through the link (`link.check_log`)
before any proof is printed, so a model fixed once stays fixed. A game found breaking a
clause (by the link's games, its search, or from outside) is added with `keep`.

A game may be known to break a clause until a fix lands elsewhere: `EXPECTED_BREAKS` names
it, the clause it breaks and why. Such a game does not fail the gate while it breaks that
clause, and the gate line says so; once it passes, the gate line says that too, and the
entry is to be removed (the tests mark it strict xfail, so a pass is noticed).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from village_rules.data.files import write_text
from village_rules.data.jsonio import MAX_LOG_CHARS, read_text_file
from village_rules.data.shipped import shipped_folder
from village_rules.drivers.play import GameLog
from village_rules.proofs.link.link import BrokenStep, check_log

REGRESSIONS = shipped_folder("village_rules.proofs", "regressions")
"""The folder of the link's regression inputs: the clone's `proofs/regressions/`, shipped with
the package as `village_rules/proofs/regressions/`."""

EXPECTED_BREAKS: dict[str, tuple[str, str]] = {}
"""File name -> (the clause it is known to break, why and until when). Empty: the two
merged-turn games of issue 41 broke the turn clause until `apply` reported its sub-steps
and the link checked them (`engine.events`); they pass since."""


@dataclass(frozen=True, slots=True)
class RegressionResult:
    """The link on every regression input."""

    games: int
    steps: int
    broken: tuple[tuple[str, BrokenStep], ...]
    """Games breaking a clause they are not known to break (the gate fails)."""
    expected: tuple[tuple[str, BrokenStep], ...]
    """Games breaking the clause `EXPECTED_BREAKS` names for them (tolerated, reported)."""
    fixed: tuple[str, ...]
    """Games `EXPECTED_BREAKS` names that no longer break anything (remove their entries)."""

    @property
    def passed(self) -> bool:
        """True when no game breaks a clause it is not known to break."""
        return not self.broken

    def __str__(self) -> str:
        head = f"{self.games} regression games ({self.steps} steps)"
        parts = []
        if self.broken:
            parts.append("FAILED: " + "; ".join(f"{name}: {b}" for name, b in self.broken))
        if self.expected:
            names = ", ".join(name for name, _ in self.expected)
            parts.append(f"{len(self.expected)} break as expected until fixed ({names})")
        if self.fixed:
            parts.append(f"{len(self.fixed)} known breaks now pass: {', '.join(self.fixed)}")
        return head + (": " + "; ".join(parts) if parts else " in the model")


def regression_logs(folder: Path = REGRESSIONS) -> list[tuple[str, GameLog]]:
    """Every regression input (file name, log), in file-name order."""
    out = []
    for path in sorted(folder.glob("*.json")):
        text = read_text_file(path, MAX_LOG_CHARS, "game log")
        out.append((path.name, GameLog.from_json(text, source=str(path))))
    return out


def check_regressions(
    folder: Path = REGRESSIONS, expected: dict[str, tuple[str, str]] | None = None
) -> RegressionResult:
    """Replay every regression input through the link."""
    known = EXPECTED_BREAKS if expected is None else expected
    broken: list[tuple[str, BrokenStep]] = []
    tolerated: list[tuple[str, BrokenStep]] = []
    fixed: list[str] = []
    games = steps = 0
    for name, log in regression_logs(folder):
        n, step = check_log(log)
        games += 1
        steps += n
        clause = known.get(name, ("", ""))[0]
        if step is None:
            if name in known:
                fixed.append(name)
        elif clause and step.clauses == (clause,):
            tolerated.append((name, step))
        else:
            broken.append((name, step))
    return RegressionResult(games, steps, tuple(broken), tuple(tolerated), tuple(fixed))


def keep(log: GameLog, name: str, folder: Path = REGRESSIONS) -> Path:
    """Store a game that broke a clause as a regression input (`name` without `.json`)."""
    path = folder / f"{name}.json"
    write_text(path, log.to_json() + "\n")
    return path
