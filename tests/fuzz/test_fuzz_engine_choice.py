"""Which engine a fuzz run uses where the native core is not built (`fuzz.engines`): the
reference, said as such; asking for the core there is refused. Runs on every install (the
native tie is tests/native/test_native_fuzz.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import village_rules.fuzz.engines as engines
from village_rules.errors import FuzzArgumentError
from village_rules.fuzz.runner import run_fuzz


def _no_core(name: str, package: str | None = None) -> None:
    # what `import village_rules.native` does on an install without the extension
    raise ImportError("village_rules.native needs the compiled native core, which this install does not have")


def test_an_install_without_the_core_fuzzes_on_the_reference(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", _no_core)
    assert engines.native_built() is False
    summary = run_fuzz(1, 0, 1, "original-2011", 2, tmp_path)
    assert summary.engine == "reference" and summary.failure is None
    assert "the reference engine" in summary.format()
    with pytest.raises(FuzzArgumentError, match="--engine: native: this install has no native core"):
        run_fuzz(1, 0, 1, "original-2011", 2, tmp_path, engine="native")
