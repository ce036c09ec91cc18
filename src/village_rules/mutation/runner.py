"""Run mutants against the verification layers and score the verification.

For each mutant: copy the package to a temporary folder, apply the mutant there, and run each
layer in its own subprocess with `PYTHONPATH` pointing at the copy (`layers.py`). The result
is a kill matrix (mutant x layer), the semantic score (the share of non-equivalent mutants a
semantic layer kills), the all-layers score (any layer, the regression ones included), and the
survivors. Before any mutant the unmutated copy is run through every selected layer: a layer
that fails on the real engine would make every kill meaningless, so that is an error.

Budgets are counts, so the verdicts do not depend on the machine's speed. The hard time cap
per layer run only guards against a hang (a mutant that loops inside one step); a run that
reaches it is killed and reported as that layer's kill with the reason "timeout"."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from village_rules.mutation.corpus import Mutant, MutationError
from village_rules.mutation.layers import LAYERS, Kind, Layer

PACKAGE = Path(__file__).resolve().parents[1]
"""The package folder copied for each mutant (`src/village_rules`)."""

REPOSITORY = PACKAGE.parents[1]
"""The repository root: the pytest layers run from here (its pyproject and tests/)."""

CHECKERS = ("fuzz", "machine", "refinement", "link", "explore")
"""The semantic layers a user can run against their own engine (the rule tests are this
library's own): their share is printed beside the semantic score. `conform` is not one of
them: it compares with this reference rather than checking an engine on its own."""

HARD_CAP_SECONDS = 150.0
"""Per layer run: only a hang guard, several times the slowest layer's run on the unmutated
package (about 20 s on 2 shared cores); the budgets, not this, decide every other verdict."""


@dataclass(frozen=True)
class Verdict:
    """One cell of the kill matrix."""

    killed: bool
    reason: str


@dataclass
class MutantResult:
    """The verdict of every layer run on one mutant."""

    mutant: Mutant
    verdicts: dict[str, Verdict] = field(default_factory=dict)

    def killed_by(self, kinds: Sequence[Kind], layers: Sequence[Layer]) -> list[str]:
        """The layers of the given kinds that killed this mutant."""
        return [
            la.name
            for la in layers
            if la.kind in kinds and la.name in self.verdicts and self.verdicts[la.name].killed
        ]


@dataclass
class Scores:
    """The figures of a run."""

    results: list[MutantResult]
    layers: tuple[Layer, ...]
    first_kill: bool = False
    """The semantic layers stopped at a mutant's first kill: a layer's count is of its runs."""

    def _scored(self) -> list[MutantResult]:
        return [r for r in self.results if r.mutant.equivalent is None]

    def score(self, kinds: Sequence[Kind]) -> float:
        """The share of non-equivalent mutants killed by some layer of these kinds (1.0 when
        there is none to score)."""
        scored = self._scored()
        if not scored:
            return 1.0
        return sum(1 for r in scored if r.killed_by(kinds, self.layers)) / len(scored)

    @property
    def semantic(self) -> float:
        """The share killed by a semantic layer."""
        return self.score([Kind.SEMANTIC])

    @property
    def all_layers(self) -> float:
        """The share killed by any layer."""
        return self.score([Kind.SEMANTIC, Kind.REGRESSION])

    def checkers(self) -> tuple[int, int] | None:
        """(killed, scored) by the checkers a user runs on their own engine: the semantic
        layers other than this library's rule tests. None when none of them ran."""
        names = [la.name for la in self.layers if la.kind is Kind.SEMANTIC and la.name in CHECKERS]
        if not names:
            return None
        scored = self._scored()
        return sum(
            1 for r in scored if any(r.verdicts.get(n, Verdict(False, "")).killed for n in names)
        ), len(scored)

    def part(self, corpus: str) -> Scores:
        """The figures of one corpus's mutants only (hand-written or generated)."""
        return Scores([r for r in self.results if r.mutant.corpus == corpus], self.layers, self.first_kill)

    def corpora(self) -> list[str]:
        """The corpora of the mutants run, in first-seen order."""
        return list(dict.fromkeys(r.mutant.corpus for r in self.results))

    def survivors(self, kinds: Sequence[Kind]) -> list[MutantResult]:
        """The non-equivalent mutants no layer of these kinds killed."""
        return [r for r in self._scored() if not r.killed_by(kinds, self.layers)]


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_layer(layer: Layer, root: Path, cap: float = HARD_CAP_SECONDS) -> Verdict:
    """Run one layer on the package copy under `root` (the folder holding `village_rules`);
    a layer with its own hang guard gets the larger of the two."""
    if layer.cap is not None:
        cap = max(cap, layer.cap)
    env = dict(os.environ)
    # A reference-side probe imports the unmutated package and serves the copy itself.
    env["PYTHONPATH"] = str(PACKAGE.parent if layer.reference_side else root)
    env["VILLAGE_MUTANT_ROOT"] = str(root)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("VILLAGE_REQUIRE_EXTRAS", None)
    with subprocess.Popen(
        layer.command(sys.executable),
        cwd=REPOSITORY,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=cap)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return Verdict(True, f"timeout: no verdict within the {cap:.0f} s hang guard")
    last = _last_line(out)
    if layer.probe is not None:
        if proc.returncode == 0 and last == "SURVIVED":
            return Verdict(False, "")
        if proc.returncode == 0 and last.startswith("KILLED: "):
            return Verdict(True, last.removeprefix("KILLED: "))
        return Verdict(True, f"crash (exit {proc.returncode}): {_last_line(err) or last}"[:300])
    if proc.returncode == 0:
        return Verdict(False, "")
    failed = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return Verdict(True, f"pytest exit {proc.returncode}: {(failed[0] if failed else last)}"[:300])


def copy_package(dest: Path) -> Path:
    """A copy of the package in `dest/village_rules` (no byte code); returns `dest`."""
    shutil.copytree(PACKAGE, dest / "village_rules", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def run_mutant(
    mutant: Mutant,
    layers: Sequence[Layer],
    cap: float = HARD_CAP_SECONDS,
    *,
    full_matrix: bool = True,
    first_kill: bool = False,
) -> dict[str, Verdict]:
    """Each layer's verdict on the mutant (the unmutated package's: `run_baseline`). Without
    `full_matrix` the regression layers run only when no semantic layer killed the mutant:
    the all-layers score counts a mutant once, so they cannot change it otherwise (their
    cells stay empty, "-", in the matrix). With `first_kill` the semantic layers stop at the
    first that kills: the semantic score counts a mutant once too, and as the checkers run
    before the other semantic layers (the rule tests), so does the checkers' score."""
    with tempfile.TemporaryDirectory(prefix="village-mutant-") as tmp:
        root = copy_package(Path(tmp))
        mutant.apply(root / "village_rules")
        verdicts: dict[str, Verdict] = {}
        # the semantic layers first, and among them the checkers before the rule tests
        for layer in sorted(layers, key=lambda la: (la.kind is not Kind.SEMANTIC, la.name not in CHECKERS)):
            killed = any(v.killed for v in verdicts.values())
            if killed and (first_kill or (layer.kind is Kind.REGRESSION and not full_matrix)):
                continue
            verdicts[layer.name] = run_layer(layer, root, cap)
        return {la.name: verdicts[la.name] for la in layers if la.name in verdicts}


def run_baseline(
    layers: Sequence[Layer], cap: float = HARD_CAP_SECONDS, *, jobs: int = 1
) -> dict[str, Verdict]:
    """Every layer on one unmutated copy of the package, `jobs` layers at once (each is a
    subprocess of its own, and none writes to the copy)."""
    with tempfile.TemporaryDirectory(prefix="village-baseline-") as tmp:
        root = copy_package(Path(tmp))
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            verdicts = list(pool.map(lambda la: run_layer(la, root, cap), layers))
        return {la.name: v for la, v in zip(layers, verdicts, strict=True)}


def check_patches(mutants: Sequence[Mutant], package: Path = PACKAGE) -> None:
    """Check every mutant against the package's files first (nothing is written), so that a
    stale patch is refused by name before anything runs."""
    for mutant in mutants:
        mutant.patched(package)


def sample(mutants: Sequence[Mutant], size: int, seed: int) -> tuple[Mutant, ...]:
    """A reproducible sample of `size` mutants (all when `size` is at least the corpus),
    in corpus order."""
    if size < 0:
        raise MutationError(f"--sample must be 0 or more, not {size}")
    if size >= len(mutants):
        return tuple(mutants)
    chosen = set(random.Random(seed).sample(range(len(mutants)), size))
    return tuple(m for i, m in enumerate(mutants) if i in chosen)


def run(
    mutants: Sequence[Mutant],
    layers: Sequence[Layer] = LAYERS,
    *,
    jobs: int = 1,
    cap: float = HARD_CAP_SECONDS,
    full_matrix: bool = False,
    first_kill: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Scores:
    """Check the patches, run the baseline (every layer, `jobs` at once), then every mutant
    through the layers (the regression ones only for semantic survivors unless
    `full_matrix`; the semantic ones only until the first kill with `first_kill`)."""
    if jobs < 1:
        raise MutationError(f"--jobs must be at least 1, not {jobs}")
    if first_kill and full_matrix:
        raise MutationError("--first-kill and --full-matrix ask for opposite things: choose one")
    check_patches(mutants)
    baseline = run_baseline(layers, cap, jobs=jobs)
    broken = {name: v.reason for name, v in baseline.items() if v.killed}
    if broken:
        detail = "; ".join(f"{name}: {reason}" for name, reason in broken.items())
        raise MutationError(f"the unmutated package fails a layer, so no kill would mean anything: {detail}")

    def one(mutant: Mutant) -> MutantResult:
        verdicts = run_mutant(mutant, layers, cap, full_matrix=full_matrix, first_kill=first_kill)
        result = MutantResult(mutant, verdicts)
        if progress is not None:
            killed = [name for name, v in result.verdicts.items() if v.killed]
            progress(f"{mutant.id}: killed by {', '.join(killed) if killed else 'none'}")
        return result

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, mutants))
    return Scores(results, tuple(layers), first_kill)


def matrix_text(scores: Scores) -> str:
    """The kill matrix, the scores and the survivors, as printed by the command line."""
    layers = scores.layers
    width = max([len("mutant"), *(len(r.mutant.id) for r in scores.results)])
    rule_w = max([len("rule"), *(len(r.mutant.rule) for r in scores.results)])
    head = f"{'mutant':<{width}}  {'rule':<{rule_w}}  " + "  ".join(la.name for la in layers)
    lines = [head, "-" * len(head)]
    for r in scores.results:
        cells = []
        for la in layers:
            v = r.verdicts.get(la.name)
            mark = (
                "-"
                if v is None
                else ("T" if v.killed and v.reason.startswith("timeout") else "K" if v.killed else ".")
            )
            cells.append(f"{mark:^{len(la.name)}}")
        tail = "  (equivalent)" if r.mutant.equivalent else ""
        lines.append(f"{r.mutant.id:<{width}}  {r.mutant.rule:<{rule_w}}  " + "  ".join(cells) + tail)
    lines.append("K killed, T killed by the hang guard (timeout), . survived, - not run")
    for corpus in scores.corpora():
        lines.append("")
        lines += _figures(scores.part(corpus), corpus)
    return "\n".join(lines)


def _figures(scores: Scores, corpus: str) -> list[str]:
    """One corpus's per-layer kills, scores, survivors and equivalence arguments."""
    layers = scores.layers
    lines = [f"== {corpus} mutants"]
    scored = [r for r in scores.results if r.mutant.equivalent is None]
    if scores.first_kill:
        lines.append(
            "first kill: a mutant's semantic layers stopped at the first that killed it (later cells '-'); "
            "a layer's count is of the mutants it ran on, the scores below are whole"
        )
    for la in layers:
        ran = sum(1 for r in scored if la.name in r.verdicts)
        kills = sum(1 for r in scored if la.name in r.verdicts and r.verdicts[la.name].killed)
        whole = ran == len(scored)
        count = f"{kills}/{len(scored)} scored killed" if whole else f"{kills} killed of {ran} run"
        lines.append(f"layer {la.name} ({la.kind.value}): {count}: {la.description}")
    equivalent = len(scores.results) - len(scored)
    sem = len(scored) - len(scores.survivors([Kind.SEMANTIC]))
    every = len(scored) - len(scores.survivors([Kind.SEMANTIC, Kind.REGRESSION]))
    lines.append(f"mutants: {len(scores.results)} ({equivalent} argued equivalent, {len(scored)} scored)")
    lines.append(f"semantic score: {sem}/{len(scored)} = {100 * scores.semantic:.1f}%")
    lines.append(f"all-layers score: {every}/{len(scored)} = {100 * scores.all_layers:.1f}%")
    checkers = scores.checkers()
    if checkers is not None:
        killed, of = checkers
        share = 100 * killed / of if of else 100.0
        lines.append(
            f"checkers' score ({', '.join(CHECKERS)}; no rule tests): "
            f"{killed}/{of} = {share:.1f}%"
        )
    survivors = scores.survivors([Kind.SEMANTIC])
    lines.append(f"semantic survivors: {len(survivors)}")
    for r in survivors:
        by = r.killed_by([Kind.REGRESSION], layers)
        note = f" (killed only by {', '.join(by)})" if by else ""
        lines.append(f"  {r.mutant.id} [{r.mutant.rule}]: {r.mutant.breaks}{note}")
    for r in scores.results:
        if r.mutant.equivalent:
            lines.append(f"  equivalent {r.mutant.id} [{r.mutant.rule}]: {r.mutant.equivalent}")
    return lines


def reasons_text(scores: Scores) -> str:
    """Every kill's reason, one line each (for --reasons)."""
    lines = []
    for r in scores.results:
        for name, v in r.verdicts.items():
            if v.killed:
                lines.append(f"{r.mutant.id} / {name}: {v.reason}")
    return "\n".join(lines)
