"""The package's layers (pyproject.toml, [tool.importlinter]) hold, and the check that says so
fails when a lower layer imports a higher one; the top-level entry points re-export their
modules' public names unchanged."""

from __future__ import annotations

import ast
import importlib
import inspect
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from support import ROOT

PACKAGE = ROOT / "src" / "village_rules"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

ENTRY_POINTS = {
    "village_rules.actions": "village_rules.model.actions",
    "village_rules.incremental": "village_rules.checks.incremental",
    "village_rules.invariants": "village_rules.checks.invariants",
    "village_rules.openspiel": "village_rules.adapters.openspiel",
    "village_rules.pettingzoo": "village_rules.adapters.pettingzoo",
    "village_rules.play": "village_rules.drivers.play",
    "village_rules.scenario": "village_rules.drivers.scenario",
    "village_rules.svg": "village_rules.pictures.svg",
}
"""The supported top-level entry points (docs/api.md) and the module each re-exports."""


def _lint(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    shutil.copy(ROOT / "pyproject.toml", cwd / "pyproject.toml")
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=cwd,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _copy(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "village_rules", ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    return src


def test_the_layer_contracts_hold_on_this_tree(tmp_path: Path) -> None:
    result = _lint(_copy(tmp_path), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 4 kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    ("module", "imported", "broken"),
    [
        # the engine reaching up into the checkers
        ("engine/core.py", "village_rules.checks.invariants", "village_rules.engine is not allowed"),
        # the data layer reaching up into the state model
        ("data/loader.py", "village_rules.model.state", "village_rules.data is not allowed to import"),
        # two independent tools
        ("pictures/svg.py", "village_rules.adapters.ids", "village_rules.pictures is not allowed to import"),
        # the proofs' model (their bottom stage) reaching up into the link that checks it
        ("proofs/model/model.py", "village_rules.proofs.link.link", "proofs.model is not allowed"),
        # the proofs' search reaching up into the catalogue written over its History and Steer
        ("proofs/search/shrink.py", "village_rules.proofs.catalogue.query", "proofs.search is not allowed"),
        # a layer importing a top-level re-export instead of the module itself
        ("fuzz/runner.py", "village_rules.play", "fuzz is not allowed to import village_rules.play"),
    ],
)
def test_an_upward_import_breaks_a_contract(tmp_path: Path, module: str, imported: str, broken: str) -> None:
    src = _copy(tmp_path)
    path = src / "village_rules" / module
    text = path.read_text(encoding="utf-8")
    marker = "from __future__ import annotations\n"
    assert marker in text
    path.write_text(text.replace(marker, f"{marker}\nimport {imported}  # noqa\n", 1), encoding="utf-8")
    result = _lint(src, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert broken in result.stdout, result.stdout


def test_a_cycle_between_siblings_breaks_a_contract(tmp_path: Path) -> None:
    # data.tally importing data.loader, which imports data.tally: allowed by the layers
    # (one package), refused by acyclic_siblings.
    src = _copy(tmp_path)
    path = src / "village_rules" / "data" / "tally.py"
    text = path.read_text(encoding="utf-8")
    marker = "from __future__ import annotations\n"
    path.write_text(text.replace(marker, f"{marker}\nimport village_rules.data.loader  # noqa\n", 1))
    result = _lint(src, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "No cycles are allowed in village_rules.data" in result.stdout, result.stdout


def _public_names(module: ModuleType) -> set[str]:
    """The public names a module defines at its top level (classes, functions, assignments),
    or those of its `__all__`."""
    listed = getattr(module, "__all__", None)
    if listed is not None:
        return set(listed)
    names: set[str] = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


@pytest.mark.parametrize(("entry", "target"), sorted(ENTRY_POINTS.items()))
def test_an_entry_point_re_exports_its_modules_public_names(entry: str, target: str) -> None:
    try:
        shim = importlib.import_module(entry)
    except ImportError as exc:  # an adapter without its optional extra
        pytest.skip(f"{entry}: {exc}")
    real = importlib.import_module(target)
    assert shim.__all__, entry
    for name in shim.__all__:
        assert getattr(shim, name) is getattr(real, name), f"{entry}.{name}"
    missing = _public_names(real) - set(shim.__all__)
    assert not missing, f"{entry} does not re-export {sorted(missing)} of {target}"
