"""The step-through page in a real headless browser: Debian's Chromium (`/usr/bin/chromium`,
`apt-get install chromium`) driven by Playwright for Python with that system browser (the
`viewer-test` extra; Playwright's own browsers are never downloaded). Clicks through a
proof witness, a divergence witness and a failing game log and checks what is shown.

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

from village_rules.check.stories import story_of_file  # noqa: E402
from village_rules.drivers.play import GameLog, play_logged  # noqa: E402
from village_rules.pictures.viewer import viewer_html  # noqa: E402
from village_rules.proofs.stored import WITNESSES  # noqa: E402
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
