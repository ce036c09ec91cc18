"""Generated mutants (issue 25): cosmic-ray's mutation operators over the engine and scoring
modules, sampled reproducibly, written to `generated.json` as find/replace patches.

cosmic-ray (the optional extra `mutation`) enumerates every single mutation of a module: one
operator (`core/ReplaceComparisonOperator_Lt_LtE`, `core/NumberReplacer`, …) at one
occurrence. This module takes that population over `TARGETS`, keeps the `size` mutants whose
seeded hash of their content is smallest (a sample that depends only on each mutant's own
text, so an edit elsewhere in the engine changes only the mutants it touches), and turns each
into the runner's find/replace form: the changed lines, widened by whole neighbouring lines
until the text occurs once in its file. The runner then needs no cosmic-ray at all.

The arguments that a generated mutant is equivalent live in `generated.json` itself, keyed by
the mutant's id (a hash of its file and patch): regenerating keeps them for every mutant that
is still drawn.

    python -m village_rules.mutation.generate            # rewrite generated.json
    python -m village_rules.mutation.generate --check    # exit 1 if it is not up to date"""

from __future__ import annotations

import argparse
import ast
import difflib
import hashlib
import importlib
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Protocol, cast

from village_rules.mutation.corpus import MutationError

GENERATED = Path(__file__).with_name("generated.json")
PACKAGE = Path(__file__).resolve().parents[1]

TARGETS: tuple[str, ...] = tuple(
    sorted(
        f"engine/{p.name}"
        for p in (PACKAGE / "engine").glob("*.py")
        if p.name not in ("__init__.py", "context.py", "guards.py")
    )
)
"""The engine's modules, scoring (`engine/scoring.py`) among them; not the package marker,
the rule-trace context or the internal-error guards (no rule lives there)."""

SIZE = 40
SEED = 25


@dataclass(frozen=True)
class Generated:
    """One generated mutant: where, which operator, and its find/replace patch."""

    id: str
    file: str
    operator: str
    occurrence: int
    line: int
    find: str
    replace: str

    def describe(self) -> str:
        """The changed line before and after, for the kill matrix's survivors."""
        old = [ln.strip() for ln in self.find.splitlines()]
        new = [ln.strip() for ln in self.replace.splitlines()]
        changed = [(a, b) for a, b in zip(old, new, strict=False) if a != b]
        a, b = changed[0] if changed else (" / ".join(old), " / ".join(new))
        return f"{self.operator} at {self.file}:{self.line}: `{a}` -> `{b}`"


class _Operator(Protocol):
    """What this module uses of a cosmic-ray operator class."""

    @classmethod
    def arguments(cls) -> Sequence[object]: ...

    def mutation_positions(self, node: object) -> Iterable[tuple[tuple[int, int], tuple[int, int]]]: ...


_Tools = tuple[
    Callable[[str], object],
    Callable[[], list[str]],
    Callable[[str], type[_Operator]],
    Callable[..., "str | None"],
]


def _cosmic_ray() -> _Tools:
    """cosmic-ray's parser, operator registry and mutator (imported only here: an extra)."""
    try:
        ast_mod = importlib.import_module("cosmic_ray.ast")
        plugins = importlib.import_module("cosmic_ray.plugins")
        mutating = importlib.import_module("cosmic_ray.mutating")
    except ImportError as exc:
        raise MutationError(
            "generating mutants needs cosmic-ray: pip install -e '.[mutation]'"
        ) from exc
    return (
        cast(Callable[[str], object], ast_mod.get_ast),
        cast(Callable[[], list[str]], plugins.operator_names),
        cast(Callable[[str], type[_Operator]], plugins.get_operator),
        cast(Callable[..., "str | None"], mutating.mutate_code),
    )


def _nodes(node: object) -> list[object]:
    out = [node]
    for child in getattr(node, "children", ()):
        out += _nodes(child)
    return out


