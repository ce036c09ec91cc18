"""The `village-rules` command run in-process, and the game log's JSON format (GameLog)."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import village_rules
import village_rules.drivers.play as play_module
from village_rules import (
    ActionSyntaxError,
    IllegalActionError,
    LogFormatError,
    Variant,
    VillageError,
    from_json,
    load_edition,
)
from village_rules.cli import main as cli
from village_rules.cli.main import main
from village_rules.drivers.play import GameLog, play_logged, replay


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def shipped_json(edition: str = "big-box-2023") -> dict[str, Any]:
    text = resources.files("village_rules").joinpath(f"data/{edition}.json").read_text("utf-8")
    raw: dict[str, Any] = json.loads(text)
    return raw


@pytest.fixture(scope="module")
def game_log() -> GameLog:
    _, log = play_logged("big-box-2023", 2, seed=3)
    return log


def log_dict(log: GameLog) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(log.to_json())
    return raw


def score_lines(out: str) -> list[str]:
    """The score table (header, one row per seat) and the winner line."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["seat", "play"])
    end = next(i for i, line in enumerate(lines) if line.startswith("winner:"))
    return lines[start : end + 1]


# --- setup ----------------------------------------------------------------------------------


def test_setup_prints_the_edition_and_the_seats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "setup", "--edition", "big-box-2023", "--players", "3", "--seed", "7")
    assert code == 0, err
    assert "big-box-2023" in out.splitlines()[0]
    assert "3 players" in out
    for seat in range(3):
        assert f"seat {seat} (" in out
    assert "seat 3 (" not in out


def test_setup_json_is_a_loadable_state(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "setup", "--players", "4", "--seed", "2", "--json")
    assert code == 0, err
    json.loads(out)
    state = from_json(out)
    assert state.num_players == 4
    assert state.round == 1


def test_setup_with_an_unsupported_player_count_fails_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "setup", "--players", "7")
    assert code == 2
    assert out == ""
    assert "SET-01" in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_setup_with_a_custom_data_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    raw = shipped_json()
    raw["customers"][0]["value"]["points"] += 3
    custom = tmp_path / "my-board.json"
    custom.write_text(json.dumps(raw), encoding="utf-8")
    assert load_edition(custom).customers[0].points == shipped_json()["customers"][0]["value"]["points"] + 3

    code, out, err = run(capsys, "setup", "--data", str(custom), "--players", "2", "--json")
    assert code == 0, err
    mine = json.loads(out)["rules"]["fingerprint"]
    code, out, err = run(capsys, "setup", "--players", "2", "--json")
    assert code == 0, err
    assert json.loads(out)["rules"]["fingerprint"] != mine  # the custom data was used

    code, out, err = run(capsys, "setup", "--data", str(custom), "--players", "2")
    assert code == 0, err
    assert "seat 1 (" in out


@pytest.mark.parametrize("content", [b"\xff\xfe{not utf-8", b"[" * 100_000, b'{"edition": '])
def test_setup_with_an_unreadable_data_file_fails_cleanly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    code, _, err = run(capsys, "setup", "--data", str(bad))
    assert code == 2
    assert err.startswith("village-rules: ")
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# --- play and replay ------------------------------------------------------------------------


def test_play_then_replay_agree(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log_path = tmp_path / "game.json"
    code, out, err = run(capsys, "play", "--players", "2", "--seed", "3", "--log", str(log_path))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[0] == "1"  # numbered from 1, as replay, show --at and view count
    assert lines[1].split()[0] == "2"
    assert any(line.startswith("winner: seat ") for line in lines)
    assert log_path.exists()
    log = GameLog.from_json(log_path.read_text("utf-8"))
    assert log.players == 2
    assert log.seed == 3
    assert f"{len(log.actions):5} {log.actions[-1]}" in lines
    played_scores = score_lines(out)
    assert len(played_scores) == 4  # header, two seats, winner

    code, out, err = run(capsys, "replay", str(log_path))
    assert code == 0, err
    assert out.startswith(f"replayed {len(log.actions)} actions of big-box-2023, 2 players, seed 3")
    assert score_lines(out) == played_scores


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("log", ["/proc/nope/x.json", "/proc/x.json"])
def test_play_refuses_a_log_it_cannot_write_before_playing(
    capsys: pytest.CaptureFixture[str], log: str
) -> None:
    # /proc passes the permission bits for root, yet nothing can be created there: the game
    # was played and printed whole before the write failed (docs/input-guarantees.md)
    code, out, err = run(capsys, "play", "--players", "2", "--log", log)
    assert code == 2 and out == ""
    said = "cannot be written: nothing can be created in /proc (No such file or directory)"
    assert err == f"village-rules: {log}: {said}\n"


def test_play_with_a_data_file_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "play", "--data", str(tmp_path / "x.json"))
    assert code == 2
    assert "replay" in err


