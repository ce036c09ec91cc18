"""The explorer's workers as Ray actors (village_rules.explore.ray_pool, the `distributed`
extra): what it refuses before any work (no PYTHONHASHSEED, Ray not installed), and, on a
local Ray instance of 2 CPUs,
`tiny` over 2 actors with the single-process counts, terminal states, deadlocks and
verdicts, a planted rule bug found by the actors, and actors that hash strings another way
refused.

The Ray run is a subprocess with PYTHONHASHSEED set (this process may have none: its
hashes are fixed when it starts). Skipped without Ray; `.ci/run` runs these with the extra
installed and VILLAGE_REQUIRE_EXTRAS=1, where a missing Ray fails instead."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support import TINY_STATES

from village_rules.cli.main import main
from village_rules.explore import ray_pool, search
from village_rules.explore.configs import configuration
from village_rules.explore.parallel import explore_parallel
from village_rules.explore.ray_pool import RayUnavailableError

TINY = configuration("tiny")

RUN_ON_RAY = """
import json, os, sys
from pathlib import Path
import ray

PLANTED = Path(sys.argv[1])  # the planted bug is on while this file exists


def plant():  # run in every Ray worker process as it starts (Ray's worker_process_setup_hook)
    from village_rules.checks.invariants import Violation
    from village_rules.explore import search
    real = search.state_violations

    def broken(state, legal=None):
        if PLANTED.exists():
            return [Violation("planted", "state", "nothing", "always")]
        return real(state, legal)

    search.state_violations = broken


ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
         runtime_env={"worker_process_setup_hook": plant})
from village_rules.cli.main import main
from village_rules.explore.configs import configuration
from village_rules.explore.parallel import explore_parallel

# the command line, with the bug planted in every actor: its report counts the violations
PLANTED.touch()
code = main(["explore", "tiny", "--ray", "--workers", "2", "--quiet", "--no-monitors",
             "--query", "free-final-action"])
print(f"exit {code}", flush=True)
PLANTED.unlink()
figures = {}
r = explore_parallel(configuration("tiny").data, 2, workers=2, ray=True)
figures["clean"] = {
    "roots": r.roots, "states": r.states, "edges": r.edges, "depth": r.depth,
    "terminal": dict(r.terminal), "deadlocks": r.deadlocks, "violations": r.violation_count,
    "kept violations": [v.invariant for _, v in r.violations],
    "states checked": r.states_checked, "edges checked": r.edges_checked,
    "verdicts": {q: [v.decided, None if v.witness is None else len(v.witness[1])]
                 for q, v in r.verdicts.items()},
}
from village_rules.explore import ray_pool
from village_rules.explore.ray_pool import RayUnavailableError
ray_pool.hash_seed = lambda: "1"  # actors given another seed than this process's 0
try:
    explore_parallel(configuration("tiny").data, 2, workers=2, ray=True)
except RayUnavailableError as exc:
    figures["another seed"] = str(exc)
ray.shutdown()
print(json.dumps(figures))
"""


def _figures(r: search.Exploration) -> dict[str, object]:
    return {
        "roots": r.roots,
        "states": r.states,
        "edges": r.edges,
        "depth": r.depth,
        "terminal": dict(r.terminal),
        "deadlocks": r.deadlocks,
        "violations": r.violation_count,
        "kept violations": [v.invariant for _, v in r.violations],
        "states checked": r.states_checked,
        "edges checked": r.edges_checked,
        "verdicts": {
            q: [v.decided, None if v.witness is None else len(v.witness[1])] for q, v in r.verdicts.items()
        },
    }


def test_tiny_over_two_ray_actors_has_the_single_process_figures_and_finds_a_planted_bug(
    tmp_path: Path,
) -> None:
    pytest.importorskip("ray")
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", RUN_ON_RAY, str(tmp_path / "planted")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    # the command line's --ray, the bug planted: every state flagged, by the actors
    assert "exit 1" in lines, done.stdout
    assert f"states      {TINY_STATES:,} distinct" in done.stdout
    assert f"every state invariant at {TINY_STATES:,} states" in done.stdout
    assert f": {TINY_STATES} violation(s)" in done.stdout
    kept = [line for line in lines if line.startswith("VIOLATION at state ")]
    assert len(kept) == search.MAX_VIOLATIONS and all("planted" in line for line in kept), kept
    assert "free-final-action        reachable: shortest witness 5 actions" in done.stdout
    on_ray = json.loads(lines[-1])
    alone = search.explore(TINY.data, 2)
    assert on_ray["clean"] == _figures(alone)  # unplanted: the one process's figures
    assert "worker 0 hashes strings differently from this process" in on_ray["another seed"]


def test_a_run_on_ray_without_pythonhashseed_is_refused_before_any_work(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    with pytest.raises(RayUnavailableError, match="unless PYTHONHASHSEED is set"):
        explore_parallel(TINY.data, 2, workers=2, ray=True)
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    with pytest.raises(RayUnavailableError, match="PYTHONHASHSEED=0 village-rules explore"):
        explore_parallel(TINY.data, 2, workers=2, ray=True)
    assert main(["explore", "tiny", "--ray", "--workers", "2"]) == 2
    assert "unless PYTHONHASHSEED is set" in capsys.readouterr().err


def test_without_the_extra_the_error_names_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed: `import ray` fails
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    with pytest.raises(RayUnavailableError, match=r"village-rules\[distributed\]"):
        explore_parallel(TINY.data, 2, workers=2, ray=True)
    assert main(["explore", "tiny", "--ray"]) == 2
    assert "needs the distributed extra" in capsys.readouterr().err


def test_an_address_that_cannot_be_reached_is_refused_at_once() -> None:
    pytest.importorskip("ray")
    with socket.socket() as free:  # a port nothing listens on once this socket is closed
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    address = f"127.0.0.1:{port}"
    unreachable = pytest.raises(RayUnavailableError, match=f"cannot reach the Ray cluster at '{address}'")
    with unreachable, ray_pool.session(address, 2):
        pass
    with pytest.raises(RayUnavailableError, match="not host:port"), ray_pool.session("nowhere", 2):
        pass


def test_the_ray_options_refuse_what_cannot_work(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "tiny", "--ray-address", "auto"]) == 2
    assert "--ray-address: is for a run on Ray; it does nothing without --ray" in capsys.readouterr().err
    assert main(["explore", "tiny", "--shape", "--ray"]) == 2
    assert "it takes no --workers, --ray" in capsys.readouterr().err
    with pytest.raises(Exception, match="a Ray address is for ray=True"):
        explore_parallel(TINY.data, 2, workers=2, ray_address="auto")
