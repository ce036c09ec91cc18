"""Shared test configuration.

Tests of an optional extra (OpenSpiel, PettingZoo, Ray, plotting, docs tooling) import it
with `pytest.importorskip`, so the default suite passes on the core `[dev]` install. CI
installs every extra and runs those tests with `VILLAGE_REQUIRE_EXTRAS=1`: then a skip
caused by a missing import is turned into a failure, so an extra that failed to install
cannot pass silently. Likewise with `VILLAGE_REQUIRE_TEXTS=1` a test skipped because
`VILLAGE_RULES_TEXTS` (the folder of the rules texts, `support.rules_texts`) is unset fails.

Hypothesis keeps no example database during the tests (unless `VILLAGE_HYPOTHESIS_DB`
names one): the suite runs on several xdist workers, and a shared `.hypothesis/examples`
directory would let one run's failures steer the next run's examples. The `ci` and `long`
profiles of `village_rules.testing` have no database either.

`prove`'s gate checks the link on every edge of the explorer's small configurations
(`village_rules.cli.prove.EDGE_CONFIGS`: tiny, births, small) before its first proof:
about 75 s of CPU, in every `prove` run that proves a row unreachable. In the suite that
check is left out unless a test is marked `gate_edges`: the edge check itself is tested
on tiny (tests/explore/test_content_edges.py, tests/proofs/test_gate.py), and CI's
`village-rules prove --expect` step runs the whole gate.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from support import TEXTS_SKIP

from village_rules.cli import prove as cli_prove

_MISSING_IMPORT = ("could not import", "No module named")

_DB = os.environ.get("VILLAGE_HYPOTHESIS_DB")
# No deadline and no too-slow health check: an example's wall time depends on the machine
# and its load, and no verdict of a test may (the default 200 ms deadline would turn a slow
# example on a loaded machine into a failure).
settings.register_profile(
    "village-tests",
    database=DirectoryBasedExampleDatabase(_DB) if _DB else None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("village-tests")


@pytest.fixture(autouse=True)
def _gate_without_explored_edges(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """No explored edges in `prove`'s gate unless the test is marked `gate_edges` (above)."""
    if request.node.get_closest_marker("gate_edges") is None:
        monkeypatch.setattr(cli_prove, "EDGE_CONFIGS", ())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if os.environ.get("VILLAGE_REQUIRE_EXTRAS") == "1" and report.skipped:
        reason = str(report.longrepr)
        if any(marker in reason for marker in _MISSING_IMPORT):
            report.outcome = "failed"
            report.longrepr = f"VILLAGE_REQUIRE_EXTRAS=1 but an optional extra is missing: {reason}"
    if os.environ.get("VILLAGE_REQUIRE_TEXTS") == "1" and report.skipped:
        reason = str(report.longrepr)
        if TEXTS_SKIP in reason:
            report.outcome = "failed"
            report.longrepr = f"VILLAGE_REQUIRE_TEXTS=1 but the rules texts are not given: {reason}"
    return report
