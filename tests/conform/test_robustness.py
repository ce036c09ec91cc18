"""An implementation under test that crashes, hangs, prints non-JSON, answers in the wrong
shape, raises or speaks another version gets a verdict naming the step, never a traceback,
and conform never hangs. Each fake implementation is a small Python script (no village_rules
import, so it starts at once) written to tmp_path: it answers the handshake and `new_game`,
then misbehaves at one request."""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.conform.client import ProtocolEngine
from village_rules.conform.compare import FAILED
from village_rules.conform.inputs import SEEDED, GameInput
from village_rules.conform.protocol import GameSetup, ImplementationError
from village_rules.conform.reference import ReferenceEngine
from village_rules.conform.runner import Runner

FAKE = """
import json, sys, time
MODE = {mode!r}
for line in sys.stdin:
    msg = json.loads(line)
    op = msg["op"]
    if op == "hello":
        version = 2 if MODE == "version" else 1
        out = {{"ok": True, "protocol": "village-rules-conform", "version": version, "engine": "fake"}}
    elif op == "new_game":
        if MODE == "crash":
            sys.stderr.write("fake: out of memory\\n")
            sys.exit(3)
        out = {{"ok": True}}
    elif op == "current_player":
        if MODE == "hang":
            time.sleep(3600)
        if MODE == "garbage":
            sys.stdout.write("player zero, I think\\n")
            sys.stdout.flush()
            continue
        if MODE == "shape":
            out = {{"ok": True, "player": "me"}}
        elif MODE == "error":
            out = {{"ok": False, "error": "not implemented yet"}}
        else:
            out = {{"ok": True, "player": 0}}
    elif op == "quit":
        break
    else:
        out = {{"ok": True}}
    sys.stdout.write(json.dumps(out) + "\\n")
    sys.stdout.flush()
"""

GAME = GameInput(
    SEEDED, "seeded game 0", GameSetup(players=2, edition="original-2011", seed=1), choice_seed="0"
)


def fake(tmp_path: Path, mode: str) -> list[str]:
    script = tmp_path / f"fake_{mode}.py"
    script.write_text(FAKE.format(mode=mode), encoding="utf-8")
    return [sys.executable, str(script)]


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("crash", "new_game: the implementation exited (status 3) without answering"),
        ("hang", "current_player: no answer within 0.5 s (the per-step limit)"),
        ("garbage", "current_player: the answer is not JSON: 'player zero, I think'"),
        ("shape", 'current_player: a player is a seat (0 or more), "chance" or "terminal", not \'me\''),
        ("error", "current_player: the implementation answered an error: 'not implemented yet'"),
    ],
)
def test_a_broken_implementation_gets_a_verdict_naming_the_step(
    tmp_path: Path, mode: str, words: str
) -> None:
    start = time.monotonic()
    with ProtocolEngine(fake(tmp_path, mode), step_limit=0.5) as engine:
        runner = Runner(engine)
        assert not runner.run_game(GAME)
    failure = runner.failure
    assert failure is not None
    assert failure.difference.kind == FAILED
    assert words in failure.difference.detail
    assert failure.step == 0
    if mode == "crash":
        assert "fake: out of memory" in failure.difference.detail  # the end of its stderr
    assert time.monotonic() - start < 30  # a hang guard of 0.5 s, not the test's timeout


def test_another_protocol_version_is_refused_at_the_handshake(tmp_path: Path) -> None:
    with pytest.raises(ImplementationError, match="speaks 'village-rules-conform' version 2"):
        ProtocolEngine(fake(tmp_path, "version"))


def test_a_program_that_never_answers_the_handshake_is_stopped(tmp_path: Path) -> None:
    script = tmp_path / "mute.py"
    script.write_text("import time\ntime.sleep(3600)\n", encoding="utf-8")
    with pytest.raises(ImplementationError, match=r"hello: no answer within 0\.5 s"):
        ProtocolEngine([sys.executable, str(script)], start_limit=0.5)


def test_the_command_line_gives_the_verdict_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = " ".join(fake(tmp_path, "hang"))
    log = tmp_path / "failure.json"  # not the default, conform-failure.json in the working folder
    budget = ["--inputs", "seeded", "--games", "1", "--step-limit", "0.5", "--quiet"]
    code = main(["conform", "--command", argv, *budget, "--log", str(log)])
    captured = capsys.readouterr()
    assert code == 1
    assert log.is_file() and not Path("conform-failure.json").exists()
    assert "implementation failed: current_player: no answer within 0.5 s" in captured.out
    assert "at step 0" in captured.out
    assert "Traceback" not in captured.out + captured.err


def test_the_command_line_names_a_failed_handshake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["conform", "--command", " ".join(fake(tmp_path, "version")), "--inputs", "seeded", "--quiet"]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "FAILED at the handshake, before any game" in out


class Raising(ReferenceEngine):
    """An in-process engine that raises on its 5th apply."""

    def __init__(self) -> None:
        super().__init__()
        self.applied = 0

    def apply(self, action: int) -> None:
        self.applied += 1
        if self.applied == 5:
            raise RuntimeError("index out of range in my engine")
        super().apply(action)


class WrongShape(ReferenceEngine):
    """An in-process engine whose probabilities are floats."""

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        return [(i, float(p)) for i, p in super().chance_outcomes()]  # type: ignore[misc]  # the planted bug


def test_an_in_process_engine_that_raises_gets_a_verdict() -> None:
    runner = Runner(Raising())
    assert not runner.run_game(GAME)
    failure = runner.failure
    assert failure is not None and failure.difference.kind == FAILED
    assert failure.step == 5
    assert "the engine raised RuntimeError: index out of range in my engine" in failure.difference.detail


def test_an_in_process_engine_with_float_probabilities_gets_a_verdict() -> None:
    runner = Runner(WrongShape())
    assert not runner.run_game(GAME)
    failure = runner.failure
    assert failure is not None and failure.difference.kind == FAILED
    assert "not an exact Fraction" in failure.difference.detail
