"""The native core stays optional (issue 39, docs/native.md): `import village_rules` never
imports it, `import village_rules.native` without the extension is a clear ImportError, and
the tie's tests skip without it, except under VILLAGE_REQUIRE_NATIVE=1, where they fail.
These run whether or not the extension is built (its absence is simulated)."""

from __future__ import annotations

import os
import subprocess
import sys

from support import ROOT

_HIDE = "import sys; sys.modules['village_rules.native._core'] = None  # as if not built\n"


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    # The inner pytest runs one module: the outer run's PYTEST_ADDOPTS (CI passes its
    # coverage floor through it) would fail it on the coverage of that module alone.
    outer = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**outer, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_import_village_rules_never_imports_the_native_core() -> None:
    done = _run("import sys, village_rules; print('village_rules.native' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_without_the_extension_the_import_error_says_why() -> None:
    done = _run(_HIDE + "import village_rules.native")
    assert done.returncode != 0
    assert "ImportError: village_rules.native needs the compiled native core" in done.stderr
    assert "VILLAGE_RULES_NATIVE=0" in done.stderr


_PYTEST = _HIDE + (
    "import pytest; sys.exit(pytest.main(['-q', '-n', '0', '-p', 'no:cacheprovider', '-rs',"
    " 'tests/native/test_native_tie.py']))"
)


def test_the_tie_skips_without_the_extension() -> None:
    done = _run(_PYTEST, VILLAGE_REQUIRE_NATIVE="0")
    # 5: the module is skipped whole, so pytest collected no test (not a failure, exit 1)
    assert done.returncode in (0, 5), done.stdout[-2000:]
    assert "1 skipped" in done.stdout
    assert "the native core is not built (optional extension)" in done.stdout


def test_the_tie_fails_without_the_extension_when_required() -> None:
    done = _run(_PYTEST, VILLAGE_REQUIRE_NATIVE="1")
    assert done.returncode not in (0, 5)
    assert "VILLAGE_REQUIRE_NATIVE=1 but the native core is not built" in done.stdout
