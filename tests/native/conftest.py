"""The native core's tests need the optional extension (docs/native.md). Where it is not
built, each of their modules is skipped whole, with the reason, before it is imported; under
VILLAGE_REQUIRE_NATIVE=1 (CI's native install, where a skip would hide a failed build) it
fails instead. One place for what every module of this folder did at its top until
2026-12-06. `test_native_optional.py` is not among them: it tests this, without the
extension, and runs everywhere."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pytest

RUN_WITHOUT_THE_EXTENSION = frozenset({"test_native_optional.py"})


def native_missing() -> str | None:
    """Why `village_rules.native` cannot be imported (None when it can)."""
    try:
        import village_rules.native  # noqa: F401, PLC0415 (the question is whether it imports)
    except ImportError as exc:
        return str(exc)
    return None


class NeedsNative(pytest.Module):
    """A test module that is only collected where the native core is built."""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        missing = native_missing()
        if missing is not None:
            if os.environ.get("VILLAGE_REQUIRE_NATIVE") == "1":
                pytest.fail(
                    f"VILLAGE_REQUIRE_NATIVE=1 but the native core is not built: {missing}", pytrace=False
                )
            pytest.skip(
                f"the native core is not built (optional extension): {missing}", allow_module_level=True
            )
        return super().collect()


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    """Every test module of this folder but those that run without the extension."""
    if module_path.name in RUN_WITHOUT_THE_EXTENSION or not module_path.name.startswith("test_"):
        return None
    module: pytest.Module = NeedsNative.from_parent(parent, path=module_path)
    return module
