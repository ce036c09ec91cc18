"""Issue 28: the report lists proof rows in query order ("1a" < "2" < "11"), not as text,
and has a table of contents linking a section per step and its parts."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from support import ROOT

from village_rules.check.report import write_report
from village_rules.check.steps import CheckContext, CheckOutcome, ProofsStep, StepResult
from village_rules.data.text import natural_key

WITNESSES = ROOT / "proofs" / "witnesses"
CHOSEN = [
    "11-no-living-member-acts-big-box-2023-2p.json",
    "2-free-final-action-big-box-2023-2p.json",
    "1a-end-market-other-big-box-2023-2p.json",
]


def test_natural_order_reads_numbers_by_value() -> None:
    names = ["11-a", "2-b", "1a-c", "1b-d", "1-e", "13b-f", "9b-g"]
    assert sorted(names) == ["1-e", "11-a", "13b-f", "1a-c", "1b-d", "2-b", "9b-g"]  # text: wrong
    assert sorted(names, key=natural_key) == ["1-e", "1a-c", "1b-d", "2-b", "9b-g", "11-a", "13b-f"]


def test_the_report_has_proof_rows_in_query_order_and_a_contents(tmp_path: Path) -> None:
    stored = tmp_path / "stored"
    stored.mkdir()
    for name in CHOSEN:
        shutil.copy(WITNESSES / name, stored / name)
    proofs = ProofsStep(stored).run(CheckContext(tmp_path / "report"))
    assert proofs.passed, proofs.details
    titles = [f.title for f in proofs.findings]
    assert [t.split()[1].split("-")[0] for t in titles] == ["1a", "2", "11"]
    other = StepResult("readings", True, "nothing to replay")
    index = write_report(tmp_path / "report", CheckOutcome((other, proofs), 1.0))
    page = index.read_text(encoding="utf-8")
    rows = re.findall(r"<td>witness (\w+)-", page)
    assert rows == ["1a", "2", "11"]
    nav = page[page.index('<nav class="toc">') : page.index("</nav>")]
    links = re.findall(r'href="#([\w-]+)"', nav)
    assert links == ["step-0", "step-1", "step-1-findings"]
    for anchor in links:  # every link of the contents has its section
        assert f'<section id="{anchor}">' in page
    assert page.index("</nav>") < page.index('<section id="step-0">')
    assert "findings (3)" in nav and 'href="#top"' in page and 'id="top"' in page
