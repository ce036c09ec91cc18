"""The optional native core (issue 39): a C++17 extension, `village_rules.native._core`.

Everything else is declared in pyproject.toml. The extension is optional twice over:
- `VILLAGE_RULES_NATIVE=0` (or `false`, `no`, `off`) leaves it out of the build entirely;
- otherwise it is built with `optional=True`, so where no C++ compiler works the build
  prints a warning and `pip install .` still installs the pure-Python package.
`import village_rules` never needs it; `import village_rules.native` says clearly when it
is missing (docs/native.md).
"""

from __future__ import annotations

import os

from setuptools import setup

_OFF = {"0", "false", "no", "off"}


def _native_modules() -> list[object]:
    if os.environ.get("VILLAGE_RULES_NATIVE", "1").strip().lower() in _OFF:
        print("village-rules: VILLAGE_RULES_NATIVE is off: the native core is not built")
        return []
    try:
        from pybind11.setup_helpers import Pybind11Extension  # noqa: PLC0415 (a build requirement only)
    except ImportError:  # a build without the build requirement (e.g. --no-build-isolation)
        print("village-rules: pybind11 is not installed: the native core is not built")
        return []
    return [
        Pybind11Extension(
            "village_rules.native._core",
            ["src/village_rules/native/cpp/core.cpp"],
            depends=["src/village_rules/native/cpp/state.hpp"],
            cxx_std=17,
            optional=True,
        )
    ]


setup(ext_modules=_native_modules())
