"""The step-through page in a real headless browser: Debian's Chromium (`/usr/bin/chromium`,
`apt-get install chromium`) driven by Playwright for Python with that system browser (the
`viewer-test` extra; Playwright's own browsers are never downloaded). Clicks through a
proof witness, a divergence witness and a failing game log and checks what is shown; then
opens every kind of page the project writes (a plain game log, docs/pictures.md's first
example among them, a proof witness, an explorer witness, a fuzz failure, the HTML report of
`report` and of the `check` steps, and the pages that report links) and checks on each that
the board draws, that no script error is logged and that every internal link resolves.

Skipped with a reason when Playwright or the browser is missing, unless
VILLAGE_REQUIRE_EXTRAS=1 (CI), which turns the skip into a failure."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

from support import loses_a_coin_at_the_market  # noqa: E402

from village_rules.check.report import write_report  # noqa: E402
from village_rules.check.steps import (  # noqa: E402
    CheckContext,
    CheckStep,
    DivergenceStep,
    FuzzStep,
    ProofsStep,
    run_check,
)
from village_rules.check.stories import story_of_file  # noqa: E402
from village_rules.cli.main import main  # noqa: E402
from village_rules.drivers.play import GameLog, play_logged  # noqa: E402
from village_rules.explore.witnesses import witness_name  # noqa: E402
from village_rules.fuzz.runner import run_fuzz  # noqa: E402
from village_rules.pictures.viewer import viewer_html  # noqa: E402
from village_rules.proofs.table.stored import WITNESSES  # noqa: E402
from village_rules.readings.stored import WITNESSES as DIVERGENCE_WITNESSES  # noqa: E402

CHROMIUM = Path(os.environ.get("VILLAGE_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PROOF = WITNESSES / "6a-mass-four-monks-original-2011-2p.json"
DIVERGENCE = DIVERGENCE_WITNESSES / "AMB-36-big-box-2023-a-b.json"
TIMEOUT_MS = 60_000  # a bound on a hung browser, not a measure: no verdict depends on speed


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.is_file() and shutil.which(str(CHROMIUM)) is None:
        reason = f"no browser at {CHROMIUM} (Debian: apt-get install chromium)"
        if os.environ.get("VILLAGE_REQUIRE_EXTRAS") == "1":
            pytest.fail(f"VILLAGE_REQUIRE_EXTRAS=1 but {reason}")
        pytest.skip(reason)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(offline=True)  # no network: the page must stand alone
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    requests: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    pg.on("request", lambda r: requests.append(r.url))
    yield pg
    context.close()
    assert errors == [], errors
    assert all(url.startswith("file://") for url in requests), requests  # nothing fetched from anywhere


def open_story(page: Any, tmp_path: Path, source: Path) -> Any:
    out = tmp_path / f"{source.stem}.html"
    out.write_text(viewer_html(story_of_file(source)))
    page.goto(out.as_uri())
    page.wait_for_selector("#board svg")
    return page


def at_step(page: Any, k: int) -> None:
    page.wait_for_function(f"document.getElementById('board').dataset.step === '{k}'")


def shown(page: Any) -> dict[str, Any]:
    return {
        "step": page.text_content("#step"),
        "action": page.text_content("#action"),
        "rules": page.text_content("#rules"),
        "lit": "highlighted" in (page.get_attribute("#caption", "class") or ""),
        "note": page.is_visible("#note"),
        "board": page.get_attribute("#board", "data-step"),
        "svg_title": page.text_content("#board svg title"),
    }


def test_a_proof_witness_opens_on_the_step_where_the_query_holds(page: Any, tmp_path: Path) -> None:
    log = GameLog.from_json(PROOF.read_text())
    n = len(log.actions)
    open_story(page, tmp_path, PROOF)
    at_step(page, n)
    now = shown(page)
    assert now["step"] == f"step {n} of {n}" and now["lit"] and now["note"]
    assert page.text_content("#note").startswith(f"step {n}: query 6a holds here")
    assert now["action"].startswith(f"action {n}: ") and f"[{log.actions[-1]}]" in now["action"]
    assert page.is_disabled("#next")
    page.click("#prev")
    at_step(page, n - 1)
    before = shown(page)
    assert before["step"] == f"step {n - 1} of {n}" and not before["lit"] and not before["note"]
    assert f"[{log.actions[n - 2]}]" in before["action"]
    page.click("#jump")
    at_step(page, n)
    assert shown(page)["lit"]


def test_the_slider_and_the_buttons_step_through_a_divergence_witness(page: Any, tmp_path: Path) -> None:
    story = story_of_file(DIVERGENCE)
    open_story(page, tmp_path, DIVERGENCE)
    page.fill("#slider", "0")
    at_step(page, 0)
    start = shown(page)
    assert start["action"] == "the start of the game (no action yet)" and not start["lit"]
    assert page.is_disabled("#prev")
    page.click("#next")
    at_step(page, 1)
    first = shown(page)
    assert first["action"] == f"action 1: {story.frames[1].words}  [{story.frames[1].action}]"
    assert first["rules"] == "rules applied: " + ", ".join(story.frames[1].rules)
    page.fill("#slider", "7")
    at_step(page, 7)
    seventh = story.frames[7]
    who = f"seat {seventh.seat} " if seventh.seat is not None else ""
    assert shown(page)["action"] == f"action 7: {who}{seventh.words}  [{seventh.action}]"
    page.keyboard.press("ArrowRight")  # on the focused slider: the browser moves it one step
    at_step(page, 8)
    page.locator("h1").click()  # the page itself: the viewer's own arrow keys
    page.keyboard.press("ArrowLeft")
    at_step(page, 7)
    last = len(story.frames) - 1
    page.fill("#slider", str(last))
    at_step(page, last)
    end = shown(page)
    assert end["lit"] and "readings AMB-36 a/b part here" in page.text_content("#note")


def test_a_failing_log_lights_the_action_that_fails(page: Any, tmp_path: Path) -> None:
    _, log = play_logged("big-box-2023", 2, seed=4)
    broken = GameLog(log.edition, log.players, log.seed, (*log.actions[:30], "mill"))
    source = tmp_path / "failure.json"
    source.write_text(broken.to_json())
    open_story(page, tmp_path, source)
    at_step(page, 30)
    now = shown(page)
    assert now["lit"] and "action 31 ('mill') cannot be applied" in page.text_content("#note")
    assert page.text_content("#kind") == "failing game log"
    # the board drawn is the state after action 30 (its picture names the last action)
    assert "round" in now["svg_title"]


# --- every kind of page the project writes (issue 42) ---------------------------------------


def links_resolve(page: Any) -> list[str]:
    """Every link of the open page checked: an anchor (`#x`) names an element of the page, a
    relative link a file that exists. Returns the relative links (the files they name)."""
    ids = set(page.eval_on_selector_all("[id]", "els => els.map((e) => e.id)"))
    hrefs: list[str] = page.eval_on_selector_all("a[href]", "els => els.map((e) => e.getAttribute('href'))")
    here = Path(page.evaluate("decodeURIComponent(location.pathname)")).parent
    dangling = [h for h in hrefs if h.startswith("#") and h[1:] not in ids]
    assert dangling == [], f"anchors that point nowhere: {dangling}"
    files = [h for h in hrefs if not h.startswith("#")]
    assert all("://" not in h for h in files), files  # nothing outside the report
    missing = [h for h in files if not (here / page.evaluate("(h) => decodeURIComponent(h)", h)).is_file()]
    assert missing == [], f"links to files that do not exist: {missing}"
    return files


def board_draws(page: Any, out: Path) -> None:
    """Open a viewer page and wait for the board: an SVG in `#board` at the step it opens on."""
    page.goto(out.as_uri())
    page.wait_for_selector("#board svg")
    assert page.get_attribute("#board", "data-step") is not None
    links_resolve(page)


def viewed(tmp_path: Path, source: Path) -> Path:
    """The page `village-rules view SOURCE` writes (the command itself, not the library)."""

    out = tmp_path / f"{source.name}.html"
    assert main(["view", str(source), "--out", str(out)]) == 0
    return out


def test_a_plain_game_log_draws_its_board(page: Any, tmp_path: Path) -> None:
    """docs/pictures.md's first example: `play --log game.json`, then `view game.json`. The
    page of a log with nothing to highlight has no `#note`; its script stopped on it
    (TypeError) and drew no board."""

    game = tmp_path / "game.json"
    argv = ["play", "--edition", "big-box-2023", "--players", "4", "--seed", "5", "--log", str(game)]
    assert main(argv) == 0
    out = viewed(tmp_path, game)
    board_draws(page, out)
    n = len(GameLog.from_json(game.read_text()).actions)
    at_step(page, 0)  # nothing highlighted: the page opens at the start
    assert shown(page)["step"] == f"step 0 of {n}" and not shown(page)["lit"]
    page.click("#next")
    at_step(page, 1)
    page.fill("#slider", str(n))
    at_step(page, n)
    assert page.is_disabled("#next")


def test_a_proof_witness_page_draws_its_board(page: Any, tmp_path: Path) -> None:
    board_draws(page, viewed(tmp_path, PROOF))
    assert shown(page)["lit"] and shown(page)["note"]


@pytest.fixture(scope="module")
def explorer_witness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A witness as `explore tiny --witnesses` writes it."""

    folder = tmp_path_factory.mktemp("explored")
    argv = ["explore", "tiny", "--no-check", "--quiet", "--witnesses", str(folder)]
    assert main([*argv, "--query", "free-final-action"]) == 0
    return folder / witness_name("tiny", 2, "free-final-action")


