"""The `--reading AMB-xx=letter` flag and the `ambiguities` and `diverge` commands (issue 9).

`village-rules ambiguities` lists the register (specs/ambiguities.md): each switchable
entry with its readings, the default per edition, the option name and its stored witness;
each other entry with the reason it is not an option.

`village-rules diverge AMB-xx [--edition E] [--players P]` searches for a short game in which
two readings of the entry differ (see `village_rules.readings.divergence`); `--write DIR` stores the
witness there. `village-rules diverge --all --write src/village_rules/readings/witnesses` regenerates every
stored witness.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from village_rules.cli.options import MAX_PLAYERS, seed, whole
from village_rules.cli.progress import add_quiet_flag, progress_bar
from village_rules.data.files import staged_folder
from village_rules.data.loader import EDITIONS
from village_rules.errors import ReadingError
from village_rules.readings.divergence import MAX_EXAMPLES, NoDivergenceError, search
from village_rules.readings.stored import (
    NO_WITNESS,
    WITNESSES,
    paragraph,
    witness_name,
    write_witness,
)
from village_rules.rules.register import (
    BIG_BOX,
    FIXED,
    NEVER_PART,
    READINGS,
    SOLO_READINGS,
    WITNESS_WANTED,
    parse_choice,
    reading,
)


def refuse_solo_readings(choices: tuple[tuple[str, str], ...], players: int, edition: str) -> None:
    """`ReadingError` for a solo-only reading (the register's `SOLO_READINGS`) chosen, other
    than its default, for a game of 2 or more players, where it would never act."""
    if players == 1:
        return
    for amb, letter in choices:
        entry = reading(amb)
        if amb in SOLO_READINGS and letter != entry.default(edition):
            title = entry.title.removesuffix(" (solo)")
            raise ReadingError(
                f"--reading {amb}={letter}: {amb}, {title}, is a reading of the solo mode against "
                f"Carla and never acts in a {players}-player game; play it with --players 1, or drop it"
            )


def add_reading_flag(p: argparse.ArgumentParser) -> None:
    """Add the repeatable `--reading AMB-xx=LETTER` option to a subcommand's parser."""
    p.add_argument(
        "--reading",
        action="append",
        default=[],
        metavar="AMB-xx=LETTER",
        help="play reading LETTER of a register entry (repeatable; see `village-rules ambiguities`)",
    )


def reading_choices(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The --reading choices (and the old --no-coins-at-well, i.e. AMB-01=b)."""
    choices: dict[str, str] = {}
    for text in args.reading:
        amb, letter = parse_choice(text)
        if amb in choices and choices[amb] != letter:
            raise ReadingError(f"--reading {amb} is given twice, as {choices[amb]} and {letter}")
        choices[amb] = letter
    if getattr(args, "no_coins_at_well", False):
        if choices.get("AMB-01", "b") != "b":
            raise ReadingError(
                "--no-coins-at-well is AMB-01=b and contradicts --reading AMB-01=" + choices["AMB-01"]
            )
        choices["AMB-01"] = "b"
    return tuple(sorted(choices.items()))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `ambiguities` and `diverge` subcommands to the command line's subparsers."""
    p = sub.add_parser("ambiguities", help="list the ambiguity register: readings, defaults, witnesses")
    p.set_defaults(func=_ambiguities)

    p = sub.add_parser("diverge", help="search a short game in which two readings of an AMB entry differ")
    p.add_argument("amb", nargs="?", help="the register entry, e.g. AMB-26")
    p.add_argument("--all", action="store_true", help="every switchable entry, every edition")
    p.add_argument("--edition", choices=EDITIONS, default=BIG_BOX, help="the edition (default: %(default)s)")
    p.add_argument(
        "--players", type=whole(1, MAX_PLAYERS), help="default 2; 1 (a solo game) for a solo reading"
    )
    p.add_argument("--seed", type=seed, default=0, help="the setup seed of the game (default: 0)")
    p.add_argument("--readings", help="the two letters to compare, e.g. a,c (default: default vs another)")
    p.add_argument(
        "--examples",
        type=whole(1, MAX_EXAMPLES),
        default=300,
        help=f"games tried before giving up (1 to {MAX_EXAMPLES:,}; default 300)",
    )
    p.add_argument(
        "--write", type=Path, metavar="DIR", help="store the witness (JSON + replayable logs) in DIR"
    )
    add_quiet_flag(p)
    p.set_defaults(func=_diverge)


def _ambiguities(args: argparse.Namespace) -> int:
    stored = sorted(p.stem for p in WITNESSES.glob("*.json") if not p.name.endswith(".log.json"))
    for entry in READINGS:
        print(f"{entry.amb}  {entry.title}")
        print(f"  option: --reading {entry.amb}=<letter>  (Variant readings, {entry.option})")
        for letter, meaning in entry.letters:
            print(f"  {letter}: {meaning}")
        defaults = ", ".join(f"{e} {entry.default(e)}" for e in EDITIONS)
        if entry.amb in SOLO_READINGS:
            defaults += " (solo only: inert in original-2011, which has no solo mode)"
        print(f"  default: {defaults}  ({entry.why_default})")
        for edition in EDITIONS:
            default = entry.default(edition)
            for other in (x for x in entry.letter_names if x != default):
                name = witness_name(entry.amb, edition, default, other)
                if name in stored:
                    status = f"village_rules/readings/witnesses/{name}.json"
                elif (entry.amb, edition, other) in NEVER_PART:
                    status = "no witness: " + NEVER_PART[entry.amb, edition, other]
                elif (entry.amb, edition, other) in WITNESS_WANTED:
                    status = "no witness yet: " + WITNESS_WANTED[entry.amb, edition, other]
                else:
                    status = NO_WITNESS
                print(f"  divergence {edition} {default}/{other}: {status}")
    for fixed in FIXED:
        kind = "readings do not change play"
        if fixed.plays_differently:
            kind = "changes play, selected outside --reading"
            if fixed.option_pending:
                kind = "changes play, not an option yet"
        print(f"{fixed.amb}  {fixed.title}")
        print(f"  {kind}: {fixed.why}")
    return 0


def _pairs(amb: str, edition: str, letters: str | None) -> list[tuple[str, str]]:
    entry = reading(amb)
    if letters:
        parts = [x.strip().lower() for x in letters.split(",")]
        if len(parts) != 2 or parts[0] == parts[1]:
            raise ReadingError(f"--readings {letters!r}: expected two different letters, e.g. a,b")
        for x in parts:
            if x not in entry.letter_names:
                raise ReadingError(
                    f"--readings {letters!r}: {amb} has no reading {x!r}"
                    f" (it has {', '.join(entry.letter_names)})"
                )
        return [(parts[0], parts[1])]
    default = entry.default(edition)
    return [(default, x) for x in entry.letter_names if x != default]


def _diverge(args: argparse.Namespace) -> int:
    if args.all:
        jobs = [(e.amb, ed, pair) for e in READINGS for ed in EDITIONS for pair in _pairs(e.amb, ed, None)]
    elif args.amb:
        jobs = [
            (args.amb.upper(), args.edition, pair)
            for pair in _pairs(args.amb.upper(), args.edition, args.readings)
        ]
    else:
        raise ReadingError("diverge: name an entry (e.g. AMB-26) or give --all")
    if args.write is None:
        return _search_all(args, jobs, None)
    with staged_folder(args.write, keep=True) as staging:  # the folder is swapped in whole at the end
        return _search_all(args, jobs, (staging, args.write))


def _search_all(
    args: argparse.Namespace, jobs: list[tuple[str, str, tuple[str, str]]], write: tuple[Path, Path] | None
) -> int:
    """Search every job; with `write` (staging folder, final folder) store each witness."""
    failed = 0
    with progress_bar(args.quiet, "") as bar:
        for k, (amb, edition, (left, right)) in enumerate(jobs, start=1):
            if args.all and (amb, edition, right) in NEVER_PART:
                continue  # the argument stands in for a witness
            players = args.players if args.players is not None else (1 if amb in SOLO_READINGS else 2)
            job = f"{amb} {edition} {left}/{right}" + (
                f" (entry {k} of {len(jobs)})" if len(jobs) > 1 else ""
            )

            def show(phase: str, done: int, total: int, job: str = job) -> None:
                unit = "games tried" if phase == "search" else "replays"
                bar.update(done, total, f"diverge {phase}", f"{unit}, {job}")

            try:
                w = search(
                    amb,
                    edition,
                    players,
                    letters=(left, right),
                    seed=args.seed,
                    examples=args.examples,
                    progress=show,
                )
            except NoDivergenceError as exc:
                with bar.above():
                    print(f"{amb} {edition} {left}/{right}: {exc}")
                failed += 1
                continue
            with bar.above():
                print(paragraph(w))
                if write is not None:
                    path = write_witness(w, write[0])
                    print(f"  written to {write[1] / path.name}")
    return 1 if failed and not args.all else 0