def test_replay_of_a_missing_file_fails_cleanly(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.json"))
    assert code == 2
    assert "Traceback" not in err


def _replay_bytes(capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes) -> tuple[int, str]:
    path = tmp_path / "log.json"
    path.write_bytes(content)
    code, _, err = run(capsys, "replay", str(path))
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return code, err


def test_replay_of_truncated_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_log: GameLog
) -> None:
    text = game_log.to_json()
    code, err = _replay_bytes(capsys, tmp_path, text[: len(text) // 2].encode())
    assert code == 2
    assert "not valid JSON" in err


def test_replay_of_a_non_utf8_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_log: GameLog
) -> None:
    code, err = _replay_bytes(capsys, tmp_path, game_log.to_json().encode("utf-16"))
    assert code == 2
    assert "UTF-8" in err


def test_replay_of_deeply_nested_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, err = _replay_bytes(capsys, tmp_path, b"[" * 100_000)
    assert code == 2
    assert "nested too deeply" in err


def _set(raw: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    out = dict(raw)
    out[key] = value
    return out


BAD_FIELDS: list[tuple[str, str, Any]] = [
    ("actions holds a number", "actions", "number"),
    ("seed is a list", "seed", [7]),
    ("players is a float", "players", 3.0),
    ("variant value is a string", "variant", "no"),
    ("seed is null", "seed", None),
    ("seed is a string", "seed", "2"),
    ("players is a bool", "players", True),
    ("edition is unknown", "edition", "deluxe-2031"),
    ("edition is a number", "edition", 2023),
    ("actions is a string", "actions", "draw-cube green"),
    ("format is wrong", "format", "village-log"),
    ("format_version is true", "format_version", True),
    ("format_version is 2", "format_version", 2),
    ("data_file is a number", "data_file", 1),
]


@pytest.mark.parametrize(("what", "field", "value"), BAD_FIELDS, ids=[b[0] for b in BAD_FIELDS])
def test_replay_names_the_bad_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_log: GameLog, what: str, field: str, value: Any
) -> None:
    raw = log_dict(game_log)
    if what == "actions holds a number":
        raw["actions"] = [*raw["actions"][:3], 42, *raw["actions"][4:]]
    elif what == "variant value is a string":
        raw["variant"] = {**raw["variant"], "starting_compensation": "no"}
        field = "variant.starting_compensation"
    else:
        raw = _set(raw, field, value)
    code, err = _replay_bytes(capsys, tmp_path, json.dumps(raw).encode())
    assert code == 2
    assert field in err, err
    with pytest.raises(LogFormatError, match=field.replace(".", r"\.").split("[")[0]):
        GameLog.from_json(json.dumps(raw))


def test_replay_rejects_an_unknown_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_log: GameLog
) -> None:
    raw = {**log_dict(game_log), "comment": "hello"}
    code, err = _replay_bytes(capsys, tmp_path, json.dumps(raw).encode())
    assert code == 2
    assert "comment" in err


@pytest.mark.parametrize("missing", ["edition", "players", "seed", "actions", "variant", "format"])
def test_log_missing_fields_are_named(game_log: GameLog, missing: str) -> None:
    raw = log_dict(game_log)
    del raw[missing]
    with pytest.raises(LogFormatError, match=missing):
        GameLog.from_json(json.dumps(raw))


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"starting_compensation": True},
        {"starting_compensation": True, "coin_substitution_at_well": 1},
        {"starting_compensation": True, "readings": []},
        {"starting_compensation": True, "readings": {"AMB-26": 1}},
    ],
)
def test_log_variant_needs_exactly_the_variant_booleans(game_log: GameLog, variant: dict[str, Any]) -> None:
    raw = _set(log_dict(game_log), "variant", variant)
    with pytest.raises(LogFormatError, match="variant"):
        GameLog.from_json(json.dumps(raw))
    raw["variant"] = {**variant, "starting_compensation": True, "readings": {}, "x": True}
    with pytest.raises(LogFormatError, match="variant"):
        GameLog.from_json(json.dumps(raw))


