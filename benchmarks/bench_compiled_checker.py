"""How far compiling the invariant checker goes (not a test: figures vary by machine and
load). Needs mypyc (the `dev` extra's mypy) and a C compiler.

    python benchmarks/bench_compiled_checker.py [--rounds 3] [--games 20]

Copies `village_rules` into a temporary directory, compiles its `invariants` and
`incremental` modules there with mypyc (the engine stays interpreted, as it is the "bare"
side of the ratio), and measures, interleaved round by round, the invariant-checked / bare
ratio of seeded random playouts (the fuzzer's checks without the legal-set oracle: every
state and transition invariant, by `IncrementalChecker`) with the interpreted checker and
with the compiled one, each in its own process. Prints CPU µs per step and the ratios.

The one change the copy needs: mypyc compiles classes as native classes, which cannot
derive from `AssertionError`, so the copy marks `InvariantError` a plain Python class
(`mypyc_attr(native_class=False)`). Nothing is installed or changed in this tree.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_checks import positive_int  # (this script's folder is on sys.path)

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "village_rules"
COMPILED = ("invariants.py", "incremental.py")
ERROR_CLASS = "class InvariantError(VillageError, AssertionError):"

# Run in a child process (whose `village_rules` is the one on its PYTHONPATH): prints
# whether its checker is interpreted, then bare and checked CPU µs per step of the same
# seeded games, timed by bench_checks.py's playout loop (its modes 0 and 4).
PROBE = """
import sys
sys.path.insert(0, sys.argv[3])
import bench_checks
import village_rules.incremental as incremental
games, players = int(sys.argv[1]), int(sys.argv[2])
bench_checks.loop_per_step(games, players, 4)  # warm the caches of both sides
bare = bench_checks.loop_per_step(games, players, 0)
checked = bench_checks.loop_per_step(games, players, 4)
print(incremental.__file__.endswith(".py"), bare, checked)
"""


def compile_copy(target: Path) -> Path:
    """`village_rules` copied into `target` with `COMPILED` built by mypyc; its root."""
    root = target / "compiled"
    shutil.copytree(PACKAGE, root / "village_rules")
    errors = root / "village_rules" / "invariants.py"
    text = errors.read_text(encoding="utf-8")
    if ERROR_CLASS not in text:
        raise SystemExit(f"{errors}: {ERROR_CLASS!r} not found: update this script")
    patched = "from mypy_extensions import mypyc_attr\n\n\n@mypyc_attr(native_class=False)\n" + ERROR_CLASS
    errors.write_text(text.replace(ERROR_CLASS, patched), encoding="utf-8")
    mypyc = shutil.which("mypyc", path=str(Path(sys.executable).parent)) or shutil.which("mypyc")
    if mypyc is None:
        raise SystemExit("mypyc not found: install the dev extra (pip install -e '.[dev]')")
    built = subprocess.run(
        [mypyc, *(f"village_rules/{name}" for name in COMPILED)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        tail = built.stdout[-2000:] + built.stderr[-2000:]
        raise SystemExit(f"mypyc failed (exit {built.returncode}):\n{tail}")
    return root


def probe(path: Path | None, games: int, players: int) -> tuple[bool, float, float]:
    """(the checker is interpreted, bare µs/step, checked µs/step) in a fresh process."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(games), str(players), str(Path(__file__).resolve().parent)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return out[0] == "True", float(out[1]), float(out[2])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=positive_int, default=3)
    parser.add_argument("--games", type=positive_int, default=20)
    parser.add_argument("--players", type=int, choices=range(2, 6), default=4)
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        root = compile_copy(Path(tmp))
        print(f"compiled with mypyc: {', '.join(COMPILED)} (the engine interpreted)")
        print(f"{'round':>5}  {'checker':11} {'bare µs/step':>12} {'checked':>8} {'checked/bare':>12}")
        ratios: dict[str, list[float]] = {"interpreted": [], "compiled": []}
        for r in range(1, args.rounds + 1):
            for kind, path in (("interpreted", None), ("compiled", root)):
                interpreted, bare, checked = probe(path, args.games, args.players)
                if interpreted != (kind == "interpreted"):
                    raise SystemExit(f"the {kind} run imported the other checker: {root}")
                ratios[kind].append(bare / checked)
                print(f"{r:5}  {kind:11} {bare:12.2f} {checked:8.2f} {bare / checked:12.2f}")
    for kind, values in ratios.items():
        print(f"median invariant-checked / bare, {kind} checker: {statistics.median(values):.2f}")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
