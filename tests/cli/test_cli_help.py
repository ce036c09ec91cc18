"""Issue 28: `--help` says what every option of `check` and `report` does, and the default
of every --edition, --players and --seed (a walk over the argparse parsers)."""

from __future__ import annotations

import argparse

import pytest

from village_rules.cli.main import _parser, main


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = _parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return dict(actions[0].choices)


def options(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if not isinstance(a, argparse._HelpAction)]


@pytest.mark.parametrize("command", ["check", "report"])
def test_every_option_of_check_and_report_has_help(command: str) -> None:
    p = subcommands()[command]
    missing = [a.dest for a in options(p) if not a.help or a.help == argparse.SUPPRESS]
    assert missing == [], f"{command}: options without help: {missing}"


RETIRED = {("prove", "--seconds")}
"""Options kept off `--help` on purpose: retired flags still parsed only to refuse them with
what to use instead (`prove --seconds`: budgets are seeded games now, `--games`)."""


def test_every_option_of_every_command_has_help() -> None:
    missing = [
        f"{name} {a.option_strings or a.dest}"
        for name, p in subcommands().items()
        for a in options(p)
        if (not a.help or a.help == argparse.SUPPRESS)
        and not any((name, flag) in RETIRED for flag in a.option_strings)
    ]
    assert missing == []


def test_a_retired_option_is_refused_with_what_to_use_instead(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--seconds", "1"]) == 2
    assert "--games" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--edition", "--players", "--seed"])
def test_edition_players_and_seed_say_their_default(option: str) -> None:
    for name, p in subcommands().items():
        for a in options(p):
            if option in a.option_strings:
                text = p.format_help()
                assert a.help is not None and "default" in a.help, f"{name} {option}: {a.help!r}"
                if a.default is not None:
                    assert f"default: {a.default}" in text.replace("\n", " ").replace("  ", " ") or (
                        f"default {a.default}" in text
                    ), f"{name} {option}"


def test_the_shown_defaults_are_the_real_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["setup", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: big-box-2023)" in out
    assert "(default: 3)" in out
    assert "(default: 0)" in out
