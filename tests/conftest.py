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
`village-rules prove --expect` step runs the whole gate. Likewise the gate's link games are
cut at `QUICK_GATE_STEPS` steps each and its hunt at `QUICK_HUNT_STEPS` steps per row,
unless a test is marked `full_gate` (the gate's and the link's own test modules are): a
`prove` run in a test of its options, files or output then spends about 8 s in the gate
rather than 17 s (since 2026-12-08).

The native core's tests (tests/native/) need the optional extension (docs/native.md). Where
it is not built, each of their modules is skipped whole, with the reason, before it is
imported; under VILLAGE_REQUIRE_NATIVE=1 (CI's native install, where a skip would hide a
failed build) it fails instead (`NeedsNative`). `test_native_optional.py` tests this, without
the extension, and runs everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from support import TEXTS_SKIP

from village_rules.cli import prove as cli_prove
from village_rules.proofs.gate import gate as gate_module

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


@pytest.fixture(scope="session")
def local_ray() -> Generator[None, None, None]:
    """One local Ray instance of 2 CPUs for every test of the session that asks for it (the
    fuzzer's Ray backend, the native explorer's shards on Ray): Ray's start, about 10 to 20 s
    of CPU, once. Skips without the distributed extra."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


QUICK_GATE_STEPS = 300
"""The gate's link games, each cut at this many steps outside the `full_gate` tests (the
gate's own budget is `gate.GATE_MAX_STEPS`, 3,000)."""

QUICK_HUNT_STEPS = 100
"""The gate's hunt per edition and player count outside the `full_gate` tests (the command
line's is `cli.prove.GATE_HUNT_STEPS`, 1,000)."""


@pytest.fixture(autouse=True)
def _gate_without_explored_edges(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """No explored edges in `prove`'s gate unless the test is marked `gate_edges`, and a
    shorter link and hunt unless it is marked `full_gate` (above)."""
    if request.node.get_closest_marker("gate_edges") is None:
        monkeypatch.setattr(cli_prove, "EDGE_CONFIGS", ())
    if request.node.get_closest_marker("full_gate") is None:
        monkeypatch.setattr(gate_module, "GATE_MAX_STEPS", QUICK_GATE_STEPS)
        monkeypatch.setattr(cli_prove, "GATE_HUNT_STEPS", QUICK_HUNT_STEPS)


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


NATIVE_TESTS = Path(__file__).parent / "native"
RUN_WITHOUT_THE_EXTENSION = frozenset({"test_native_optional.py"})


def native_missing() -> str | None:
    """Why `village_rules.native` cannot be imported (None when it can)."""
    try:
        import village_rules.native  # noqa: F401, PLC0415 (the question is whether it imports)
    except ImportError as exc:
        return str(exc)
    return None


class NeedsNative(pytest.Module):
    """A test module of tests/native/, collected only where the native core is built."""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        missing = native_missing()
        if missing is not None:
            if os.environ.get("VILLAGE_REQUIRE_NATIVE") == "1":
                failed = f"VILLAGE_REQUIRE_NATIVE=1 but the native core is not built: {missing}"
                pytest.fail(failed, pytrace=False)
            skipped = f"the native core is not built (optional extension): {missing}"
            pytest.skip(skipped, allow_module_level=True)
        return super().collect()


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    """tests/native/'s test modules but those that run without the extension: `NeedsNative`."""
    if module_path.parent != NATIVE_TESTS or module_path.name in RUN_WITHOUT_THE_EXTENSION:
        return None
    if not module_path.name.startswith("test_"):
        return None
    module: pytest.Module = NeedsNative.from_parent(parent, path=module_path)
    return module


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A `by_hand` test must be `slow` too: CI's slow step leaves `by_hand` out, and one
    that is not `slow` would run in the default suite after all (tests/README.md, By hand)."""
    for item in items:
        if item.get_closest_marker("by_hand") and not item.get_closest_marker("slow"):
            raise pytest.UsageError(f"{item.nodeid} is marked by_hand but not slow")