def _patch(original: str, mutated: str, file: str) -> tuple[int, str, str]:
    """(first changed line, find, replace): the changed lines, widened until unique."""
    a = original.splitlines(keepends=True)
    b = mutated.splitlines(keepends=True)
    ops = [op for op in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op[0] != "equal"]
    lo_a, hi_a = ops[0][1], ops[-1][2]
    lo_b, hi_b = ops[0][3], ops[-1][4]
    while True:
        find = "".join(a[lo_a:hi_a])
        if find and original.count(find) == 1:
            return lo_a + 1, find, "".join(b[lo_b:hi_b])
        if lo_a == 0 and hi_a == len(a):
            raise MutationError(f"{file}: a mutation whose text cannot be made unique")
        if lo_a > 0:
            lo_a, lo_b = lo_a - 1, lo_b - 1
        if hi_a < len(a):
            hi_a, hi_b = hi_a + 1, hi_b + 1


@dataclass(frozen=True)
class Site:
    """One place cosmic-ray can mutate: file, operator, occurrence, and the id drawn on."""

    id: str
    file: str
    operator: str
    occurrence: int
    line: int


def _annotation_spans(code: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The (start, end) positions, (line, column), of every annotation in the module."""
    spans = []
    for node in ast.walk(ast.parse(code)):
        notes: list[ast.expr | None] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            notes += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            notes += [a.vararg.annotation if a.vararg else None, a.kwarg.annotation if a.kwarg else None]
            notes.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
        for n in notes:
            if n is not None and n.end_lineno is not None and n.end_col_offset is not None:
                spans.append(((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)))
    return spans


def sites(package: Path = PACKAGE, targets: Sequence[str] = TARGETS) -> list[Site]:
    """Every single cosmic-ray mutation site of the target modules (operators that take no
    arguments), in file, operator and occurrence order, leaving out the sites inside type
    annotations (every engine module has `from __future__ import annotations`: they are never
    evaluated, so such a mutant is equivalent by construction). A site's id hashes its file, its
    operator, the source line it is on and its rank among the sites of that operator on an
    identical line: it survives edits elsewhere in the file."""
    get_ast, operator_names, get_operator, _ = _cosmic_ray()
    out: list[Site] = []
    for file in targets:
        code = (package / file).read_text(encoding="utf-8")
        lines = code.splitlines()
        nodes = _nodes(get_ast(code))
        notes = _annotation_spans(code)
        for name in sorted(operator_names()):
            cls = get_operator(name)
            if cls.arguments():
                continue
            operator = cls()
            ranks: dict[str, int] = {}
            positions = [pos for node in nodes for pos in operator.mutation_positions(node)]
            for occurrence, (start, _end) in enumerate(positions):
                row = int(start[0])
                at = (row, int(start[1]))
                if any(lo <= at < hi for lo, hi in notes):
                    continue
                text = lines[row - 1].strip() if 0 < row <= len(lines) else ""
                rank = ranks.get(text, 0)
                ranks[text] = rank + 1
                digest = hashlib.sha256(f"{file}\0{name}\0{text}\0{rank}".encode()).hexdigest()[:10]
                out.append(Site(f"g-{Path(file).stem}-{digest}", file, name, occurrence, row))
    return out


def draw(candidates: Sequence[Site], size: int, seed: int, package: Path = PACKAGE) -> list[Generated]:
    """The first `size` sites by seeded hash of their id whose mutation compiles (cosmic-ray's
    "incompetent" mutants, such as an operator swapped inside a `case` pattern, are not rule
    bugs: the module would not even import), realised, in population order."""

    def key(m: Site) -> str:
        return hashlib.sha256(f"{seed}:{m.id}".encode()).hexdigest()

    chosen: dict[str, Generated] = {}
    for site in sorted(candidates, key=key):
        if len(chosen) >= size:
            break
        g = realise(site, package)
        if g is not None:
            chosen[g.id] = g
    return [chosen[m.id] for m in candidates if m.id in chosen]


def realise(site: Site, package: Path = PACKAGE) -> Generated | None:
    """The site's mutation as a find/replace patch (None if it changes no text or does not
    compile)."""
    _, _, get_operator, mutate_code = _cosmic_ray()
    code = (package / site.file).read_text(encoding="utf-8")
    mutated = mutate_code(code, get_operator(site.operator)(), site.occurrence)
    if mutated is None or mutated == code:
        return None
    try:
        compile(mutated, site.file, "exec")
    except SyntaxError:
        return None
    line, find, replace = _patch(code, mutated, site.file)
    return Generated(site.id, site.file, site.operator, site.occurrence, line, find, replace)


def _tool_version() -> str:
    try:
        return metadata.version("cosmic-ray")
    except metadata.PackageNotFoundError:  # pragma: no cover - _cosmic_ray() refused first
        return "unknown"


def document(size: int = SIZE, seed: int = SEED, previous: Path | None = GENERATED) -> dict[str, object]:
    """The content of `generated.json`: the drawn mutants with the equivalence arguments
    kept from `previous` for the ids still drawn."""
    everything = sites()
    drawn = draw(everything, size, seed)
    kept: dict[str, str] = {}
    if previous is not None and previous.is_file():
        old = json.loads(previous.read_text(encoding="utf-8"))
        for item in old.get("mutants", []):
            if isinstance(item, dict) and isinstance(item.get("equivalent"), str):
                kept[str(item["id"])] = item["equivalent"]
    entries: list[dict[str, object]] = []
    for m in drawn:
        entry: dict[str, object] = {
            "id": m.id,
            "rule": "generated",
            "file": m.file,
            "operator": m.operator,
            "occurrence": m.occurrence,
            "line": m.line,
            "find": m.find,
            "replace": m.replace,
            "breaks": m.describe(),
        }
        if m.id in kept:
            entry["equivalent"] = kept[m.id]
        entries.append(entry)
    return {
        "about": (
            "Generated mutants of village-rules (issue 25), by cosmic-ray over the engine's "
            "modules: the `size` mutants with the smallest sha256 of `seed:id` among the "
            "`population`. Regenerate with `python -m village_rules.mutation.generate` "
            "(extra `mutation`); `equivalent` is kept by id."
        ),
        "tool": f"cosmic-ray {_tool_version()}",
        "seed": seed,
        "size": size,
        "population": len(everything),
        "targets": list(TARGETS),
        "mutants": entries,
    }


def text_of(doc: dict[str, object]) -> str:
    """The file's text (stable: indented, keys in order, final newline)."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or with --check, compare) generated.json; the exit status."""
    p = argparse.ArgumentParser(prog="python -m village_rules.mutation.generate", description=__doc__)
    p.add_argument("--size", type=int, default=None, help=f"mutants to draw (default: the file's, or {SIZE})")
    p.add_argument("--seed", type=int, default=None, help=f"the draw's seed (default: the file's, or {SEED})")
    p.add_argument("--out", type=Path, default=GENERATED, help="the file (default: the shipped one)")
    p.add_argument("--check", action="store_true", help="exit 1 if the file is not what this draws")
    args = p.parse_args(argv)
    try:
        old: dict[str, object] = {}
        if args.out.is_file():
            old = json.loads(args.out.read_text(encoding="utf-8"))
        size = args.size if args.size is not None else int(cast(int, old.get("size", SIZE)))
        seed = args.seed if args.seed is not None else int(cast(int, old.get("seed", SEED)))
        if size < 0:
            raise MutationError(f"--size must be 0 or more, not {size}")
        text = text_of(document(size, seed, args.out))
    except (MutationError, ValueError, OSError) as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 2
    if args.check:
        if args.out.is_file() and args.out.read_text(encoding="utf-8") == text:
            print(f"{args.out}: up to date")
            return 0
        print(f"{args.out}: not what cosmic-ray draws from today's engine; regenerate it", file=sys.stderr)
        return 1
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.out}: {size} of {json.loads(text)['population']} mutants (seed {seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
