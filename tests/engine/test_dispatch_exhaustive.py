"""The engine's dispatch is exhaustive: a step or action that is added to its union but not
handled is a `mypy --strict` error at the `assert_never` that ends every `match` over
actions or pending steps, not an action taken for free. (That the real dispatch passes
`mypy --strict` is CI's mypy step.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mypy import api
from support import ROOT, TESTS

FIXTURE = TESTS / "fixtures" / "unhandled_dispatch.py"


def _mypy(*args: str) -> tuple[str, int]:
    out, err, status = api.run(["--strict", "--no-error-summary", "--show-error-codes", *args])
    return out + err, status


def test_an_unhandled_step_is_a_type_error(tmp_path: Path) -> None:
    out, status = _mypy("--cache-dir", str(tmp_path / "cache"), str(FIXTURE))
    assert status == 1
    assert '"assert_never" has incompatible type "NewStep"' in out


def test_the_fixture_passes_once_the_step_is_handled(tmp_path: Path) -> None:
    """The error above is the missing case and nothing else."""
    handled = tmp_path / "handled_dispatch.py"
    text = FIXTURE.read_text()
    assert "# HANDLE-NEW-STEP" in text
    handled.write_text(text.replace("# HANDLE-NEW-STEP", "case NewStep():\n            return 3"))
    out, status = _mypy("--cache-dir", str(tmp_path / "cache"), str(handled))
    assert status == 0, out


def _without_case(source: str, case: str) -> str:
    """`source` with the `case` line `case` and the lines of its body removed."""
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == case)
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
    ):
        end += 1
    return "\n".join([*lines[:start], *lines[end:]]) + "\n"


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_the_real_dispatch_refuses_a_dropped_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutants of the real tables: `spaces.rules_of` without its grain-harvest line and
    `core._perform` without its dying step; mypy names the variant each no longer handles.
    mypy finds the package the mutants import in `src/` (MYPYPATH): an editable install
    maps the top-level proofs/ folder into the package by setuptools' import finder,
    which mypy does not follow."""
    monkeypatch.setenv("MYPYPATH", str(ROOT / "src"))
    engine = ROOT / "src" / "village_rules" / "engine"
    spaces = _without_case((engine / "spaces.py").read_text(), "case Harvest():")
    core = _without_case((engine / "core.py").read_text(), "case ChooseDying(seat):")
    (tmp_path / "mutant_spaces.py").write_text(spaces)
    (tmp_path / "mutant_core.py").write_text(core)
    out, status = _mypy(
        "--cache-dir",
        str(tmp_path / "cache"),
        "--config-file",
        "",
        str(tmp_path / "mutant_spaces.py"),
        str(tmp_path / "mutant_core.py"),
    )
    assert status == 1
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert any(
        re.search(
            r'mutant_spaces\.py:\d+: error: Argument 1 to "assert_never" has incompatible type "Harvest"', e
        )
        for e in errors
    ), out
    assert any(
        re.search(
            r'mutant_core\.py:\d+: error: Argument 1 to "assert_never" has incompatible type "ChooseDying"', e
        )
        for e in errors
    ), out
    assert len(errors) == 2, out
