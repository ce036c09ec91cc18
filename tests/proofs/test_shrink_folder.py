"""`village-rules prove --shrink DIR`: the stored witnesses of a folder shrunk in place,
their notes and the table's lengths with them, idempotent, and all-or-nothing."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.drivers.play import GameLog
from village_rules.model.actions import format_action
from village_rules.proofs.search.search import attempt
from village_rules.proofs.search.shrink import is_minimal, judge_for
from village_rules.proofs.table import run
from village_rules.proofs.table.stored import WITNESSES, check_witness, witness_query
from village_rules.proofs.table.table import TABLE, read_table

STEM = "16b-free-sale-amb-06-b-big-box-2023-2p"


def _folder(tmp_path: Path) -> Path:
    """A `prove --out` folder whose witness is not shrunk: the stored witness (1-minimal
    since issue 41's regeneration) replaced by the whole steered game of its seed up to the
    query, as the search found it before the shrinker ran."""
    folder = tmp_path / "w"
    folder.mkdir()
    for suffix in (".json", ".md"):
        shutil.copy(WITNESSES / f"{STEM}{suffix}", folder)
    shutil.copy(WITNESSES / TABLE, folder)
    stored = GameLog.from_json((folder / f"{STEM}.json").read_text(encoding="utf-8"))
    query = witness_query(folder / f"{STEM}.json")
    assert query is not None
    e, n, seed = stored.edition, stored.players, stored.seed
    found = attempt(e, n, seed, query.steer, query.concrete, variant=query.variant)
    assert found is not None
    unshrunk = dataclasses.replace(stored, actions=tuple(format_action(a) for a in found.decisions))
    assert len(unshrunk.actions) > len(stored.actions)
    (folder / f"{STEM}.json").write_text(unshrunk.to_json() + "\n", encoding="utf-8")
    return folder


def test_prove_shrink_rewrites_the_witness_its_note_and_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    before = len(GameLog.from_json((folder / f"{STEM}.json").read_text(encoding="utf-8")).actions)
    assert main(["prove", "--shrink", str(folder)]) == 0
    out = capsys.readouterr().out
    path = folder / f"{STEM}.json"
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    after = len(log.actions)
    assert after < before
    assert f"{STEM}.json: {before} -> {after} actions" in out
    assert check_witness(path).passed
    query = witness_query(path)
    assert query is not None and is_minimal(log, judge_for(query))
    assert log.query == (query.name, "catalogue")
    note = (folder / f"{STEM}.md").read_text(encoding="utf-8")
    assert f"a `village-rules-log` of {after} actions" in note
    assert f"shrunk by delta debugging from {before} to {after} actions" in note
    assert f"    {after}: " in note  # "Last actions" ends with the shrunk game's last action
    row = read_table(folder / TABLE)[(query.name, "big-box-2023", 2)]
    assert row.depth == f"{after} actions"
    assert f"| {query.name} | big-box-2023 | 2 | reachable | {after} actions |" in (
        folder / "results.md"
    ).read_text(encoding="utf-8")
    # a second run finds nothing to remove and changes no file
    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert main(["prove", "--shrink", str(folder)]) == 0
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == files


def test_prove_shrink_refuses_a_broken_witness_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    path = folder / f"{STEM}.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["actions"] = raw["actions"][:10]  # replays, but the query does not hold at its end
    path.write_text(json.dumps(raw), encoding="utf-8")
    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert main(["prove", "--shrink", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: not a witness of free-sale-amb-06-b" in err and "does not hold" in err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == files
    assert main(["prove", "--shrink", str(tmp_path / "nowhere")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["prove", "lasso", "--shrink", str(folder)]) == 2
    assert "--shrink DIR takes no QUERY names" in capsys.readouterr().err


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_prove_expect_takes_stored_witnesses_as_they_are_and_shrinks_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """CI's `prove --expect` replays the stored witnesses: neither a search nor a shrink runs
    for a row whose stored witness still replays to its query."""
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("prove --expect searched or shrank a stored witness")

    monkeypatch.setattr(run, "shrink", refuse)
    monkeypatch.setattr(run, "search", refuse)
    args = ["prove", "shared-win", "--edition", "original-2011", "--players", "2"]
    assert main([*args, "--expect", str(WITNESSES / TABLE)]) == 0
    assert "the table matches" in capsys.readouterr().out


def test_prove_shrink_writes_the_same_files_on_either_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`prove --shrink --engine native` (the candidates judged on the core) and `--engine
    reference` write the same witness, note and table, byte for byte (issue 39 item 2)."""
    pytest.importorskip("village_rules.native.predicates")
    from village_rules.proofs.search import native_judge  # noqa: PLC0415 (with the extension only)

    natively: list[str] = []
    real = native_judge.shrink_natively

    def spy(log: GameLog, query: str, *args: object, **kwargs: object) -> object:
        natively.append(query)
        return real(log, query, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "shrink_natively", spy)
    folders = {}
    for engine in ("native", "reference"):
        (tmp_path / engine).mkdir()
        folders[engine] = _folder(tmp_path / engine)
        assert main(["prove", "--shrink", str(folders[engine]), "--engine", engine, "--quiet"]) == 0
    capsys.readouterr()
    assert natively == ["free-sale-amb-06-b"]  # the native run judged on the core, the reference run not
    names = sorted(p.name for p in folders["native"].iterdir())
    assert names == sorted(p.name for p in folders["reference"].iterdir())
    for name in names:
        assert (folders["native"] / name).read_bytes() == (folders["reference"] / name).read_bytes(), name


def test_a_note_whose_shrink_ran_out_says_what_a_later_shrink_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A witness already at the shrinker's fixpoint whose note still says its shrink ran out
    of budget: the witness is left as it is, the note now says it is 1-minimal."""
    folder = tmp_path / "w"
    folder.mkdir()
    for suffix in (".json", ".md"):
        shutil.copy(WITNESSES / f"{STEM}{suffix}", folder)
    note = folder / f"{STEM}.md"
    text = note.read_text(encoding="utf-8")
    assert run.MINIMAL_WORDS in text
    note.write_text(text.replace(run.MINIMAL_WORDS, run.NOT_MINIMAL_WORDS), encoding="utf-8")
    witness = (folder / f"{STEM}.json").read_bytes()
    assert main(["prove", "--shrink", str(folder), "--quiet"]) == 0
    capsys.readouterr()
    assert (folder / f"{STEM}.json").read_bytes() == witness
    now = note.read_text(encoding="utf-8")
    assert run.NOT_MINIMAL_WORDS not in now
    assert f"{run.MINIMAL_WORDS} (a later shrink of " in now and " engine steps found it)" in now


def test_prove_engine_native_without_the_core_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`prove --engine native` where the core is not built: a clear refusal naming the way to
    the reference engine, and the folder it was to shrink unchanged."""
    from village_rules.cli import prove as cli_prove  # noqa: PLC0415

    folder = tmp_path / "w"
    folder.mkdir()
    shutil.copy(WITNESSES / f"{STEM}.json", folder)
    before = (folder / f"{STEM}.json").read_bytes()
    monkeypatch.setattr(cli_prove, "native_built", lambda: False)
    assert main(["prove", "--shrink", str(folder), "--engine", "native"]) == 2
    err = capsys.readouterr().err
    assert "prove --engine: native: this install has no native core" in err and "--engine reference" in err
    assert "Traceback" not in err
    assert (folder / f"{STEM}.json").read_bytes() == before
