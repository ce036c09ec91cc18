"""What every public entry point does with bad input (docs/input-guarantees.md): only the
library's errors, naming what is wrong, and nothing changed. Covers the classes of issue
14: oversized text, duplicate keys, integers beyond Python's digit limit, deep nesting,
non-text arguments, negative seeds, supplies setup cannot serve, incomplete logs, and
generated (mutated) game logs."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import village_rules
import village_rules.cli.main as cli_module
from village_rules import from_json, new_game, to_json
from village_rules.checks.invariants import check
from village_rules.cli.main import main
from village_rules.data.jsonio import MAX_DATA_CHARS, MAX_LOG_CHARS, MAX_STATE_CHARS
from village_rules.data.loader import load_edition, parse_edition
from village_rules.drivers.play import GameLog, play_logged, replay_log
from village_rules.errors import (
    ArgumentTypeError,
    DataError,
    IncompleteGameError,
    LogFormatError,
    SetupError,
    StateFormatError,
    VillageError,
)

DATA = Path(village_rules.__file__).resolve().parent / "data" / "big-box-2023.json"


def shipped() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(DATA.read_text("utf-8"))
    return raw


@pytest.fixture(scope="module")
def game_log() -> GameLog:
    return play_logged("big-box-2023", 2, seed=3)[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# --- the same JSON problems at all three readers --------------------------------------------


def _state_text() -> str:
    return to_json(new_game("big-box-2023", 3, 1))


def _bad_texts(valid: str, limit: int) -> dict[str, str]:
    raw = json.loads(valid)
    key = sorted(raw)[0]
    first = json.dumps(raw[key])
    return {
        "oversized": valid + " " * (limit + 1 - len(valid)),
        "duplicate-key": valid.replace("{", "{" + json.dumps(key) + ": " + first + ", ", 1),
        "huge-integer": valid.replace("{", '{"x": ' + "7" * 5000 + ", ", 1),
        "deep-nesting": "[" * 100_000 + "]" * 100_000,
        "nan": valid.replace("{", '{"x": NaN, ', 1),
    }


STATE_CASES = _bad_texts(_state_text(), MAX_STATE_CHARS)
PROBLEMS = {
    "oversized": "limit",
    "duplicate-key": "duplicate key",
    "huge-integer": "digits",
    "deep-nesting": "nested too deeply",
    "nan": "",
}


@pytest.mark.parametrize("case", sorted(STATE_CASES))
def test_from_json_refuses_bad_json_with_a_state_format_error(case: str) -> None:
    with pytest.raises(StateFormatError) as info:
        from_json(STATE_CASES[case])
    assert PROBLEMS[case] in info.value.problem


def test_a_17_mb_state_is_refused_by_its_size_before_parsing() -> None:
    text = '{"format": "village-rules-state", "pad": "' + "x" * 17_000_000 + '"}'
    with pytest.raises(StateFormatError, match=r"17,000,0.. characters; the limit is 2,000,000"):
        from_json(text)


@pytest.mark.parametrize("value", [None, b"{}", 7, {"format": "village-rules-state"}])
def test_from_json_of_something_that_is_not_text(value: object) -> None:
    with pytest.raises(StateFormatError, match="as text"):
        from_json(value)  # type: ignore[arg-type]


DATA_CASES = _bad_texts(DATA.read_text("utf-8"), MAX_DATA_CHARS)


@pytest.mark.parametrize("case", sorted(DATA_CASES))
def test_data_files_refuse_bad_json_with_a_data_error(case: str, tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        parse_edition(DATA_CASES[case], "mine.json")
    assert PROBLEMS[case] in info.value.problem
    path = tmp_path / "mine.json"
    path.write_text(DATA_CASES[case], encoding="utf-8")
    with pytest.raises(DataError):
        load_edition(path)


def test_a_duplicate_key_inside_a_data_file_is_refused() -> None:
    text = DATA.read_text("utf-8").replace('"monks": {', '"monks": {"value": 9, ', 1)
    with pytest.raises(DataError, match="duplicate key 'value'"):
        parse_edition(text, "mine.json")


@pytest.mark.parametrize("case", ["oversized", "duplicate-key", "huge-integer", "deep-nesting"])
def test_game_logs_refuse_bad_json_with_a_log_format_error(case: str, game_log: GameLog) -> None:
    text = _bad_texts(game_log.to_json(), MAX_LOG_CHARS)[case]
    with pytest.raises(LogFormatError, match=PROBLEMS[case]):
        GameLog.from_json(text)


@pytest.mark.parametrize("case", ["oversized", "duplicate-key", "huge-integer", "deep-nesting"])
def test_the_cli_reports_bad_files_without_a_traceback(
    case: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, game_log: GameLog
) -> None:
    log = tmp_path / "log.json"
    log.write_text(_bad_texts(game_log.to_json(), MAX_LOG_CHARS)[case], encoding="utf-8")
    code, _, err = run(capsys, "replay", str(log))
    assert code == 2 and PROBLEMS[case] in err
    data = tmp_path / "data.json"
    data.write_text(DATA_CASES[case], encoding="utf-8")
    code, _, err = run(capsys, "setup", "--data", str(data))
    assert code == 2 and PROBLEMS[case] in err


def test_an_unexpected_exception_in_the_cli_is_reported_without_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last guard of `main`: shown once with an injected bug in a handler."""

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("injected")

    monkeypatch.setattr(cli_module, "render", broken)
    code, _, err = run(capsys, "setup")
    assert code == 70
    assert "internal error" in err and "RuntimeError: injected" in err


# --- supplies setup cannot serve ------------------------------------------------------------


