"""Rules for the library's source text that neither mypy nor ruff checks.

Every name `village_rules` exports is documented (ruff's D1 rules see only definitions, not
constants or re-exports). No bare `assert` in src/ outside engine/ and state.py (those are
the engine's to replace): `python -O` drops an assert, so a check the library relies on
raises one of the errors of `village_rules.errors` instead (`InternalError` for a bug in the
library itself)."""

from __future__ import annotations

import ast
import inspect
import itertools
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
from support import ROOT

import village_rules
from village_rules.errors import InternalError, VillageError
from village_rules.rules.variant import Variant

SRC = ROOT / "src" / "village_rules"


def bare_asserts(source: str, name: str) -> list[int]:
    """The line of every `assert` statement in a source."""
    return [node.lineno for node in ast.walk(ast.parse(source, name)) if isinstance(node, ast.Assert)]


def test_no_bare_assert_in_src() -> None:
    found = [
        f"{rel}:{line}"
        for path in sorted(SRC.rglob("*.py"))
        for rel in [path.relative_to(SRC).as_posix()]
        for line in bare_asserts(path.read_text(encoding="utf-8"), rel)
    ]
    assert not found, "bare asserts (raise an error of village_rules.errors instead): " + ", ".join(found)
    assert bare_asserts("x = 1\nif x:\n    assert x, 'no'\n", "t.py") == [3]


def test_an_internal_check_raises_a_library_error_that_names_where() -> None:
    variant = Variant()
    object.__setattr__(variant, "readings", {"AMB-06": "b"})  # past __post_init__'s normalising
    with pytest.raises(InternalError, match=r"Variant\.choices: readings not normalised") as info:
        _ = variant.choices
    assert isinstance(info.value, VillageError) and info.value.where == "Variant.choices"


def _documented_in_source(module: str, name: str) -> bool:
    """An assignment of `name` at the top of `module` followed by a string (an attribute docstring)."""
    path = SRC.parent / (module.replace(".", "/") + ".py")
    body = ast.parse(path.read_text(encoding="utf-8")).body
    for node, after in itertools.pairwise(body):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) and isinstance(
                after.value.value, str
            )
    return False


def undocumented_exports(package: ModuleType) -> list[str]:
    """The names of `package.__all__` without a docstring of their own (a class, a function)
    or an attribute docstring in the module that defines them (a constant, a type alias)."""
    init = ast.parse(Path(package.__file__ or "").read_text(encoding="utf-8"))
    imports = [n for n in init.body if isinstance(n, ast.ImportFrom)]
    origin = {a.asname or a.name: n.module for n in imports for a in n.names}
    missing = []
    for name in package.__all__:
        obj = getattr(package, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
            # a dataclass without a docstring gets its signature, "Name(field: type, ...)"
            if not doc or not doc.strip() or doc.startswith(f"{name}("):
                missing.append(name)
        elif not (origin.get(name) and _documented_in_source(str(origin[name]), name)):
            missing.append(name)
    return missing


def test_every_exported_name_is_documented() -> None:
    missing = undocumented_exports(village_rules)
    assert not missing, "exported by village_rules without a docstring: " + ", ".join(missing)


def test_the_export_check_catches_an_undocumented_name(monkeypatch: pytest.MonkeyPatch) -> None:
    def bare_function() -> None:
        pass

    @dataclass
    class Bare:
        x: int

    monkeypatch.setattr(village_rules, "bare_function", bare_function, raising=False)
    monkeypatch.setattr(village_rules, "Bare", Bare, raising=False)
    monkeypatch.setattr(village_rules, "__all__", [*village_rules.__all__, "bare_function", "Bare"])
    assert undocumented_exports(village_rules) == ["bare_function", "Bare"]
    assert not _documented_in_source("village_rules.data.loader", "_IDENT")
