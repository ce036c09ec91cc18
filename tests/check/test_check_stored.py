"""The stored proof verdicts are re-checked by `village_rules.proofs.table.stored` and by the
`proofs` step of `village-rules check`, the divergence witnesses by its `readings` step;
a tampered witness or proof is caught."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from support import ROOT

from village_rules.check.steps import CheckContext, DivergenceStep, ProofsStep, default_steps
from village_rules.cli import prove as cli_prove
from village_rules.cli.main import main
from village_rules.data.shipped import shipped_folder
from village_rules.drivers.play import GameLog
from village_rules.errors import InternalError
from village_rules.proofs.gate.gate import Gate
from village_rules.proofs.link.link import LinkResult
from village_rules.proofs.link.regressions import REGRESSIONS
from village_rules.proofs.table import stored as proofs_stored
from village_rules.proofs.table.run import Result
from village_rules.proofs.table.stored import (
    check_proof,
    check_stored,
    check_witness,
    proof_files,
    witness_files,
)
from village_rules.readings import stored as readings_stored

WITNESSES = ROOT / "proofs" / "witnesses"
DIVERGENCE = ROOT / "src" / "village_rules" / "readings" / "witnesses"


@pytest.mark.by_hand  # `village-rules check` runs the same check_stored (the README's main command, in CI)
@pytest.mark.slow  # ~20 s: 123 witnesses replayed, 42 proofs re-proved
@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_every_stored_verdict_rechecks() -> None:
    checks = check_stored(WITNESSES)
    assert {c.kind for c in checks} == {"witness", "proof"}
    assert [c for c in checks if not c.passed] == []


def test_a_witness_cut_short_is_caught(tmp_path: Path) -> None:
    source = witness_files(WITNESSES)[0]
    log = GameLog.from_json(source.read_text(encoding="utf-8"))
    cut = tmp_path / source.name
    cut.write_text(dataclasses.replace(log, actions=log.actions[:-1]).to_json(), encoding="utf-8")
    assert check_witness(source).passed
    outcome = check_witness(cut)
    assert not outcome.passed
    assert "does not end in the situation" in outcome.detail


@pytest.mark.parametrize(
    ("stem", "said"),
    [
        ("9-grain-short-at-harvest-big-box-2023-2p", "another invariant"),  # counts model
        ("14-death-during-mass-big-box-2023-2p", "names clauses the model lost"),  # rule content
    ],
)
def test_a_proof_with_another_invariant_is_caught(tmp_path: Path, stem: str, said: str) -> None:
    source = WITNESSES / f"{stem}.proof.json"
    raw = json.loads(source.read_text(encoding="utf-8"))
    raw["invariant"] = [*raw["invariant"], "an invariant nobody proved"]
    forged = tmp_path / source.name
    forged.write_text(json.dumps(raw), encoding="utf-8")
    outcome = check_proof(forged)
    assert not outcome.passed
    assert said in outcome.detail


def test_the_check_command_runs_the_proofs_step(tmp_path: Path) -> None:
    assert any(isinstance(step, ProofsStep) for step in default_steps(1))
    stored = tmp_path / "stored"
    stored.mkdir()
    for path in witness_files(WITNESSES)[:2] + proof_files(WITNESSES)[:1]:
        shutil.copy(path, stored / path.name)
    result = ProofsStep(stored).run(CheckContext(tmp_path / "report"))
    assert result.passed, result.details
    assert result.headline.startswith("2 reachable verdicts replayed on the engine, 1 unreachable")
    assert [f.log for f in result.findings if f.log] == [f"proofs/{p.name}" for p in witness_files(stored)]
    assert (tmp_path / "report" / "proofs" / witness_files(stored)[0].name).is_file()
    pictures = [f.picture for f in result.findings if f.picture]
    assert len(pictures) == 2
    assert (tmp_path / "report" / pictures[0]).read_text(encoding="utf-8").startswith("<svg")


def test_the_proofs_step_fails_without_stored_verdicts(tmp_path: Path) -> None:
    result = ProofsStep(tmp_path / "nowhere").run(CheckContext(tmp_path / "report"))
    assert not result.passed
    assert "no stored witnesses" in result.headline


def test_the_check_command_replays_the_divergence_witnesses(tmp_path: Path) -> None:
    assert any(isinstance(step, DivergenceStep) for step in default_steps(1))
    stored = tmp_path / "witnesses"
    stored.mkdir()
    source = sorted(p for p in DIVERGENCE.glob("AMB-26-*.json") if not p.name.endswith(".log.json"))[0]
    shutil.copy(source, stored / source.name)
    for log in DIVERGENCE.glob(f"{source.stem}.*.log.json"):
        shutil.copy(log, stored / log.name)
    result = DivergenceStep(stored).run(CheckContext(tmp_path / "report"))
    assert result.passed, result.details
    (finding,) = result.findings
    assert finding.log is not None and finding.log.endswith(".log.json")
    assert finding.picture is not None and (tmp_path / "report" / finding.picture).is_file()
    assert result.headline.startswith("1 divergence witnesses of 1 register entries")
    # a witness whose readings no longer part is caught
    raw = json.loads(source.read_text(encoding="utf-8"))
    raw["actions"] = raw["actions"][:1]
    (stored / source.name).write_text(json.dumps(raw), encoding="utf-8")
    broken = DivergenceStep(stored).run(CheckContext(tmp_path / "report2"))
    assert not broken.passed
    assert "no longer part" in broken.details[0]
    assert not DivergenceStep(tmp_path / "nowhere").run(CheckContext(tmp_path / "r3")).passed


# --- the stored artefacts are package data, found by one lookup --------------------------


def test_the_stored_artefacts_are_found_in_the_package_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With the development install the package is this tree's src/ and the proof results
    # this tree's proofs/ (data packages the editable install maps there): the one lookup
    # (village_rules.data.shipped) finds the folders there; a wheel has them all inside the
    # package, at village_rules/proofs/witnesses/ ... (.ci/run compares an installed package
    # with the tree).
    assert proofs_stored.WITNESSES.resolve() == WITNESSES.resolve()
    assert REGRESSIONS.resolve() == (ROOT / "proofs" / "regressions").resolve()
    assert readings_stored.WITNESSES.resolve() == DIVERGENCE.resolve()
    monkeypatch.chdir(tmp_path)  # a folder with no proofs/ or specs/ in it
    steps = default_steps(1)
    proofs = next(s for s in steps if isinstance(s, ProofsStep))
    divergence = next(s for s in steps if isinstance(s, DivergenceStep))
    assert proofs.directory.is_absolute() and witness_files(proofs.directory)
    assert divergence.directory.is_absolute() and any(divergence.directory.glob("AMB-*.json"))


def test_the_proof_results_have_one_home_at_the_top_of_the_tree() -> None:
    # proofs/ (issue 41): no second copy under src/, where the lookup would find it first
    package = ROOT / "src" / "village_rules" / "proofs"
    assert not (package / "witnesses").exists() and not (package / "regressions").exists()
    assert (WITNESSES / "results.json").is_file() and witness_files(WITNESSES)
    assert sorted((ROOT / "proofs" / "regressions").glob("*.json"))


def test_a_folder_outside_the_package_is_found_as_its_data_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as an editable install maps village_rules.proofs.witnesses to the clone's proofs/witnesses:
    # here the package's own folder has no witnesses/, a second path entry holds it
    package = tmp_path / "mapped_package"
    elsewhere = tmp_path / "elsewhere"
    package.mkdir()
    (elsewhere / "witnesses").mkdir(parents=True)
    (package / "__init__.py").write_text(f"__path__.append({str(elsewhere)!r})\n", encoding="utf-8")
    (elsewhere / "witnesses" / "__init__.py").write_text('"""Data."""\n', encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert shipped_folder("mapped_package", "witnesses") == elsewhere / "witnesses"
    # a folder without __init__.py there is a namespace package, not a mapped data package
    (elsewhere / "regressions").mkdir()
    with pytest.raises(InternalError, match=r"no mapped_package/regressions/ folder"):
        shipped_folder("mapped_package", "regressions")


def test_a_package_without_its_witnesses_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "fake_package"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(InternalError, match=r"no fake_package/witnesses/ folder \(package data missing"):
        shipped_folder("fake_package", "witnesses")


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_prove_starts_from_the_stored_witnesses_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[Path | None] = []

    def stub_seed(store: Path | None, *_args: object) -> None:
        seen.append(store)

    def stub_prove(*_args: object, **_kwargs: object) -> Result:
        return Result("end-market-other", "big-box-2023", 2, "unknown", "up to 0", 0.0, None)

    monkeypatch.setattr(cli_prove, "stored_witness", stub_seed)
    monkeypatch.setattr(cli_prove, "prove", stub_prove)
    monkeypatch.setattr(cli_prove, "open_gate", passing_gate)
    monkeypatch.chdir(tmp_path)
    args = ["prove", "end-market-other", "--edition", "big-box-2023", "--players", "2"]
    assert main([*args, "--out", str(tmp_path / "new")]) == 0
    assert main([*args, "--hints", str(tmp_path / "mine")]) == 0
    assert main([*args, "--no-hints"]) == 0
    assert seen == [proofs_stored.WITNESSES, tmp_path / "mine", None]
    assert main([*args, "--no-hints", "--hints", "x"]) == 2  # a usage error, returned as exit 2
    assert "not allowed with argument" in capsys.readouterr().err


def passing_gate(*_args: object, **_kwargs: object) -> Gate:
    """A gate that passed without playing a game: for the command-line tests of what
    `prove` does with its folders and hints, whose rows are stubbed too (the gate itself is
    tested in tests/proofs/test_gate.py; played here it cost about 12 s a call)."""
    return Gate(LinkResult(0, 0, None), {}, {}, frozenset())


# --- broken stored artefacts are FAIL rows naming the file, and the report is still written --


def broken_artefacts(tmp_path: Path) -> tuple[Path, Path]:
    """A proof folder with a stale witness and a malformed proof, a divergence folder with a
    witness missing a field: what issue 26 found ending `check` with exit 70 or no report."""
    proofs = tmp_path / "proofs"
    proofs.mkdir()
    witness = witness_files(WITNESSES)[0]
    raw = json.loads(witness.read_text(encoding="utf-8"))
    raw["actions"] = [*raw["actions"][:3], "serve 999"]  # stale: an action the engine refuses
    (proofs / witness.name).write_text(json.dumps(raw), encoding="utf-8")
    (proofs / proof_files(WITNESSES)[0].name).write_text('{"query": ', encoding="utf-8")
    divergence = tmp_path / "divergence"
    divergence.mkdir()
    source = sorted(p for p in DIVERGENCE.glob("AMB-26-*.json") if not p.name.endswith(".log.json"))[0]
    raw = json.loads(source.read_text(encoding="utf-8"))
    del raw["readings"]
    (divergence / source.name).write_text(json.dumps(raw), encoding="utf-8")
    return proofs, divergence


def test_broken_stored_artefacts_are_fail_rows_naming_the_file(tmp_path: Path) -> None:
    proofs, divergence = broken_artefacts(tmp_path)
    checks = check_stored(proofs)
    assert [c.passed for c in checks] == [False, False]
    witness, proof = checks
    assert "action 4 no longer applies" in witness.detail
    assert str(proof.path) in proof.detail and "not valid JSON" in proof.detail
    result = DivergenceStep(divergence).run(CheckContext(tmp_path / "report"))
    assert not result.passed
    assert "broken stored witness" in result.details[0] and "AMB-26" in result.details[0]
    assert "readings" in result.details[0]


def test_check_with_broken_artefacts_still_writes_a_failing_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    proofs, divergence = broken_artefacts(tmp_path)
    from village_rules.check import steps as check_steps  # noqa: PLC0415
    from village_rules.cli import pictures as cli_pictures  # noqa: PLC0415

    def stored_only(games: int, guided_actions: int | None = None) -> list[check_steps.CheckStep]:
        return [ProofsStep(proofs), DivergenceStep(divergence)]

    monkeypatch.setattr(cli_pictures, "default_steps", stored_only)
    report = tmp_path / "report"
    code = main(["check", "--games", "1", "--workers", "1", "--quiet", "--report", str(report)])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err and err == ""
    assert "[FAIL] proofs" in out and "[FAIL] readings" in out
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "verdict fail" in page and proof_files(WITNESSES)[0].name in page


def test_a_step_that_raises_is_a_fail_row(tmp_path: Path) -> None:
    from village_rules.check.steps import StepResult, run_check  # noqa: PLC0415

    class Exploding:
        name = "exploding"

        def run(self, context: CheckContext) -> StepResult:
            raise KeyError("a field")

    outcome = run_check([Exploding()], CheckContext(tmp_path))
    (result,) = outcome.results
    assert not result.passed and "internal error: KeyError" in result.headline


def test_prove_names_a_bad_hints_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hints = tmp_path / "hints"
    hints.mkdir()
    stem = "end-market-other-big-box-2023-2p"
    number = next(p.name.split("-", 1)[0] for p in witness_files(WITNESSES) if stem in p.name)
    bad = hints / f"{number}-{stem}.json"
    bad.write_text('{"format": "village-rules-log", "seed": ', encoding="utf-8")
    args = ["prove", "end-market-other", "--edition", "big-box-2023", "--players", "2"]
    code = main([*args, "--hints", str(hints)])
    out, err = capsys.readouterr()
    assert code == 2 and str(bad) in err and "not valid JSON" in err and out == ""  # before any row


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_an_interrupted_prove_out_leaves_the_folder_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "witnesses"
    out.mkdir()
    (out / "results.md").write_text("the old results\n", encoding="utf-8")

    def half_then_ctrl_c(*_args: object, out: Path | None = None, **_kwargs: object) -> Result:
        assert out is not None
        (out / "half-written.json").write_text("{", encoding="utf-8")
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_prove, "prove", half_then_ctrl_c)
    monkeypatch.setattr(cli_prove, "open_gate", passing_gate)
    args = ["prove", "end-market-other", "--edition", "big-box-2023", "--players", "2", "--no-hints"]
    assert main([*args, "--out", str(out)]) == 130
    assert sorted(p.name for p in out.iterdir()) == ["results.md"]
    assert (out / "results.md").read_text(encoding="utf-8") == "the old results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["witnesses"]  # no staging folder left


def test_an_interrupted_diverge_write_leaves_the_folder_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from village_rules.cli import readings as cli_readings  # noqa: PLC0415
    from village_rules.readings.divergence import Witness  # noqa: PLC0415

    source = sorted(p for p in DIVERGENCE.glob("AMB-26-*.json") if not p.name.endswith(".log.json"))[0]
    found = readings_stored.read_witness(source)
    calls: list[str] = []

    def one_then_ctrl_c(amb: str, *_args: object, **_kwargs: object) -> Witness:
        calls.append(amb)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return found

    monkeypatch.setattr(cli_readings, "search", one_then_ctrl_c)
    out = tmp_path / "witnesses"
    out.mkdir()
    (out / "keep.json").write_text("{}", encoding="utf-8")
    assert main(["diverge", "--all", "--write", str(out)]) == 130
    assert "written to" in capsys.readouterr().out  # the first witness was written, to the staging folder
    assert sorted(p.name for p in out.iterdir()) == ["keep.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["witnesses"]
