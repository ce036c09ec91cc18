"""Options that do nothing without another are refused, naming both (issue 42): one
mechanism, `cli.options.needs` declared beside the option and `refuse_idle_options` run once
after parsing. Before, each of these was accepted and silently ignored."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from village_rules.cli import main as cli_main
from village_rules.cli.main import main


@pytest.mark.parametrize(
    ("argv", "option", "other"),
    [
        (["fuzz", "--games", "1", "--segments", "4"], "--segments", "--guided"),
        (["fuzz", "--games", "1", "--actions", "500"], "--actions", "--guided"),
        (["explore", "tiny", "--checkpoint-every", "10"], "--checkpoint-every", "--checkpoint"),
        (["explore", "tiny", "--random-games", "5"], "--random-games", "--shape"),
        (["explore", "tiny", "--ray-address", "auto"], "--ray-address", "--ray"),
        (["report", "LOG", "--games", "3"], "--games", "no LOG given"),
        (["report", "LOG", "--guided-actions", "10"], "--guided-actions", "no LOG given"),
    ],
)
def test_an_option_without_its_companion_is_refused_naming_both(
    argv: list[str],
    option: str,
    other: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    def no_work(*args: object, **kwargs: object) -> int:
        raise AssertionError("the command ran")

    parser = cli_main._parser

    def guarded_parser() -> argparse.ArgumentParser:  # every command's function replaced
        p = parser()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    sub.set_defaults(func=no_work)
        return p

    monkeypatch.setattr(cli_main, "_parser", guarded_parser)
    argv = [str(tmp_path / "game.json") if a == "LOG" else a for a in argv]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{option}:" in err and other in err and "does nothing without" in err


def test_with_its_companion_the_option_is_taken(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["fuzz", "--guided", "--actions", "40", "--segments", "2", "--edition", "original-2011"]
    code = main([*argv, "--players", "2", "--workers", "1", "--out", str(tmp_path), "--quiet"])
    assert code == 0, capsys.readouterr().err
    assert "2 segment(s)" in capsys.readouterr().out
