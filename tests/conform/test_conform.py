"""`village-rules conform`: the reference against itself (in process and over the JSON-lines
protocol), three planted differences caught, named and shrunk, the pack, and the command
line's refusals. Budgets are small here; `slow` runs a larger one."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest
from support import ROOT

from village_rules.adapters.golden import GOLDEN_GAMES, playthrough
from village_rules.cli.main import main
from village_rules.conform.client import ProtocolEngine
from village_rules.conform.compare import LEGAL, PROBABILITY, STATE
from village_rules.conform.inputs import (
    GOLDEN,
    SEEDED,
    STATES,
    WITNESS,
    GameInput,
    golden_games,
    seeded_games,
    witness_files,
)
from village_rules.conform.protocol import GameSetup
from village_rules.conform.reference import ReferenceEngine, initial_state, setup_data
from village_rules.conform.run import Selection, failure_log, failure_text, run
from village_rules.conform.runner import Runner, chooser, play
from village_rules.drivers.play import GameLog, replay
from village_rules.drivers.serialization import to_json
from village_rules.model.actions import action_from_id, format_action

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import planted  # noqa: E402  (tests/conform is put on the path just above)

SERVE = [sys.executable, "-m", "village_rules.conform.serve"]
SMALL = Selection(kinds=(SEEDED,), games=8, max_steps=30)


def test_the_reference_agrees_with_itself_in_process() -> None:
    result = run(ReferenceEngine(), SMALL)
    assert result.failure is None
    c = result.coverage
    assert c.games[SEEDED] == 8
    assert len(c.combinations) == 8  # both editions, 1-5 players: every combination once
    assert c.steps[SEEDED] == 8 * 31  # each game cut after 30 actions, its 31 states compared


def test_a_run_says_how_far_each_input_kind_got() -> None:
    """A long run's heartbeat names the game or state it is at, not only the input kind
    (a 10,000-game run said "0 input kinds" for 25 minutes)."""
    told: list[tuple[str, int, int]] = []
    selection = Selection(kinds=(SEEDED, STATES), games=3, max_steps=5, configs=("tiny",), states=1001)
    result = run(ReferenceEngine(), selection, progress=lambda *said: told.append(said))
    assert result.failure is None
    assert told == [
        ("conform: seeded games", 0, 3),
        ("conform: seeded games", 1, 3),
        ("conform: seeded games", 2, 3),
        ("conform: states of tiny", 0, 1001),
        ("conform: states of tiny", 500, 1001),
        ("conform: states of tiny", 1000, 1001),
    ]


def test_every_state_of_tiny_s_first_levels_agrees_with_itself_in_process() -> None:
    result = run(ReferenceEngine(), Selection(kinds=(STATES,), configs=("tiny",), states=60))
    assert result.failure is None
    assert result.coverage.states["tiny"] == 60
    assert result.coverage.edges["tiny"] >= 60


def test_the_reference_agrees_with_itself_over_the_protocol() -> None:
    with ProtocolEngine(SERVE) as served:
        assert served.name.startswith("village-rules reference")
        result = run(served, Selection(kinds=(SEEDED, WITNESS), games=2, max_steps=80, witnesses=1))
        # load: a saved state, given as the canonical object, is the state served back.
        state = to_json(initial_state(GameSetup(players=4, edition="original-2011", seed=5)))
        served.load(state)
        assert served.state_json() == state
    assert result.failure is None
    c = result.coverage
    assert (
        c.games[SEEDED] == 2 and c.steps[SEEDED] == 46 + 81
    )  # the solo game (it ends), then 2023 2p cut at 80
    first = GameLog.from_json(witness_files()[0].read_text(encoding="utf-8"))
    # the first stored witness, every step
    assert c.games[WITNESS] == 1 and c.steps[WITNESS] == len(first.actions) + 1


# --- planted differences --------------------------------------------------------------------


def planted_game(seed: int) -> GameInput:
    """A 2011 2-player game; its random choices seeded by `seed` as well."""
    return GameInput(
        SEEDED,
        "planted game",
        GameSetup(players=2, edition="original-2011", seed=seed),
        choice_seed=f"planted{seed}",
    )


GAME = planted_game(7)


@pytest.mark.parametrize(
    ("engine", "seed", "kind", "words"),
    [
        (planted.SwappedOrder, 7, LEGAL, "in another order: at position 0"),
        (planted.ShiftedProbability, 3, PROBABILITY, "/"),
        (planted.ExtraCoin, 7, STATE, "$.players[0].coins: reference"),
    ],
    ids=["legal-order", "chance-probability", "state-field"],
)
def test_a_planted_difference_is_caught_named_and_shrunk(
    engine: type[ReferenceEngine], seed: int, kind: str, words: str
) -> None:
    runner = Runner(engine(), shrink_replays=40)
    assert not runner.run_game(planted_game(seed))
    failure = runner.failure
    assert failure is not None
    assert failure.difference.kind == kind
    assert words in failure.difference.detail
    assert failure.step < failure.found_at  # ddmin found a shorter game showing a difference
    assert failure.rules  # the rule IDs the reference applied on the last action
    text = "\n".join(failure_text(failure))
    assert f"at step {failure.step}" in text and "shrunk from step" in text
    # The failing game is a replayable log that reaches the step on the reference, and
    # replayed on the planted engine the difference is there at that step.
    log, _ = failure_log(failure)
    assert log is not None
    again = GameLog.from_json(log.to_json())
    final = replay(again.initial_state(), again.actions)
    assert any(p.goods.total() > 0 for p in final.players)  # where the planted difference acts
    replayed = GameInput(SEEDED, "replayed", failure.setup, actions=failure.actions)
    check = Runner(engine(), shrink_replays=0)
    assert not check.run_game(replayed)
    assert check.failure is not None and check.failure.step == failure.step


def test_a_planted_difference_over_the_protocol_is_caught_and_named(tmp_path: Path) -> None:
    env_path = f"{HERE}:{ROOT / 'src'}"
    with ProtocolEngine([*SERVE, "--engine", "planted:ExtraCoin"], env={"PYTHONPATH": env_path}) as served:
        assert served.name == "planted:ExtraCoin"
        runner = Runner(served, shrink_replays=8)
        assert not runner.run_game(GAME)
    failure = runner.failure
    assert failure is not None and failure.difference.kind == STATE
    assert failure.step <= failure.found_at


# --- inputs -------------------------------------------------------------------------------


def test_a_golden_game_is_played_as_its_transcript_records_it() -> None:
    game = next(g for g in golden_games() if g.name == "golden bigbox-2p")
    stored = [
        json.loads(line) for line in playthrough(next(g for g in GOLDEN_GAMES if g.name == "bigbox-2p"))
    ]
    runner = Runner(ReferenceEngine())
    played = play(runner.ref, None, game.setup, chooser(game), setup_data(game.setup))
    actions = [s["action"] for s in stored if "action" in s and s["player"] != "chance (setup)"]
    data = setup_data(game.setup)
    assert [format_action(action_from_id(data, i)) for i in played.actions] == actions
    assert runner.ref.state.is_terminal


# --- the pack -----------------------------------------------------------------------------


def test_the_pack_holds_every_step_s_expected_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "pack.jsonl"
    code = main(
        [
            "conform",
            "--write-pack",
            str(pack),
            "--inputs",
            "seeded,states",
            "--games",
            "1",
            "--max-steps",
            "30",
            "--configs",
            "tiny",
            "--states",
            "3",
            "--quiet",
        ]
    )
    assert code == 0, capsys.readouterr()
    lines = [json.loads(x) for x in pack.read_text().splitlines()]
    header, game, *states = lines
    assert header["format"] == "village-rules-conform-pack" and header["protocol_version"] == 1
    assert (header["games"], header["steps"], header["states"]) == (1, 31, 3)
    # Checking the pack offline: replay the game on the reference from its new_game request.
    msg = game["new_game"]
    ref = ReferenceEngine()
    ref.new_game(
        GameSetup(
            players=msg["players"],
            edition=msg["edition"],
            seed=msg["seed"],
            readings=tuple(sorted(msg["readings"].items())),
            starting_compensation=msg["starting_compensation"],
        )
    )
    for step in game["steps"]:
        assert hashlib.sha256(ref.state_json().encode()).hexdigest() == step["state_sha256"]
        assert ("actions" in step) == (step["player"] not in ("chance", "terminal"))
        if "actions" in step:
            assert step["actions"] == ref.legal_actions()
        if "apply" in step:
            ref.apply(step["apply"])
    first = states[0]
    ref.load(json.dumps(first["state"]))
    for ident, digest in first["edges"]:
        ref.load(json.dumps(first["state"]))
        ref.apply(ident)
        assert hashlib.sha256(ref.state_json().encode()).hexdigest() == digest


# --- the command line ---------------------------------------------------------------------


def test_the_command_reports_what_it_covered(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "conform",
            "--engine",
            "village_rules.conform.reference:ReferenceEngine",
            "--inputs",
            "seeded",
            "--games",
            "3",
            "--max-steps",
            "40",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(r"seeded +3 games +123 steps", out)
    assert "no difference" in out


def test_the_command_exits_1_and_writes_the_failing_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "failing.json"
    sys.modules.setdefault("planted", planted)
    code = main(
        [
            "conform",
            "--engine",
            "planted:ExtraCoin",
            "--inputs",
            "seeded",
            "--games",
            "1",
            "--shrink-replays",
            "30",
            "--log",
            str(log),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "DIFFERENCE in seeded input seeded game 0" in out and "$.players[0].coins" in out
    assert "rules the reference applied on that action:" in out
    assert GameLog.from_json(log.read_text()).actions  # a replayable village-rules-log


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([], "give the implementation to check"),
        (["--engine", "nocolon"], "expected module:attr"),
        (["--engine", "no_such_module_xyz:Engine"], "cannot import no_such_module_xyz"),
        (["--engine", "village_rules.conform.reference:Nothing"], "has no attribute Nothing"),
        (["--engine", "village_rules.conform.reference:setup_data"], "calling setup_data() raised"),
        (["--engine", "json:JSONDecoder"], "not an engine: it lacks new_game"),
        (["--command", "/no/such/program-xyz"], "cannot start it"),
        (["--command", "'unclosed"], "No closing quotation"),
    ],
)
def test_bad_input_exits_2_naming_it(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["conform", *argv, "--inputs", "seeded", "--games", "1", "--max-steps", "1", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert words in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--inputs", "seeded,nonsense"], "unknown input kind nonsense"),
        (["--configs", "huge"], "unknown configuration huge"),
        (["--games", "-1"], "must be from 0"),
        (["--step-limit", "0"], "more than 0"),
        (["--players", "6"], "--players 6: the player counts are 1, 2, 3, 4, 5"),
        (["--players", "two"], "expected player counts such as 2,3,4,5"),
        (["--players", ","], "expected player counts"),
    ],
)
def test_bad_options_exit_2(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["conform", "--engine", "village_rules.conform.reference:ReferenceEngine", *argv])
    assert code == 2
    assert words in capsys.readouterr().err


def test_the_state_json_of_the_reference_engine_is_to_json() -> None:
    setup = GameSetup(players=3, edition="big-box-2023", seed=1)
    ref = ReferenceEngine()
    ref.new_game(setup)
    assert ref.state_json() == to_json(initial_state(setup))


def test_players_keeps_the_seeded_games_to_those_counts_and_says_what_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--players` (for an implementation that plays only some counts, as the native core
    did before it played solo, or for a run on one count): the seeded games are drawn from
    those counts alone, and the stored games of other counts are counted and printed as left
    out, never passed over silently."""
    games = seeded_games(6, 0, player_counts=(3,))
    assert {g.setup.players for g in games} == {3}
    assert {g.setup.players for g in seeded_games(16, 0)} == {1, 2, 3, 4, 5}
    selection = Selection(kinds=(GOLDEN,), golden=4, players=(2,))
    result = run(ReferenceEngine(), selection)
    assert result.failure is None
    others = sum(1 for g in golden_games()[:4] if g.setup.players != 2)
    assert others > 0 and result.left_out == {GOLDEN: others}
    assert result.coverage.games[GOLDEN] == 4 - others
    reference = "village_rules.conform.reference:ReferenceEngine"
    argv = ["conform", "--engine", reference, "--inputs", "seeded", "--games", "2", "--max-steps", "30"]
    assert main([*argv, "--players", "2,5", "--quiet", "--log", str(tmp_path / "f.json")]) == 0
    out = capsys.readouterr().out
    assert "only 2,5 players (--players): nothing left out" in out and "no difference" in out
