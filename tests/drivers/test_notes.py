"""drivers/notes.py: the `.md` notes beside the stored proof witnesses read in the
rulebook's words (no engine repr), are what their witness logs render to today, and a
note left with the old rendering is found stale and rewritten."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from village_rules.data.shipped import shipped_folder
from village_rules.drivers import notes

WITNESSES = shipped_folder("village_rules.proofs", "witnesses")
ENGINE_REPR = re.compile(r"\b[A-Z][A-Za-z]*\(|\[['\d]")
"""`ClassName(` or a Python list of strings or numbers (`['c1'`, `[8`)."""


def witness_notes() -> list[Path]:
    return [
        p
        for p in sorted(WITNESSES.glob("*.md"))
        if p.with_suffix(".json").is_file() and "Last actions" in p.read_text()
    ]


def test_every_stored_witness_note_is_in_words() -> None:
    found = witness_notes()
    assert len(found) >= 100
    for path in found:
        text = path.read_text(encoding="utf-8")
        assert not ENGINE_REPR.search(text), (path.name, ENGINE_REPR.search(text))
        assert "waiting for: " in text


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_every_stored_witness_note_is_what_its_log_renders_to() -> None:
    assert notes.stale_notes(WITNESSES, write=False) == []


def test_a_note_with_the_old_reprs_is_stale_and_rewritten(tmp_path: Path) -> None:
    name = "10-markers-out-new-city-big-box-2023-2p"
    for suffix in (".json", ".md"):
        shutil.copy(WITNESSES / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    note = tmp_path / f"{name}.md"
    good = note.read_text(encoding="utf-8")
    old = re.sub(r"waiting for: .*", "waiting for: ChooseTurn(seat=1)", good)
    note.write_text(old, encoding="utf-8")
    assert ENGINE_REPR.search(old)
    assert notes.main([str(tmp_path), "--check"]) == 1
    assert note.read_text(encoding="utf-8") == old  # --check changes nothing
    assert notes.main([str(tmp_path)]) == 0
    assert note.read_text(encoding="utf-8") == good
    assert notes.main([str(tmp_path), "--check"]) == 0


def test_a_folder_that_is_not_there_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert notes.main([str(tmp_path / "nowhere")]) == 2
    assert "not a folder of witnesses" in capsys.readouterr().err


def test_a_notes_last_actions_are_numbered_from_1_as_prove_counts_them() -> None:
    # the note of a 230-action witness listed its last action as "229: ..." while prove,
    # replay, show --at and the viewer say 230
    actions = ("birth", "harvest", "birth")
    lines = notes.last_actions(actions)
    assert [line.split(":")[0].strip() for line in lines] == ["1", "2", "3"]
    name = "10-markers-out-new-city-big-box-2023-2p"
    note = (WITNESSES / f"{name}.md").read_text(encoding="utf-8")
    n = len(json.loads((WITNESSES / f"{name}.json").read_text(encoding="utf-8"))["actions"])
    assert f"of {n} actions" in note
    listed = note.partition(notes.LAST_ACTIONS)[2].partition(notes.FINAL_SITUATION)[0].split()
    # the last 8 actions, numbered n-7 .. n
    assert f"{n}:" in listed and f"{n - 8}:" not in listed and f"{n - 7}:" in listed
