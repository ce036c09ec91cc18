"""How far compiling goes (not a test: figures vary by machine and load). Needs mypyc (the
`dev` extra's mypy) and a C compiler.

    python benchmarks/bench_compiled_checker.py [--rounds 3] [--games 20] [--with-engine]

Copies `village_rules` into a temporary directory, compiles its `invariants` and
`incremental` modules there with mypyc, and measures, interleaved round by round, the
invariant-checked / bare ratio of seeded random playouts (the fuzzer's checks without the
legal-set oracle: every state and transition invariant, by `IncrementalChecker`) with the
interpreted package and with the compiled copy, each in its own process. Prints CPU µs per
step and the ratios.

By default the engine stays interpreted, as it is the "bare" side of the ratio. With
`--with-engine` the copy's engine is compiled too (`ENGINE`: the state classes, the tally,
the pending steps, the components and every `engine` module), so both sides of the ratio
are compiled code. Each probe reports which checker and which engine it imported and a
digest of every action of the seeded games `bench_checks.record` plays; a compiled copy
whose games differ from the interpreted package's is refused, not timed.

Compiling needs a few changes to the copy (`PATCHES`, `ENGINE_PATCHES` and `SLOTS`, each
with its reason); nothing is installed or changed in this tree. Three modules stay
interpreted even with the engine: `actions.py` (it reads its dataclasses' field annotations
as strings, which a compiled module evaluates to types), `evolve.py` (mypyc stops on its
`TYPE_CHECKING` switch) and `frozen_build.py` (its builder twins swap `__class__`, which
native classes refuse: the copy's builds call the native classes' own constructors
instead). The copy is adapted to compile, not tuned for it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_checks import positive_int  # (this script's folder is on sys.path)

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "village_rules"
COMPILED = ("checks/invariants.py", "checks/incremental.py")
ENGINE = (
    "adapters/bounds.py",
    "model/carla_board.py",
    "model/chance.py",
    "data/components.py",
    "model/pending.py",
    "drivers/play.py",
    "rules/variant.py",
    "model/state.py",
    "checks/state_checks.py",
    "data/tally.py",
    "engine/*.py",
)
"""The engine modules `--with-engine` compiles (paths in the package; `*` as in a glob)."""

_NON_NATIVE = "from mypy_extensions import mypyc_attr\n\n\n@mypyc_attr(native_class=False)\n"

Patch = tuple[str, str, str, str]
"""(file in the package, text, replacement, why): the text must occur in the file; every
occurrence is replaced."""

PATCHES: tuple[Patch, ...] = (
    (
        "checks/invariants.py",
        "class InvariantError(VillageError, AssertionError):",
        _NON_NATIVE + "class InvariantError(VillageError, AssertionError):",
        "mypyc's native classes cannot derive from AssertionError",
    ),
)
ENGINE_PATCHES: tuple[Patch, ...] = (
    (
        "data/tally.py",
        "@dataclass(frozen=True, slots=True)\nclass Tally(Generic[K]):",
        _NON_NATIVE + "@dataclass(frozen=True)\nclass Tally(Generic[K]):",
        "a generic frozen dataclass cannot be a native class (its import fails)",
    ),
    (
        "model/frozen_build.py",
        "    twin, _ = _twin(cls)\n",
        "    return cls  # compiled: a native class's own constructor\n",
        "the builder twin's `__class__` swap needs the same layout, which native classes refuse",
    ),
    (
        "model/frozen_build.py",
        "    twin, params = _twin(cls)\n",
        "    twin, params = cls, [f.name for f in dataclasses.fields(cls) if f.init]  # compiled\n",
        "as above: the replace functions call the native class's constructor instead",
    ),
    (
        "model/frozen_build.py",
        '        "    new.__class__ = cls\\n"\n',
        "",
        "as above",
    ),
    (
        "engine/core.py",
        "cached = state.legal_cache",
        'cached = getattr(state, "legal_cache", None)',
        "a compiled dataclass does not set the default of a field that is not an argument",
    ),
)
SLOTS = re.compile(r"(?<=[(,])\s*slots=True\s*,?\s*")
"""`slots=True` in a dataclass decorator: removed from the compiled modules, since mypyc lays
out a native class itself and a dataclass's slots rebuild the class, which it refuses."""

