"""village_rules.check.stories: the viewer's stories of game logs, fuzz failure logs, proof
witnesses and divergence witnesses (which step is highlighted, and why), and the files it
refuses; the report's witness rows link their step-through pages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from village_rules.check import stories
from village_rules.check.report import write_report
from village_rules.check.steps import VIEWER_STEPS, CheckContext, CheckOutcome, DivergenceStep, ProofsStep
from village_rules.check.stories import story_of_file, witness_query
from village_rules.checks.invariants import Violation, state_violations
from village_rules.drivers.play import GameLog, play_logged
from village_rules.engine.core import chance_outcomes, legal_actions
from village_rules.errors import ViewError
from village_rules.model.actions import format_action
from village_rules.proofs.table.stored import WITNESSES
from village_rules.readings.stored import WITNESSES as DIVERGENCE_WITNESSES
from village_rules.readings.stored import read_witness

PROOF = WITNESSES / "6a-mass-four-monks-original-2011-2p.json"
DIVERGENCE = DIVERGENCE_WITNESSES / "AMB-26-big-box-2023-b-a.json"


@pytest.fixture(scope="module")
def short_log() -> GameLog:
    _, log = play_logged("original-2011", 2, seed=3)
    return GameLog(log.edition, log.players, log.seed, log.actions[:40], log.variant)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_game_log_is_told_step_by_step_with_words_and_rule_ids(tmp_path: Path, short_log: GameLog) -> None:
    story = story_of_file(write(tmp_path, "game.json", short_log.to_json()))
    assert story.kind == "game log" and story.highlight is None and story.first == 0
    assert len(story.frames) == 41
    assert story.frames[0].action is None
    assert [f.action for f in story.frames[1:]] == list(short_log.actions)
    assert all(f.words and "=" not in f.words for f in story.frames[1:])
    assert any(rule.startswith("SEED") for f in story.frames for rule in f.rules)
    assert "every invariant holds" in story.summary


def test_a_fuzz_failure_log_highlights_the_action_that_cannot_be_applied(
    tmp_path: Path, short_log: GameLog
) -> None:
    broken = GameLog(short_log.edition, short_log.players, short_log.seed, (*short_log.actions, "mill"))
    story = story_of_file(write(tmp_path, "failure.json", broken.to_json()))
    assert story.kind == "failing game log"
    assert story.highlight == 40 == len(story.frames) - 1
    assert "action 41 ('mill') cannot be applied" in story.note


def test_a_broken_invariant_is_highlighted_where_it_breaks(
    tmp_path: Path, short_log: GameLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine bug the invariants see at step 17: the story stops and lights that step."""
    real = state_violations
    calls = {"n": 0}

    def seventeenth(state, legal=None):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        found = real(state, legal)
        injected = Violation("test-injected", "the board", "nothing wrong", "a bug at the 17th action")
        return [*found, injected] if calls["n"] == 18 else found

    monkeypatch.setattr(stories, "state_violations", seventeenth)
    story = story_of_file(write(tmp_path, "bug.json", short_log.to_json()))
    assert story.kind == "failing game log" and story.highlight == 17 == len(story.frames) - 1
    assert "test-injected" in story.note


def test_a_proof_witness_highlights_the_first_step_where_its_query_holds() -> None:
    query = witness_query(PROOF.name)
    assert query is not None and query.number == "6a"
    story = story_of_file(PROOF)
    log = GameLog.from_json(PROOF.read_text())
    assert story.kind == "proof witness"
    assert story.highlight == len(log.actions)  # the stored witness holds at its end only
    assert "query 6a holds here" in story.note and query.title in story.summary


def test_a_proof_witness_names_the_step_even_when_it_is_not_the_last(tmp_path: Path) -> None:
    """One more action after the step where the query holds: the step is found, not
    assumed to be the last."""
    log = GameLog.from_json(PROOF.read_text())
    story = story_of_file(PROOF)
    end = stories._replay(log).states[-1]
    more = chance_outcomes(end)[0][0] if end.is_chance else legal_actions(end)[0]
    longer = GameLog(log.edition, log.players, log.seed, (*log.actions, format_action(more)), log.variant)
    told = story_of_file(write(tmp_path, PROOF.name, longer.to_json()))
    assert told.highlight == story.highlight == len(log.actions)
    assert len(told.frames) == len(story.frames) + 1


def test_a_divergence_witness_highlights_where_the_readings_part() -> None:
    witness = read_witness(DIVERGENCE)
    story = story_of_file(DIVERGENCE)
    assert story.kind == "divergence witness"
    assert story.highlight == len(witness.actions) == len(story.frames) - 1
    assert story.note.startswith(
        f"readings {witness.amb} {witness.left_letter}/{witness.right_letter} part here"
    )
    assert story.detail == witness.detail  # the whole difference, folded on the page


def test_a_window_draws_only_the_last_steps_up_to_the_highlight() -> None:
    story = story_of_file(PROOF, window=VIEWER_STEPS)
    assert story.highlight is not None
    assert story.first == story.highlight - VIEWER_STEPS
    assert len(story.frames) == VIEWER_STEPS + 1


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("report.json", json.dumps({"format": "village-rules-fuzz-report"}), "this is a fuzz report"),
        ("state.json", json.dumps({"format": "village-rules-state"}), "this is a saved state"),
        ("x.proof.json", json.dumps({"query": "q", "verdict": "unreachable"}), "unreachability proof"),
        ("other.json", json.dumps({"format": "something"}), "not a game log or witness"),
        ("list.json", "[1, 2]", "not a game log or witness"),
        ("bad.json", "{not json", "not a game log or witness"),
        ("log.json", json.dumps({"format": "village-rules-log", "format_version": 1}), "a broken game log"),
        ("w.json", json.dumps({"format": "village-rules-witness"}), "a broken divergence witness"),
    ],
)
def test_anything_else_is_refused_saying_what_it_is(tmp_path: Path, name: str, text: str, says: str) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(ViewError, match=says) as caught:
        story_of_file(path)
    assert str(path) in str(caught.value)


def test_a_missing_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ViewError, match="cannot be read"):
        story_of_file(tmp_path / "nothing.json")


def test_the_report_links_a_step_through_page_for_each_witness(tmp_path: Path) -> None:
    proofs = tmp_path / "proofs"
    proofs.mkdir()
    shutil.copy(PROOF, proofs / PROOF.name)
    readings = tmp_path / "readings"
    readings.mkdir()
    for path in DIVERGENCE_WITNESSES.glob(f"{DIVERGENCE.stem}*"):
        shutil.copy(path, readings / path.name)
    out = tmp_path / "report"
    context = CheckContext(out, 0, 1, None, shown_dir=out)
    results = [ProofsStep(directory=proofs).run(context), DivergenceStep(directory=readings).run(context)]
    pages = [f.viewer for r in results for f in r.findings]
    assert pages == [f"proofs/{PROOF.stem}.html", f"readings/{DIVERGENCE.stem}.html"]
    for page in pages:
        assert page is not None
        text = (out / page).read_text()
        assert 'id="slider"' in text and 'id="note"' in text
    index = write_report(out, CheckOutcome(tuple(results), 1.0)).read_text()
    assert index.count(">step through</a>") == 2
    assert f'href="proofs/{PROOF.stem}.html"' in index