def test_a_coin_supply_smaller_than_setup_hands_out_is_refused() -> None:
    """SET-04: every player gets the starting coins from the supply."""
    raw = shipped()
    raw["supply"]["coins"]["value"] = 4  # 5 players x 1 coin
    with pytest.raises(DataError) as info:
        parse_edition(json.dumps(raw), "mine.json")
    assert info.value.key == "supply.coins"
    assert "5 in all" in info.value.problem


def test_a_coin_supply_without_the_compensation_coin_is_refused() -> None:
    """SET-10: the 5th seat's extra coin comes from the supply too."""
    raw = shipped()
    raw["supply"]["coins"]["value"] = 5
    with pytest.raises(DataError) as info:
        parse_edition(json.dumps(raw), "mine.json")
    assert info.value.key == "supply.coins"
    assert "compensation" in info.value.problem


def test_a_small_grain_supply_is_named_as_such() -> None:
    """MKT-02: a customer's grain must exist; the message names the supply, not the farmyard."""
    raw = shipped()
    raw["supply"]["grain"]["value"] = 2
    with pytest.raises(DataError) as info:
        parse_edition(json.dumps(raw), "mine.json")
    assert "supply has only 2" in info.value.problem
    assert "farmyard" not in info.value.problem


def test_the_exact_coin_supply_is_enough() -> None:
    raw = shipped()
    raw["supply"]["coins"]["value"] = 6
    data = parse_edition(json.dumps(raw), "mine.json")
    state = new_game(data, 5, 1)
    check(state)
    assert state.supply.coins == 0
    assert from_json(to_json(state)) == state


# --- seeds and argument types ---------------------------------------------------------------


@pytest.mark.parametrize("seed", [-1, -7, -(2**70)])
def test_negative_seeds_are_refused(seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    """SET-01: random.Random(-s) would play the game of s; refused instead of aliased."""
    with pytest.raises(SetupError, match="negative"):
        new_game("big-box-2023", 3, seed)
    for command in ("setup", "play"):
        code, _, err = run(capsys, command, "--seed", str(seed))
        assert code == 2 and "negative" in err


def test_a_log_with_a_negative_seed_is_refused(game_log: GameLog) -> None:
    raw = json.loads(game_log.to_json())
    raw["seed"] = -3
    with pytest.raises(LogFormatError, match="'seed' must be 0 or more"):
        GameLog.from_json(json.dumps(raw))


@pytest.mark.parametrize(
    "args",
    [(7, 3, 1), ("big-box-2023", 3, 1, "no-variant"), ("big-box-2023", "3", 1), ("big-box-2023", 3, 1.0)],
)
def test_new_game_with_wrong_argument_types(args: tuple[Any, ...]) -> None:
    with pytest.raises(ArgumentTypeError):
        new_game(*args)


# --- incomplete logs ------------------------------------------------------------------------


def test_a_log_that_stops_early_says_so(
    game_log: GameLog, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = GameLog(game_log.edition, game_log.players, game_log.seed, game_log.actions[:50])
    result = replay_log(short)
    assert not result.complete and result.actions == 50
    assert "INCOMPLETE" in result.describe()
    assert replay_log(game_log).complete
    with pytest.raises(IncompleteGameError, match="after 50 actions"):
        replay_log(short, complete=True)
    path = tmp_path / "short.json"
    path.write_text(short.to_json(), encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "INCOMPLETE: the log stops before the end of the game" in out
    code, _, err = run(capsys, "replay", "--complete", str(path))
    assert code == 2 and "INCOMPLETE" in err
    full = tmp_path / "full.json"
    full.write_text(game_log.to_json(), encoding="utf-8")
    code, out, _ = run(capsys, "replay", "--complete", str(full))
    assert code == 0 and "complete: the game ended" in out


# --- generated logs -------------------------------------------------------------------------

_JUNK: list[Any] = [None, True, -1, 0, 1, 2, 6, 10**30, 2.5, "", "serve 7", "pass", [], {}, "x" * 3]


@st.composite
def mutated_logs(draw: st.DrawFn) -> str:
    n = draw(st.sampled_from([2, 3, 4]))
    edition = draw(st.sampled_from(["big-box-2023", "original-2011"]))
    raw = json.loads(_logs(edition, n))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["field", "action", "drop-action", "swap-actions", "truncate"]))
        actions = raw.get("actions")
        if kind == "field":
            key = draw(st.sampled_from([*sorted(raw), "extra"]))
            if draw(st.booleans()) or key == "extra":
                raw[key] = copy.deepcopy(draw(st.sampled_from(_JUNK)))
            else:
                del raw[key]
        elif isinstance(actions, list) and actions:
            i = draw(st.integers(0, len(actions) - 1))
            if kind == "action":
                actions[i] = draw(st.sampled_from([*actions[:40], *_JUNK]))
            elif kind == "drop-action":
                del actions[i]
            elif kind == "swap-actions":
                j = draw(st.integers(0, len(actions) - 1))
                actions[i], actions[j] = actions[j], actions[i]
            else:
                del actions[i:]
    return json.dumps(raw)


_LOG_CACHE: dict[tuple[str, int], str] = {}


def _logs(edition: str, n: int) -> str:
    if (edition, n) not in _LOG_CACHE:
        _LOG_CACHE[(edition, n)] = play_logged(edition, n, seed=n + 10)[1].to_json()
    return _LOG_CACHE[(edition, n)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated_logs())
def test_a_mutated_log_is_refused_with_a_library_error_or_replays_soundly(text: str) -> None:
    try:
        log = GameLog.from_json(text)
        result = replay_log(log)
    except VillageError:
        return
    check(result.state)
    assert result.complete == result.state.is_terminal
    assert result.actions == len(log.actions)
    assert replay_log(log).state == result.state  # deterministic: same log, same state
