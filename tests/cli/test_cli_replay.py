"""`village-rules replay` of the exhaustive explorer's witnesses (issue 28): written by a
real `explore tiny --witnesses` run, each says which query it shows, on which
configuration, and that the query's predicate holds after its last action, checked along
the replayed path; a log whose name claims what its game does not show is an error."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.cli.replay import explorer_witnessed
from village_rules.drivers.play import GameLog, play_logged, replay_log
from village_rules.explore.witnesses import holds_after, parse_witness_name, witness_name
from village_rules.proofs.catalogue.catalogue import CATALOGUE, by_name
from village_rules.proofs.errors import WitnessError

QUERIES = ("free-final-action", "two-deaths-owed")  # a one-step query, and a path query under AMB-23 b


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def witnesses(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shortest witnesses of two queries on `tiny`, as `explore --witnesses` writes them."""
    folder = tmp_path_factory.mktemp("explored")
    argv = ["explore", "tiny", "--no-check", "--quiet", "--witnesses", str(folder)]
    assert main(argv + [x for q in QUERIES for x in ("--query", q)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted(witness_name("tiny", 2, q) for q in QUERIES)
    return folder


def test_an_explorer_witness_says_its_query_configuration_and_that_the_query_holds(
    capsys: pytest.CaptureFixture[str], witnesses: Path
) -> None:
    path = witnesses / witness_name("tiny", 2, "free-final-action")
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0 and err == ""
    q = by_name("free-final-action")
    assert f"this is an explorer witness of query {q.number} (free-final-action): {q.title}" in out
    assert "configuration tiny (" in out and "tiny.json), 2 players, readings: the edition's defaults" in out
    n = len(log.actions)
    assert f"the query's predicate holds after its last action ({n} of {n})" in out
    assert "after no earlier action" in out
    assert "INCOMPLETE" not in out


def test_a_path_query_witness_is_checked_under_its_own_reading(
    capsys: pytest.CaptureFixture[str], witnesses: Path
) -> None:
    path = witnesses / witness_name("tiny", 2, "two-deaths-owed")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    assert "explorer witness of query 5b (two-deaths-owed)" in out and "readings: AMB-23=b" in out
    assert "INCOMPLETE" not in out
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    assert holds_after(log.initial_state(), log.actions, by_name("two-deaths-owed")) == [len(log.actions)]


def one_action_short(witness: Path, folder: Path) -> Path:
    """A copy of `witness` in `folder`, under the same name, without its last action."""
    raw = json.loads(witness.read_text(encoding="utf-8"))
    raw["actions"] = raw["actions"][:-1]
    copy = folder / witness.name
    copy.write_text(json.dumps(raw), encoding="utf-8")
    return copy


def test_a_witness_one_action_short_is_an_error_that_prints_nothing_else(
    capsys: pytest.CaptureFixture[str], witnesses: Path, tmp_path: Path
) -> None:
    name = witness_name("tiny", 2, "free-final-action")
    short = one_action_short(witnesses / name, tmp_path)
    code, out, err = run(capsys, "replay", str(short))
    assert code == 2 and out == "" and "Traceback" not in err
    assert name in err and "query 2 (free-final-action)" in err
    kept = len(json.loads(short.read_text(encoding="utf-8"))["actions"])
    assert f"does not hold after its last action ({kept})" in err


def test_a_witness_named_for_another_query_is_an_error(
    capsys: pytest.CaptureFixture[str], witnesses: Path, tmp_path: Path
) -> None:
    wrong = tmp_path / witness_name("tiny", 2, "two-deaths-owed")
    shutil.copy(witnesses / witness_name("tiny", 2, "free-final-action"), wrong)
    code, out, err = run(capsys, "replay", str(wrong))
    assert code == 2 and out == ""
    assert "query 5b (two-deaths-owed)" in err and "it holds after none" in err


def test_a_witness_named_for_other_players_or_other_data_is_an_error(
    capsys: pytest.CaptureFixture[str], witnesses: Path, tmp_path: Path
) -> None:
    seats = tmp_path / witness_name("tiny", 3, "free-final-action")
    shutil.copy(witnesses / witness_name("tiny", 2, "free-final-action"), seats)
    code, out, err = run(capsys, "replay", str(seats))
    assert code == 2 and out == "" and "for 3 players, but the log seats 2" in err
    _, log = play_logged("original-2011", 2, seed=1, max_steps=5)  # the shipped edition, not tiny
    other = tmp_path / witness_name("tiny", 2, "shared-win")
    other.write_text(log.to_json(), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(other))
    assert code == 2 and out == "" and "the shipped configuration tiny" in err and "other data" in err


def test_a_query_that_also_held_earlier_is_said_so(witnesses: Path) -> None:
    path = witnesses / witness_name("tiny", 2, "free-final-action")
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    named = parse_witness_name(path.name)
    assert named is not None
    always = replace(named, query=replace(named.query, concrete=lambda history: True))
    said = explorer_witnessed(path, log, always)
    n = len(log.actions)
    assert f"already after action(s) {', '.join(str(k) for k in range(1, n))}" in said
    never = replace(named, query=replace(named.query, concrete=lambda history: False))
    with pytest.raises(WitnessError, match="it holds after none"):
        explorer_witnessed(path, log, never)


def test_witness_names_are_read_back_and_other_names_are_not_witnesses() -> None:
    for q in CATALOGUE:
        named = parse_witness_name(witness_name("my-config", 4, q.name))
        assert named is not None and (named.configuration, named.players, named.query) == ("my-config", 4, q)
    for other in (
        "game.json",
        "tiny-2p.json",
        "tiny-xp-shared-win.json",
        "-2p-shared-win.json",
        "11-no-living-member-acts-big-box-2023-2p.json",
        "tiny-2p-no-such-query.json",
    ):
        assert parse_witness_name(other) is None, other


def test_an_ordinary_log_still_says_where_it_stops(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, log = play_logged("original-2011", 2, seed=1, max_steps=5)
    path = tmp_path / "game.json"
    path.write_text(log.to_json(), encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "INCOMPLETE: the log stops before the end of the game, after 5 actions" in out
    assert "witness" not in out


def test_where_a_log_stops_names_the_acting_seat_once() -> None:
    """The pending step's words already name the seat: "waiting for seat 0: choose which
    ... dies", not "waiting for seat 0: seat 0: ..."."""
    _, log = play_logged("original-2011", 2, seed=1)
    said = replay_log(replace(log, actions=log.actions[:40])).describe()
    assert "waiting for seat 0: choose which of the lowest-numbered family members dies" in said
    assert said.count("seat 0") == 1


def test_a_data_file_configurations_witness_is_named_by_the_files_stem() -> None:
    """`explore FILE --witnesses` names the witness by the data file's stem, so it is
    written inside the witnesses folder (the path's slashes took it elsewhere), and the
    name reads back."""
    name = witness_name("some/folder/mine.json", 2, "free-final-action")
    assert name == "mine-2p-free-final-action.json"
    parsed = parse_witness_name(name)
    assert parsed is not None and parsed.configuration == "mine" and parsed.players == 2


def test_view_tells_an_explorer_witness_and_highlights_its_last_step(
    capsys: pytest.CaptureFixture[str], witnesses: Path, tmp_path: Path
) -> None:
    # it was "game log", nothing highlighted, and the edition's name for the configuration
    path = witnesses / witness_name("tiny", 2, "free-final-action")
    n = len(GameLog.from_json(path.read_text(encoding="utf-8")).actions)
    q = by_name("free-final-action")
    page = tmp_path / "w.html"
    code, out, err = run(capsys, "view", str(path), "--out", str(page))
    assert code == 0 and err == ""
    assert out.startswith(f"explorer witness of query {q.number} on configuration tiny, {n} actions: ")
    assert f"step {n} highlighted: query {q.number} holds here: {q.title}" in out
    html = page.read_text(encoding="utf-8")
    assert "configuration tiny, 2 players" in html and "original-2011, 2 players" not in html


def test_view_of_an_explorer_witness_whose_query_does_not_hold_highlights_nothing(
    capsys: pytest.CaptureFixture[str], witnesses: Path, tmp_path: Path
) -> None:
    short = one_action_short(witnesses / witness_name("tiny", 2, "free-final-action"), tmp_path)
    code, out, _ = run(capsys, "view", str(short), "--out", str(tmp_path / "w.html"))
    assert code == 0 and out.startswith("explorer witness of query 2 on configuration tiny")
    assert "highlighted" not in out


def test_a_shipped_configurations_witness_names_its_data_the_same_on_every_machine(
    capsys: pytest.CaptureFixture[str], witnesses: Path, tmp_path: Path
) -> None:
    name = witness_name("tiny", 2, "free-final-action")
    raw = json.loads((witnesses / name).read_text(encoding="utf-8"))
    assert raw["data_file"] == "village_rules:explore/configs/tiny.json"  # not a site-packages path
    # a log written before, with the absolute path of another machine's install, still replays
    raw["data_file"] = "/elsewhere/lib/python3.12/site-packages/village_rules/explore/configs/tiny.json"
    (tmp_path / name).write_text(json.dumps(raw), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(tmp_path / name))
    assert code == 0 and err == "" and "explorer witness of query 2" in out


@pytest.mark.parametrize("bad", ["village_rules:", "village_rules:../../etc/passwd", "village_rules:/etc/x"])
def test_a_package_data_file_outside_the_package_is_refused(
    capsys: pytest.CaptureFixture[str], witnesses: Path, tmp_path: Path, bad: str
) -> None:
    raw = json.loads((witnesses / witness_name("tiny", 2, "free-final-action")).read_text(encoding="utf-8"))
    raw["data_file"] = bad
    (tmp_path / "game.json").write_text(json.dumps(raw), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(tmp_path / "game.json"))
    assert code == 2 and out == "" and "Traceback" not in err
    assert (
        f"field 'data_file' is {bad!r}: after 'village_rules:' it must give a path inside the package" in err
    )
