"""The stored proof verdicts are re-checked by `village_rules.proofs.stored` and by the
`proofs` step of `village-rules check`, the divergence witnesses by its `readings` step;
a tampered witness or proof is caught."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from village_rules.check.steps import CheckContext, DivergenceStep, ProofsStep, default_steps
from village_rules.drivers.play import GameLog
from village_rules.proofs.stored import check_proof, check_stored, check_witness, proof_files, witness_files

WITNESSES = Path(__file__).resolve().parent.parent / "proofs" / "witnesses"
DIVERGENCE = Path(__file__).resolve().parent.parent / "specs" / "witnesses"


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


def test_a_proof_with_another_invariant_is_caught(tmp_path: Path) -> None:
    source = proof_files(WITNESSES)[0]
    raw = json.loads(source.read_text(encoding="utf-8"))
    raw["invariant"] = [*raw["invariant"], "an invariant nobody proved"]
    forged = tmp_path / source.name
    forged.write_text(json.dumps(raw), encoding="utf-8")
    outcome = check_proof(forged)
    assert not outcome.passed
    assert "another invariant" in outcome.detail


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
