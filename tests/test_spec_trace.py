"""Traceability between the rules spec (specs/rules.md) and the tests.

Every rule ID in the spec must be named by at least one test, no test may name a rule ID
that the spec does not have, no ID may have two rows, and every module named in the
"Implemented in" column must exist. The checks are pure functions of the texts, so they
are tested on synthetic input as well as run on the real files.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from support import ROOT, TESTS

SPEC = ROOT / "specs" / "rules.md"
PACKAGE = ROOT / "src" / "village_rules"
THIS_FILE = Path(__file__).resolve()

# A rule ID: an area prefix and a two-digit number, e.g. SET-01 or SCORE-07.
RULE_ID = re.compile(r"^[A-Z]+-\d\d$")
# The same pattern inside free text (test sources). `\b` keeps SHA-256 or xSET-01 out.
RULE_ID_IN_TEXT = re.compile(r"\b[A-Z]+-\d\d\b")
# Register entries (specs/ambiguities.md), not rules.
REGISTER_PREFIXES = frozenset({"AMB", "ED", "PAR"})
# A module path in the "Implemented in" column, relative to src/village_rules/.
MODULE_PATH = re.compile(r"[A-Za-z_][\w/]*\.py")
IMPLEMENTED_IN = "Implemented in"


@dataclass(frozen=True)
class RuleRow:
    rule_id: str
    implemented_in: str
    line: int


def is_register_id(token: str) -> bool:
    return token.split("-", 1)[0] in REGISTER_PREFIXES


def _cells(line: str) -> list[str]:
    """The cells of a markdown table row ("| a | b |" -> ["a", "b"])."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_separator(cells: list[str]) -> bool:
    return all(re.fullmatch(r":?-{3,}:?", c) for c in cells)


def parse_rule_rows(spec_text: str) -> list[RuleRow]:
    """Every row of every rule table: a table whose header starts with "ID".

    Raises ValueError on a rule table row whose first cell is not a rule ID or that has
    no "Implemented in" cell, so a malformed row cannot silently drop out of the checks.
    """
    rows: list[RuleRow] = []
    header: list[str] | None = None
    for number, line in enumerate(spec_text.splitlines(), start=1):
        if not line.lstrip().startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            continue
        if _is_separator(cells) or not header or header[0] != "ID":
            continue
        rule_id = cells[0].strip("`*")
        if not RULE_ID.match(rule_id) or is_register_id(rule_id):
            raise ValueError(f"specs/rules.md line {number}: {cells[0]!r} is not a rule ID")
        if IMPLEMENTED_IN not in header:
            raise ValueError(f"specs/rules.md line {number}: the table has no {IMPLEMENTED_IN!r} column")
        column = header.index(IMPLEMENTED_IN)
        if column >= len(cells):
            raise ValueError(f"specs/rules.md line {number}: {rule_id} has no {IMPLEMENTED_IN!r} cell")
        rows.append(RuleRow(rule_id, cells[column], number))
    return rows


def spec_rule_ids(spec_text: str) -> set[str]:
    return {row.rule_id for row in parse_rule_rows(spec_text)}


def duplicate_ids(spec_text: str) -> list[str]:
    """The IDs that have more than one row in the spec."""
    counts = Counter(row.rule_id for row in parse_rule_rows(spec_text))
    return sorted(rule_id for rule_id, n in counts.items() if n > 1)


def ids_named(test_text: str) -> set[str]:
    """The rule-shaped IDs a test source names, without register IDs (AMB/ED/PAR)."""
    return {t for t in RULE_ID_IN_TEXT.findall(test_text) if not is_register_id(t)}


def unnamed_ids(spec_text: str, test_texts: dict[str, str]) -> list[str]:
    """The spec's rule IDs that no test text names."""
    named: set[str] = set()
    for text in test_texts.values():
        named |= ids_named(text)
    return sorted(spec_rule_ids(spec_text) - named)


def unknown_ids(spec_text: str, test_texts: dict[str, str]) -> dict[str, list[str]]:
    """Per test file, the rule IDs it names that the spec does not have."""
    known = spec_rule_ids(spec_text)
    out: dict[str, list[str]] = {}
    for name, text in sorted(test_texts.items()):
        unknown = sorted(ids_named(text) - known)
        if unknown:
            out[name] = unknown
    return out