# Run in a child process (whose `village_rules` is the one on its PYTHONPATH): prints
# whether its checker and its engine are interpreted, a digest of the actions of
# `bench_checks.record`'s seeded games, then bare and checked CPU µs per step of the
# playout loop's seeded games (`loop_per_step`, its modes 0 and 4).
PROBE = """
import hashlib, sys
sys.path.insert(0, sys.argv[3])
import bench_checks
import village_rules.checks.incremental as incremental
import village_rules.model.state as state
from village_rules.model.actions import format_action
games, players = int(sys.argv[1]), int(sys.argv[2])
digest = hashlib.sha256()
for step in bench_checks.record(games, players):
    digest.update(format_action(step[1]).encode() + b"\\n")
bench_checks.loop_per_step(games, players, 4)  # warm the caches of both sides
bare = bench_checks.loop_per_step(games, players, 0)
checked = bench_checks.loop_per_step(games, players, 4)
print(incremental.__file__.endswith(".py"), state.__file__.endswith(".py"), digest.hexdigest(), bare, checked)
"""


def _sources(package: Path, patterns: tuple[str, ...]) -> list[Path]:
    found = [path for pattern in patterns for path in sorted(package.glob(pattern))]
    if len(found) < len(patterns):
        raise SystemExit(f"{package}: a module of {patterns} not found: update this script")
    return found


def _patch(package: Path, patches: tuple[Patch, ...]) -> None:
    for name, text, replacement, _why in patches:
        path = package / name
        source = path.read_text(encoding="utf-8")
        if text not in source:
            raise SystemExit(f"{path}: {text!r} not found: update this script")
        path.write_text(source.replace(text, replacement), encoding="utf-8")


def compile_copy(target: Path, with_engine: bool = False) -> Path:
    """`village_rules` copied into `target` with `COMPILED` (and with `with_engine`,
    `ENGINE`) built by mypyc; its root."""
    root = target / "compiled"
    package = root / "village_rules"
    shutil.copytree(PACKAGE, package)
    modules = _sources(package, COMPILED)
    _patch(package, PATCHES)
    if with_engine:
        modules += _sources(package, ENGINE)
        _patch(package, ENGINE_PATCHES)
        for path in modules:
            source = path.read_text(encoding="utf-8")
            path.write_text(SLOTS.sub("", source), encoding="utf-8")
    mypyc = shutil.which("mypyc", path=str(Path(sys.executable).parent)) or shutil.which("mypyc")
    if mypyc is None:
        raise SystemExit("mypyc not found: install the dev extra (pip install -e '.[dev]')")
    built = subprocess.run(
        [mypyc, *(str(path.relative_to(root)) for path in modules)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        tail = built.stdout[-2000:] + built.stderr[-2000:]
        raise SystemExit(f"mypyc failed (exit {built.returncode}):\n{tail}")
    return root


def probe(path: Path | None, games: int, players: int) -> tuple[bool, bool, str, float, float]:
    """(the checker is interpreted, the engine is interpreted, the games' digest, bare
    µs/step, checked µs/step) in a fresh process."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(games), str(players), str(Path(__file__).resolve().parent)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode != 0:
        tail = run.stderr[-2000:]
        raise SystemExit(f"the probe of {path or PACKAGE} failed (exit {run.returncode}):\n{tail}")
    out = run.stdout.split()
    return out[0] == "True", out[1] == "True", out[2], float(out[3]), float(out[4])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=positive_int, default=3)
    parser.add_argument("--games", type=positive_int, default=20)
    parser.add_argument("--players", type=int, choices=range(2, 6), default=4)
    parser.add_argument("--with-engine", action="store_true", help="compile the engine too")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    compiled = "compiled checker and engine" if args.with_engine else "compiled checker"
    with tempfile.TemporaryDirectory() as tmp:
        root = compile_copy(Path(tmp), args.with_engine)
        if args.with_engine:
            print(f"compiled with mypyc: {', '.join(COMPILED + ENGINE)}")
        else:
            print(f"compiled with mypyc: {', '.join(COMPILED)} (the engine interpreted)")
        print(f"{'round':>5}  {'package':11} {'bare µs/step':>12} {'checked':>8} {'checked/bare':>12}")
        ratios: dict[str, list[float]] = {"interpreted checker": [], compiled: []}
        first = ""
        for r in range(1, args.rounds + 1):
            for kind, path in (("interpreted", None), ("compiled", root)):
                checker, engine, digest, bare, checked = probe(path, args.games, args.players)
                if checker != (path is None) or engine != (path is None or not args.with_engine):
                    raise SystemExit(f"the {kind} run imported another package than {path or PACKAGE}")
                first = first or digest
                if digest != first:
                    raise SystemExit(f"the {kind} package played other games than the interpreted one")
                ratios[compiled if path else "interpreted checker"].append(bare / checked)
                print(f"{r:5}  {kind:11} {bare:12.2f} {checked:8.2f} {bare / checked:12.2f}")
    print(f"both played the same {args.games} seeded games in every round (digest {first[:16]})")
    for kind, values in ratios.items():
        print(f"median invariant-checked / bare, {kind}: {statistics.median(values):.2f}")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
