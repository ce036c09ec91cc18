"""Write docs/images/viewer.png: the step-through page of a stored divergence witness, at
its highlighted step, as headless Chromium shows it.

    python scripts/viewer_screenshot.py   # needs the viewer-test extra and /usr/bin/chromium

Unlike the SVG pictures (scripts/make_pictures.py), the screenshot depends on the browser
and its fonts, so no test compares it; run this again when the page's look changes."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from village_rules.check.stories import story_of_file
from village_rules.pictures.viewer import viewer_html
from village_rules.readings.stored import WITNESSES

OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "viewer.png"
WITNESS = WITNESSES / "AMB-01-big-box-2023-c-a.json"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        page_file = Path(folder) / "witness.html"
        page_file.write_text(viewer_html(story_of_file(WITNESS)))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1300, "height": 760})
            page.goto(page_file.as_uri())
            page.wait_for_selector("#board svg")
            page.screenshot(path=str(OUT))
            browser.close()
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