def missing_modules(spec_text: str, package: Path) -> dict[str, list[str]]:
    """Per rule ID, the "Implemented in" paths that do not exist under `package`
    (a row naming no path at all is reported as "<none>")."""
    out: dict[str, list[str]] = {}
    for row in parse_rule_rows(spec_text):
        paths = MODULE_PATH.findall(row.implemented_in)
        missing = [p for p in paths if not (package / p).is_file()] if paths else ["<none>"]
        if missing:
            out.setdefault(row.rule_id, []).extend(missing)
    return out


def _spec_text() -> str:
    return SPEC.read_text(encoding="utf-8")


def _test_texts() -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(TESTS.rglob("*.py"))
        if path.resolve() != THIS_FILE
    }


# --- the real spec and tests -----------------------------------------------------------


def test_spec_has_rule_ids() -> None:
    assert spec_rule_ids(_spec_text()), "specs/rules.md has no rule table rows"


def test_every_rule_id_is_named_by_a_test() -> None:
    unnamed = unnamed_ids(_spec_text(), _test_texts())
    assert not unnamed, f"{len(unnamed)} rule ID(s) in specs/rules.md are named by no test: " + ", ".join(
        unnamed
    )


def test_tests_name_only_rule_ids_in_the_spec() -> None:
    unknown = unknown_ids(_spec_text(), _test_texts())
    assert not unknown, "tests name rule IDs that specs/rules.md does not have: " + "; ".join(
        f"{name}: {', '.join(ids)}" for name, ids in unknown.items()
    )


def test_no_rule_id_has_two_rows() -> None:
    duplicates = duplicate_ids(_spec_text())
    assert not duplicates, "rule IDs with more than one row in specs/rules.md: " + ", ".join(duplicates)


def test_implementing_modules_exist() -> None:
    missing = missing_modules(_spec_text(), PACKAGE)
    assert not missing, "'Implemented in' paths missing under src/village_rules/: " + "; ".join(
        f"{rule_id}: {', '.join(paths)}" for rule_id, paths in missing.items()
    )


# --- the checker itself, on synthetic texts ---------------------------------------------

SYNTHETIC_SPEC = """\
# Rules

Prose mentioning FOO-09 and AMB-01 is not a rule row.

| ID | Rule | Source (2023) | Source (2011) | Implemented in | Notes |
| --- | --- | --- | --- | --- | --- |
| FOO-01 | first | p. 1 | "A" | engine/foo.py | AMB-01, ED-02 |
| FOO-02 | second | p. 2 | "B" | foo.py, engine/bar.py (helper) | PAR-03 |

| Term | Meaning |
| --- | --- |
| BAR-01 | a row of a table that is not a rule table |
"""


def test_checker_reports_an_unnamed_id() -> None:
    tests = {
        "tests/test_a.py": 'def test_a() -> None:\n    assert "FOO-01" in trace  # see AMB-01\n',
        "tests/test_b.py": "# nothing about rules here; SHA-256 and xFOO-02 are not IDs\n",
    }
    assert spec_rule_ids(SYNTHETIC_SPEC) == {"FOO-01", "FOO-02"}
    assert unnamed_ids(SYNTHETIC_SPEC, tests) == ["FOO-02"]
    tests["tests/test_c.py"] = "RULES = ['FOO-02']\n"
    assert unnamed_ids(SYNTHETIC_SPEC, tests) == []


def test_checker_reports_unknown_and_duplicate_ids_and_missing_modules(tmp_path: Path) -> None:
    tests = {"tests/test_a.py": "# FOO-01, FOO-03, ED-07, PAR-01, AMB-12\n"}
    assert unknown_ids(SYNTHETIC_SPEC, tests) == {"tests/test_a.py": ["FOO-03"]}

    doubled = SYNTHETIC_SPEC.replace("| FOO-02 | second", "| FOO-01 | second")
    assert duplicate_ids(doubled) == ["FOO-01"]
    assert duplicate_ids(SYNTHETIC_SPEC) == []

    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "foo.py").write_text("", encoding="utf-8")
    (tmp_path / "foo.py").write_text("", encoding="utf-8")
    assert missing_modules(SYNTHETIC_SPEC, tmp_path) == {"FOO-02": ["engine/bar.py"]}