@pytest.mark.parametrize("top", ["[]", "3", "null", '"log"'])
def test_log_must_be_an_object(top: str) -> None:
    with pytest.raises(LogFormatError, match="object"):
        GameLog.from_json(top)


def test_replay_names_the_failing_action(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_log: GameLog
) -> None:
    raw = log_dict(game_log)
    raw["actions"][4] = "take market brown"  # a take while a seeding draw is pending
    code, err = _replay_bytes(capsys, tmp_path, json.dumps(raw).encode())
    assert code == 2
    assert f"action 5 of {len(game_log.actions)}:" in err


# --- fuzz -----------------------------------------------------------------------------------


def test_fuzz_a_few_games(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(
        capsys, "fuzz", "--games", "2", "--workers", "1", "--seed", "1", "--quiet", "--out", str(tmp_path)
    )
    assert code == 0, err
    assert "violations:   0" in out


# --- the library API ------------------------------------------------------------------------


def test_game_log_json_round_trip(game_log: GameLog) -> None:
    again = GameLog.from_json(game_log.to_json())
    assert again == game_log
    assert isinstance(again.actions, tuple)
    assert again.to_json() == game_log.to_json()
    raw = log_dict(game_log)
    assert raw["format"] == "village-rules-log"
    assert raw["format_version"] == 1
    assert raw["data_file"] is None


def test_game_log_round_trip_with_a_variant_and_data_file(tmp_path: Path) -> None:
    custom = tmp_path / "board.json"
    custom.write_text(json.dumps(shipped_json("original-2011")), encoding="utf-8")
    log = GameLog("original-2011", 3, 11, ("draw-cube green",), Variant(False, {"AMB-01": "b"}), str(custom))
    again = GameLog.from_json(log.to_json())
    # the log written records the fingerprint of the data file as it was then
    assert again == replace(log, data_fingerprint=load_edition(custom).fingerprint)
    assert again.initial_state().num_players == 3  # the data file is used, not the edition name


def test_game_log_without_data_file_key_uses_the_shipped_data(game_log: GameLog) -> None:
    raw = log_dict(game_log)
    del raw["data_file"]
    assert GameLog.from_json(json.dumps(raw)) == game_log


def test_log_format_error_is_exported() -> None:
    assert issubclass(LogFormatError, VillageError)
    assert issubclass(LogFormatError, ValueError)
    assert "LogFormatError" in village_rules.__all__
    assert village_rules.LogFormatError is LogFormatError
    assert play_module.LogFormatError is LogFormatError


def test_replay_errors_say_which_action_failed(game_log: GameLog) -> None:
    initial = game_log.initial_state()
    actions = list(game_log.actions)
    total = len(actions)
    with pytest.raises(IllegalActionError) as illegal:
        replay(initial, [*actions[:4], "take market brown", *actions[5:]])
    assert illegal.value.reason.startswith(f"action 5 of {total}: ")
    assert illegal.value.rule == "CHANCE"
    assert illegal.value.action == "take market brown"
    assert isinstance(illegal.value.__cause__, IllegalActionError)
    with pytest.raises(ActionSyntaxError, match=rf"^action 2 of {total}: ") as syntax:
        replay(initial, [actions[0], "not-an-action", *actions[2:]])
    assert isinstance(syntax.value.__cause__, ActionSyntaxError)


def test_ctrl_c_in_any_command_exits_130_without_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "new_game", interrupted)
    assert cli.main(["setup", "--players", "3"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "village-rules: interrupted"


@pytest.mark.parametrize("command", ["play", "setup"])
def test_a_solo_only_reading_in_a_game_of_players_is_refused(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # AMB-36 b changes what Carla does; with 2 players it never acts and was accepted silently
    code, out, err = run(capsys, command, "--players", "2", "--reading", "AMB-36=b")
    assert code == 2 and out == ""
    assert err == (
        "village-rules: --reading AMB-36=b: AMB-36, When Carla takes her cube, is a reading of the solo "
        "mode against Carla and never acts in a 2-player game; play it with --players 1, or drop it\n"
    )


def test_a_solo_reading_is_played_solo_and_its_default_is_accepted_anywhere(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(capsys, "setup", "--players", "1", "--reading", "AMB-36=b")[0] == 0
    assert run(capsys, "setup", "--players", "2", "--reading", "AMB-36=a")[0] == 0  # the default: as played
