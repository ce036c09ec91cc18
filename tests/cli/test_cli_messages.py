"""Issue 28: what the command line says when it is given the wrong file, a missing one, bad
JSON, or a proof witness (through `main([...])`: stderr, exit code, no traceback)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from village_rules.adapters.golden import GOLDEN_FORMAT
from village_rules.cli.main import main
from village_rules.data.jsonio import JsonInputError, read_json
from village_rules.drivers.artefacts import KNOWN_FORMATS
from village_rules.drivers.play import LOG_FORMAT, play_logged
from village_rules.drivers.serialization import STATE_FORMAT, from_json, to_json
from village_rules.engine.setup import new_game
from village_rules.errors import StateFormatError
from village_rules.fuzz.guided_report import GUIDED_FORMAT
from village_rules.fuzz.report import REPORT_FORMAT
from village_rules.proofs.table.stored import WITNESSES, witness_query
from village_rules.proofs.table.table import FORMAT as TABLE_FORMAT
from village_rules.readings.stored import WITNESSES as READING_WITNESSES

WITNESS = "11-no-living-member-acts-big-box-2023-2p.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_an_unterminated_string_is_said_once_at_its_place() -> None:
    with pytest.raises(JsonInputError) as info:
        read_json('{"a": 1,\n "b": "abc', 1000, "game log")
    assert info.value.problem == "not valid JSON: Unterminated string starting at line 2 column 7"
    assert "at at" not in info.value.problem


def test_other_json_errors_keep_their_position() -> None:
    with pytest.raises(JsonInputError) as info:
        read_json('{"a" 1}', 1000, "game log")
    assert info.value.problem == "not valid JSON: Expecting ':' delimiter at line 1 column 6"


def test_a_missing_file_is_a_sentence(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    code, _, err = run(capsys, "replay", str(missing))
    assert code == 2
    assert err.strip() == f"village-rules: {missing}: there is no such file or folder"
    assert "Errno" not in err


def test_a_folder_given_as_a_file_is_a_sentence(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path))
    assert code == 2
    assert err.strip() == f"village-rules: {tmp_path}: this is a folder; a file was expected"


def test_replaying_a_fuzz_report_says_what_it_is(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    argv = ["fuzz", "--games", "2", "--seed", "3", "--workers", "1", "--quiet", "--json", str(report)]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "replay", str(report))
    assert code == 2 and out == ""
    assert "this is a fuzz report (read it with `village-rules fuzz-merge`)" in err
    assert "unknown field" not in err


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("AMB-01-big-box-2023-c-a.json", "this is a readings witness"),
        ("../../data/original-2011.json", "this is an edition data file (give it to a command with `--data`"),
    ],
)
def test_replaying_other_artefacts_says_what_they_are(
    capsys: pytest.CaptureFixture[str], name: str, says: str
) -> None:
    code, _, err = run(capsys, "replay", str(READING_WITNESSES / name))
    assert code == 2
    assert says in err and "unknown field" not in err


def test_replaying_a_stored_proof_names_its_query(capsys: pytest.CaptureFixture[str]) -> None:
    proof = WITNESSES / "9-grain-short-at-harvest-big-box-2023-2p.proof.json"
    code, _, err = run(capsys, "replay", str(proof))
    assert code == 2
    assert "this is a stored unreachability proof of query 'grain-short-at-harvest'" in err


def test_replaying_a_saved_state_says_it_is_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(to_json(new_game("original-2011", 2, 0)), encoding="utf-8")
    code, _, err = run(capsys, "replay", str(state))
    assert code == 2 and "this is a saved game state (draw it with `village-rules show`" in err
    assert "`village_rules.from_json` reads it" in err  # the real loader, not a made-up name


def test_a_log_read_as_a_state_says_it_is_a_log() -> None:
    _, log = play_logged("original-2011", 2, 1)
    with pytest.raises(StateFormatError, match="not a saved state: this is a game log"):
        from_json(log.to_json())


def test_the_known_formats_are_the_writers_own() -> None:
    assert set(KNOWN_FORMATS) == {
        LOG_FORMAT,
        STATE_FORMAT,
        REPORT_FORMAT,
        GOLDEN_FORMAT,
        TABLE_FORMAT,
        GUIDED_FORMAT,
        "village-rules-witness",
        "village-rules-edition",
    }
    witness = json.loads((READING_WITNESSES / "AMB-01-big-box-2023-c-a.json").read_text("utf-8"))
    assert witness["format"] == "village-rules-witness"


def test_replaying_a_proof_witness_says_its_query_holds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", str(WITNESSES / WITNESS))
    assert code == 0
    assert "this is a witness of query 11 (no-living-member-acts)" in out
    assert "the query holds at its last step" in out
    assert "INCOMPLETE" not in out


def test_a_proof_witness_that_no_longer_holds_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """One action fewer: the query does not hold at the end, so the file's name claims what
    its game does not show: exit 2, naming the file, the query and what fails (as an
    explorer witness in that case)."""
    raw = json.loads((WITNESSES / WITNESS).read_text("utf-8"))
    raw["actions"] = raw["actions"][:-1]
    copy = tmp_path / WITNESS
    copy.write_text(json.dumps(raw), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(copy))
    assert code == 2
    assert "this is a witness" not in out
    assert str(copy) in err and "named as a witness of query 11 (no-living-member-acts)" in err
    assert "does not end in the situation" in err


def test_only_witness_names_name_a_query(tmp_path: Path) -> None:
    assert witness_query(Path(WITNESS)) is not None
    assert witness_query(Path("11-no-living-member-acts-big-box-2023-2p.proof.json")) is None
    assert witness_query(Path("my-game.json")) is None
    shutil.copy(WITNESSES / WITNESS, tmp_path / "game.json")
    assert witness_query(tmp_path / "game.json") is None


def _log_with(tmp_path: Path, name: str, **changes: object) -> Path:
    raw = json.loads(play_logged("big-box-2023", 2, 1)[1].to_json())
    raw.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_replay_names_the_file_of_a_log_that_cannot_be_set_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _log_with(tmp_path, "nine.json", players=9)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"village-rules: {path}: the game the log sets up cannot be made: SET-01: ")
    assert "not 9" in err


def test_replay_names_the_file_of_an_illegal_action(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    actions = json.loads(play_logged("big-box-2023", 2, 1)[1].to_json())["actions"]
    path = _log_with(tmp_path, "illegal.json", actions=[*actions[:5], "serve 7"])
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"village-rules: {path}: ") and "'serve 7' is not allowed: action 6 of 6" in err


def test_replay_names_the_file_and_the_spaces_of_a_bad_space_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    actions = json.loads(play_logged("big-box-2023", 2, 1)[1].to_json())["actions"]
    path = _log_with(tmp_path, "space.json", actions=[*actions[:5], "take nowhere pink"])
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2
    assert err.startswith(f"village-rules: {path}: action 6 of 6: 'take nowhere pink': unknown action space ")
    assert "'nowhere' (one of: grain_harvest, family, crafts, market" in err
    assert "is not a valid ActionSpace" not in err  # Python's enum message


def test_explore_of_an_unknown_configuration_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explore", "nosuch")
    assert code == 2 and out == ""
    assert err.startswith(
        "village-rules: unknown configuration nosuch "
        "(known: births, large, longer, longest, small, solo, tiny"
    )
    assert "or a path to a data file" in err and "<top level>" not in err


def test_fuzz_merge_of_a_game_log_says_it_is_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _log_with(tmp_path, "game.json")
    code, _, err = run(capsys, "fuzz-merge", str(path))
    assert code == 2
    assert err == f"village-rules: {path}: format: not a fuzz report: this is {KNOWN_FORMATS[LOG_FORMAT]}\n"
    assert "unknown field" not in err


@pytest.mark.parametrize("command", ["replay", "view", "fuzz-merge"])
def test_the_proof_table_is_named_by_every_reader(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    table = WITNESSES / "results.json"
    code, _, err = run(
        capsys, command, str(table), *(["--out", str(tmp_path / "t.html")] if command == "view" else [])
    )
    assert code == 2 and f"this is {KNOWN_FORMATS[TABLE_FORMAT]}" in err
    assert "unknown field" not in err and "field 'format' is" not in err
