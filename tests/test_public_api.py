"""Issue 28: the public surface stays documented. Every enum of the rulebook's pieces is
exported from `village_rules`, the package docstring names it, every scenario helper has
its line on docs/scenario.md, and the API page documents every entry point of its table
(so a new public name that is not exported or not documented fails here)."""

from __future__ import annotations

import enum
import importlib
import inspect
import re

import pytest
from support import ROOT

import village_rules
import village_rules.data.components as components
import village_rules.scenario as scenario

# The third-party modules the optional extras bring (openspiel, pettingzoo).
OPTIONAL_MODULES = frozenset({"numpy", "pyspiel", "pettingzoo", "gymnasium"})
API_PAGE = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
SCENARIO_PAGE = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")


def piece_enums() -> list[str]:
    return sorted(
        name
        for name, value in vars(components).items()
        if inspect.isclass(value) and issubclass(value, enum.Enum) and value.__module__ == components.__name__
    )


def test_every_piece_enum_is_exported_and_named_in_the_docstring() -> None:
    names = piece_enums()
    assert {"Cube", "ActionSpace", "Good"} <= set(names)
    doc = village_rules.__doc__ or ""
    for name in names:
        assert name in village_rules.__all__, f"{name} is not exported from village_rules"
        assert getattr(village_rules, name) is getattr(components, name)
        assert f"`{name}`" in doc, f"the package docstring does not name {name}"


def test_every_exported_name_exists() -> None:
    for name in village_rules.__all__:
        assert hasattr(village_rules, name), name
    assert len(set(village_rules.__all__)) == len(village_rules.__all__)


def test_every_scenario_helper_is_on_the_scenario_page() -> None:
    rows = [line.split("|")[1] for line in SCENARIO_PAGE.splitlines() if line.startswith("| `")]
    table = {name for cell in rows for name in re.findall(r"`(\w+)\(", cell)}
    assert set(scenario.__all__) <= table, sorted(set(scenario.__all__) - table)


def test_the_api_page_documents_every_entry_point_of_its_table() -> None:
    entries = re.findall(r"^\| `(village_rules(?:\.\w+)?)`", API_PAGE, re.MULTILINE)
    assert "village_rules.scenario" in entries
    blocks = set(re.findall(r"^::: ([\w.]+)", API_PAGE, re.MULTILINE))
    for entry in ("village_rules", "village_rules.scenario"):
        assert entry in blocks, f"docs/api.md has no ::: block for {entry}"
    missing: list[str] = []
    for entry in entries:  # every entry point the table names imports
        try:
            importlib.import_module(entry)
        except ModuleNotFoundError as exc:  # an adapter without its optional extra
            if exc.name not in OPTIONAL_MODULES:
                raise
            missing.append(f"{entry}: {exc}")
    if missing:
        pytest.skip("; ".join(missing))


def test_the_package_docstring_is_a_markdown_list() -> None:
    """Python-Markdown needs a blank line before a list, or the list runs on as a paragraph."""
    doc = inspect.cleandoc(village_rules.__doc__ or "")
    lines = doc.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("- "))
    assert lines[first - 1] == ""


def test_all_is_kept_off_the_api_page() -> None:
    for block in re.findall(r"^::: village_rules(?:\.scenario)?\n((?:    .*\n)+)", API_PAGE, re.MULTILINE):
        assert "!^__all__$" in block