def test_an_explorer_witness_page_draws_its_board(page: Any, tmp_path: Path, explorer_witness: Path) -> None:
    board_draws(page, viewed(tmp_path, explorer_witness))
    assert shown(page)["lit"] and "query 2 holds here" in page.text_content("#note")


def test_a_fuzz_failure_page_draws_its_board(
    page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real fuzz failure: the fuzzer run on an engine with a planted bug writes the failing
    game's log; the page, made with the same bug, lights the action that breaks an invariant."""

    monkeypatch.setattr("village_rules.fuzz.games.apply", loses_a_coin_at_the_market)
    monkeypatch.setattr("village_rules.check.stories.apply", loses_a_coin_at_the_market)
    # the plant is in the reference engine: the games are played there
    summary = run_fuzz(4, 3, 1, None, None, tmp_path / "failures", engine="reference")
    assert summary.failure is not None and summary.failure.log_path is not None
    board_draws(page, viewed(tmp_path, Path(summary.failure.log_path)))
    assert shown(page)["lit"] and "conservation.coins" in page.text_content("#note")


def report_pages(page: Any, index: Path) -> None:
    """The report and, through its links, one page of each kind it links to: the viewer
    pages draw their board; every link of every page resolves."""
    page.goto(index.as_uri())
    page.wait_for_selector("h1#top")
    files = links_resolve(page)
    assert any(
        h.startswith("#step-0")
        for h in page.eval_on_selector_all("a[href]", "e => e.map((a) => a.getAttribute('href'))")
    )
    for anchor in page.eval_on_selector_all("nav.toc a", "e => e.map((a) => a.getAttribute('href'))"):
        page.click(f"nav.toc a[href='{anchor}']")  # the browser goes there: the element is the target
        assert page.evaluate("document.querySelector(':target') !== null"), anchor
    first_of_each: dict[tuple[Path, str], str] = {}
    for h in files:
        first_of_each.setdefault((Path(h).parent, Path(h).suffix), h)
    for (_, suffix), h in sorted(first_of_each.items()):
        target = index.parent / page.evaluate("(h) => decodeURIComponent(h)", h)
        if suffix == ".html":
            board_draws(page, target)
        elif suffix == ".svg":
            page.goto(target.as_uri())
            page.wait_for_selector("svg")


def test_the_report_of_logged_games_and_its_links(page: Any, tmp_path: Path) -> None:
    """A passing report, and a failing one (a log whose 31st action does not apply: a FAIL
    row with its log and picture): their contents' anchors and their links resolve."""
    _, log = play_logged("original-2011", 2, seed=3)
    game = tmp_path / "good.json"
    game.write_text(log.to_json())
    assert main(["report", str(game), "--report", str(tmp_path / "r"), "--quiet"]) == 0
    report_pages(page, tmp_path / "r" / "index.html")
    broken = tmp_path / "broken.json"
    broken.write_text(GameLog(log.edition, log.players, log.seed, (*log.actions[:30], "mill")).to_json())
    assert main(["report", str(game), str(broken), "--report", str(tmp_path / "f"), "--quiet"]) == 1
    report_pages(page, tmp_path / "f" / "index.html")


def test_the_check_report_and_its_links(page: Any, tmp_path: Path) -> None:
    """The report of `check`'s three kinds of step (a small fuzz run with its coverage
    comparison, a few stored proof witnesses and an unreachability proof, a few divergence
    witnesses), with the "step through" pages it links."""

    proofs = tmp_path / "proofs"
    proofs.mkdir()
    for name in (PROOF.name, "5-two-deaths-one-turn-big-box-2023-3p.proof.json"):
        shutil.copy(WITNESSES / name, proofs / name)
    readings = tmp_path / "readings"
    readings.mkdir()
    for p in DIVERGENCE_WITNESSES.glob("AMB-36-big-box-2023-a-b*.json"):
        shutil.copy(p, readings / p.name)
    out = tmp_path / "report"
    steps: list[CheckStep] = [
        FuzzStep(games=4, guided_actions=100),
        ProofsStep(proofs),
        DivergenceStep(readings),
    ]
    outcome = run_check(steps, CheckContext(out))
    assert outcome.passed, [r.headline for r in outcome.results]
    report_pages(page, write_report(out, outcome))
