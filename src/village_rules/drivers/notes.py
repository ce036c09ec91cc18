"""The `.md` note written beside each stored proof witness (`proofs/witnesses/*.md`): its
"Last actions" and "Final situation" blocks, in the rulebook's words (`render`,
`action_words`) rather than engine reprs, and the refresh of stored notes when that
rendering changes, from the witness log beside each note (the log is the artefact; the
note is its reading).

`python -m village_rules.drivers.notes [FOLDER]` rewrites the stale notes of FOLDER (the
package's stored witnesses by default); `--check` only names them and exits 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from village_rules.data.files import write_text
from village_rules.data.jsonio import MAX_LOG_CHARS, read_text_file
from village_rules.data.shipped import shipped_folder
from village_rules.drivers.play import GameLog, replay
from village_rules.errors import LogFormatError
from village_rules.model.actions import parse_action
from village_rules.model.render import action_words, render
from village_rules.model.state import GameState

LAST_ACTIONS = "Last actions:"
FINAL_SITUATION = "Final situation:"
SHOWN_ACTIONS = 8
"""How many of the last actions a note lists."""


def last_actions(actions: tuple[str, ...] | list[str]) -> list[str]:
    """The note's "Last actions" lines: the action's number, counted from 1 as `prove`
    ("N actions"), `replay`, `show --at` and the viewer count (the last line is the N-th),
    the log's notation, the rulebook's words."""
    first = max(0, len(actions) - SHOWN_ACTIONS)
    return [
        f"    {k}: {text} — {action_words(parse_action(text))}"
        for k, text in enumerate(actions[first:], start=first + 1)
    ]


def final_situation(state: GameState) -> list[str]:
    """The note's "Final situation" lines: the text picture, indented as a code block."""
    return [("    " + line).rstrip() for line in render(state).splitlines()]


def tail(actions: tuple[str, ...] | list[str], final: GameState) -> list[str]:
    """Both blocks as a note ends: what `proofs.table.run` writes after the query's explanation."""
    return [LAST_ACTIONS, "", *last_actions(actions), "", FINAL_SITUATION, "", *final_situation(final), ""]


def refreshed(note: str, log: GameLog) -> str:
    """`note` with its two blocks written again from `log` (everything before them kept)."""
    head, found, _ = note.partition(LAST_ACTIONS + "\n")
    if not found:
        raise LogFormatError(f"the note has no {LAST_ACTIONS!r} block to refresh")
    final = replay(log.initial_state(), log.actions)
    return head + "\n".join(tail(log.actions, final))


def stale_notes(folder: Path, write: bool) -> list[Path]:
    """The notes in `folder` (each `X.md` beside a witness log `X.json`) whose blocks differ
    from their log's rendering; rewritten when `write`."""
    out: list[Path] = []
    for note_path in sorted(folder.glob("*.md")):
        log_path = note_path.with_suffix(".json")
        note = note_path.read_text(encoding="utf-8")
        if LAST_ACTIONS + "\n" not in note or not log_path.is_file():
            continue  # a proof's note or the results table: no witness log to render
        log = GameLog.from_json(read_text_file(log_path, MAX_LOG_CHARS, "witness log"), str(log_path))
        new = refreshed(note, log)
        if new != note:
            out.append(note_path)
            if write:
                write_text(note_path, new)
    return out


def main(argv: list[str] | None = None) -> int:
    """The command: 0 when done (or nothing stale), 1 when `--check` finds stale notes, 2
    when FOLDER or a log in it cannot be read."""
    parser = argparse.ArgumentParser(prog="python -m village_rules.drivers.notes", description=__doc__)
    parser.add_argument("folder", nargs="?", type=Path, help="default: the package's stored proof witnesses")
    parser.add_argument("--check", action="store_true", help="only name the stale notes; exit 1 if any")
    args = parser.parse_args(argv)
    folder: Path = args.folder or shipped_folder("village_rules.proofs", "witnesses")
    if not folder.is_dir():
        print(f"{folder}: not a folder of witnesses", file=sys.stderr)
        return 2
    try:
        stale = stale_notes(folder, write=not args.check)
    except LogFormatError as exc:
        print(f"{folder}: {exc}", file=sys.stderr)
        return 2
    verb = "stale" if args.check else "rewritten"
    for path in stale:
        print(f"{verb}: {path.name}")
    print(f"{len(stale)} note(s) {verb} in {folder}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
