"""Rules for the library's source text that neither mypy nor ruff checks.

No bare `assert` in src/ outside engine/ and state.py (those are the engine's to replace):
`python -O` drops an assert, so a check the library relies on raises one of the errors of
`village_rules.errors` instead (`InternalError` for a bug in the library itself)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from village_rules.errors import InternalError, VillageError
from village_rules.rules import Variant

SRC = Path(__file__).resolve().parents[1] / "src" / "village_rules"
NOT_YET = ("engine/", "state.py")  # issue 13: the engine's own asserts are replaced on its branch


def bare_asserts(source: str, name: str) -> list[int]:
    """The line of every `assert` statement in a source."""
    return [node.lineno for node in ast.walk(ast.parse(source, name)) if isinstance(node, ast.Assert)]


def test_no_bare_assert_in_src_outside_the_engine() -> None:
    found = [
        f"{rel}:{line}"
        for path in sorted(SRC.rglob("*.py"))
        if not (rel := path.relative_to(SRC).as_posix()).startswith(NOT_YET)
        for line in bare_asserts(path.read_text(encoding="utf-8"), rel)
    ]
    assert not found, "bare asserts (raise an error of village_rules.errors instead): " + ", ".join(found)
    assert bare_asserts("x = 1\nif x:\n    assert x, 'no'\n", "t.py") == [3]


def test_an_internal_check_raises_a_library_error_that_names_where() -> None:
    variant = Variant()
    object.__setattr__(variant, "readings", {"AMB-06": "b"})  # past __post_init__'s normalising
    with pytest.raises(InternalError, match=r"Variant\.choices: readings not normalised") as info:
        _ = variant.choices
    assert isinstance(info.value, VillageError) and info.value.where == "Variant.choices"
