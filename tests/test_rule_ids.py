"""`RuleId` (src/village_rules/rule_ids.py) is generated from specs/rules.md and the engine's
`fire` calls by scripts/generate_rule_ids.py: these tests fail when the file is out of date,
show once that the check catches a spec row with no member and a member with no row, and
keep rule-ID string literals out of src/ (they are `RuleId` members, checked by mypy)."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import tokenize
from types import ModuleType

import pytest
from support import ROOT

from village_rules import rule_ids
from village_rules.fuzz.runner import FuzzSummary
from village_rules.rule_ids import TRACED_RULE_IDS, RuleId

SPEC = ROOT / "specs" / "rules.md"
GENERATED = ROOT / "src" / "village_rules" / "rule_ids.py"


def _generator() -> ModuleType:
    script = ROOT / "scripts" / "generate_rule_ids.py"
    spec = importlib.util.spec_from_file_location("generate_rule_ids", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def out_of_date(spec_text: str, sources: dict[str, str], current: str) -> list[str]:
    """What is wrong with `current` as the generated file: spec rows with no member, members
    with no row, and any other difference from what the generator writes."""
    rows = set(GEN.spec_rule_ids(spec_text))
    members = {v for v in re.findall(r'^    [A-Z]+_\d\d = "([A-Z]+-\d\d)"', current, re.MULTILINE)}
    problems = [f"spec row with no member: {i}" for i in sorted(rows - members)]
    problems += [f"member with no spec row: {i}" for i in sorted(members - rows)]
    if not problems and GEN.render(spec_text, sources) != current:
        problems.append("differs from the generator's output (member order or TRACED_RULE_IDS)")
    return problems


def test_rule_ids_py_is_up_to_date_with_the_spec_and_the_engine() -> None:
    spec, current = SPEC.read_text(encoding="utf-8"), GENERATED.read_text(encoding="utf-8")
    problems = out_of_date(spec, GEN.engine_sources(), current)
    assert not problems, "run .venv/bin/python scripts/generate_rule_ids.py: " + "; ".join(problems)


UNKNOWN = "SET-" + "99"  # built, so tests/test_spec_trace.py does not read it as a named rule


def test_the_check_catches_a_row_without_a_member_and_a_member_without_a_row() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    sources = GEN.engine_sources()
    current = GENERATED.read_text(encoding="utf-8")
    row = next(line for line in spec.splitlines() if line.startswith("| SET-02 |"))
    new_row = row.replace("| SET-02 |", f"| {UNKNOWN} |", 1)
    assert out_of_date(spec.replace(row, row + "\n" + new_row), sources, current) == [
        f"spec row with no member: {UNKNOWN}"
    ]
    assert out_of_date(spec.replace(row + "\n", ""), sources, current) == ["member with no spec row: SET-02"]
    fired_once_more = dict(sources)
    fired_once_more["src/village_rules/engine/extra.py"] = "ctx.fire(RuleId.SET_02)\n"
    assert out_of_date(spec, fired_once_more, current) == [
        "differs from the generator's output (member order or TRACED_RULE_IDS)"
    ]


def test_the_generator_refuses_a_fire_call_of_an_unknown_rule() -> None:
    sources = {"src/village_rules/engine/x.py": f'ctx.fire("{UNKNOWN}")\nctx.fire(RuleId.MKT_10)\n'}
    with pytest.raises(GEN.SpecError, match=rf"x\.py: .*{UNKNOWN}"):
        GEN.render(SPEC.read_text(encoding="utf-8"), sources)
    assert GEN.fired_rule_ids('c.fire(RuleId.MKT_10 if x else "TRV-02")\n', "y.py") == {"MKT-10", "TRV-02"}


def test_members_are_the_spec_ids_and_read_as_their_text() -> None:
    assert [m.value for m in RuleId] == GEN.spec_rule_ids(SPEC.read_text(encoding="utf-8"))
    text: str = RuleId.MKT_10
    assert text == "MKT-10" and f"{RuleId.MKT_10}" == "MKT-10" and isinstance(text, str)
    assert json.dumps({"rule": RuleId.SET_01}) == '{"rule": "SET-01"}'
    assert RuleId("TRV-02") is RuleId.TRV_02
    with pytest.raises(ValueError):
        RuleId(UNKNOWN)


def test_the_fuzz_report_counts_against_the_traced_rule_ids() -> None:
    assert FuzzSummary.__dataclass_fields__["known_rule_ids"].default == TRACED_RULE_IDS
    assert list(TRACED_RULE_IDS) == sorted(TRACED_RULE_IDS)
    assert {RuleId.MKT_10, RuleId.SCORE_01} <= set(TRACED_RULE_IDS) < set(RuleId)
    assert RuleId.SET_01 not in TRACED_RULE_IDS  # a setup refusal, never fired in a trace
    assert rule_ids.__doc__ is not None and "generate_rule_ids.py" in rule_ids.__doc__


def rule_id_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal in a source that is a whole rule ID (not AMB/ED/PAR)."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.STRING:
            continue
        match = re.fullmatch(r"""(["'])([A-Z]+-\d\d)\1""", tok.string)
        if match and match.group(2).split("-")[0] not in {"AMB", "ED", "PAR"}:
            found.append((tok.start[0], match.group(2)))
    return found


def test_src_names_rules_by_member_not_by_string() -> None:
    left = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in sorted((ROOT / "src").rglob("*.py"))
        if path != GENERATED
        for line, text in rule_id_literals(path.read_text(encoding="utf-8"))
    ]
    assert not left, "rule-ID literals in src/ (run the rule-ID codemod): " + ", ".join(left)
    assert rule_id_literals('x = "MKT-10"\ny = "AMB-03"\nz = f"MKT-10"\n') == [(1, "MKT-10")]
