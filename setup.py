"""The packages and their folders, and the optional native core; the rest is in pyproject.toml.

The packages are every package under src/, and the proof catalogue's stored results (issue
41): their one home is proofs/ at the top of the repository, and each of its folders ships
as a data package at the place the library reads it, `village_rules/proofs/witnesses/` and
`village_rules/proofs/regressions/` (their files: [tool.setuptools.package-data]). An
editable install maps the same names to the same folders, so a clone reads and writes
proofs/ itself, and there is no second copy.

The native core (issue 39) is a C++17 extension, `village_rules.native._core`, optional
twice over:
- `VILLAGE_RULES_NATIVE=0` (or `false`, `no`, `off`) leaves it out of the build entirely;
- otherwise it is built with `optional=True`, so where no C++ compiler works the build
  prints a warning and `pip install .` still installs the pure-Python package.
`import village_rules` never needs it; `import village_rules.native` says clearly when it
is missing (docs/native.md).

The extension is told the SHA-256 of its C++ sources (`VILLAGE_NATIVE_SOURCES`,
`_core.build_id()`): a native explorer checkpoint names the build that wrote it and another
build's is refused. The sources, not the built file: the same sources make the same
fingerprints, packed states and move order whatever the compiler or machine, and a rebuild
of unchanged sources must not orphan a checkpoint, while any change to them must.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from setuptools import find_packages, setup

_OFF = {"0", "false", "no", "off"}

STORED_RESULTS = {
    "village_rules.proofs.witnesses": "proofs/witnesses",
    "village_rules.proofs.regressions": "proofs/regressions",
}
"""Each data package of the proof catalogue's stored results -> its folder in the clone."""


NATIVE_SOURCES = "src/village_rules/native/cpp"


def _sources_hash() -> str:
    """The SHA-256 of every C++ source and header of the native core, by name and content."""
    digest = hashlib.sha256()
    folder = Path(__file__).resolve().parent / NATIVE_SOURCES
    for path in sorted(folder.glob("*.[ch]pp")):
        content = path.read_bytes()
        digest.update(f"{path.name}\0{len(content)}\0".encode() + content)
    return digest.hexdigest()


def _native_modules() -> list[object]:
    if os.environ.get("VILLAGE_RULES_NATIVE", "1").strip().lower() in _OFF:
        print("village-rules: VILLAGE_RULES_NATIVE is off: the native core is not built")
        return []
    try:
        from pybind11.setup_helpers import (  # noqa: PLC0415 (a build requirement only)
            ParallelCompile,
            Pybind11Extension,
        )
    except ImportError:  # a build without the build requirement (e.g. --no-build-isolation)
        print("village-rules: pybind11 is not installed: the native core is not built")
        return []
    # The nine sources compile side by side, one per core (VILLAGE_RULES_BUILD_JOBS=N for N):
    # about 90 s of one core in all, core.cpp (the bindings) about half of it.
    ParallelCompile("VILLAGE_RULES_BUILD_JOBS").install()
    return [
        Pybind11Extension(
            "village_rules.native._core",
            [
                "src/village_rules/native/cpp/core.cpp",
                "src/village_rules/native/cpp/solo.cpp",
                "src/village_rules/native/cpp/explore.cpp",
                "src/village_rules/native/cpp/pack.cpp",
                "src/village_rules/native/cpp/checks.cpp",
                "src/village_rules/native/cpp/checkpoint.cpp",
                "src/village_rules/native/cpp/observation.cpp",
                "src/village_rules/native/cpp/predicates.cpp",
                "src/village_rules/native/cpp/monitors.cpp",
            ],
            depends=[
                "src/village_rules/native/cpp/state.hpp",
                "src/village_rules/native/cpp/solo.hpp",
                "src/village_rules/native/cpp/explore.hpp",
                "src/village_rules/native/cpp/pack.hpp",
                "src/village_rules/native/cpp/checks.hpp",
                "src/village_rules/native/cpp/checkpoint.hpp",
                "src/village_rules/native/cpp/events.hpp",
                "src/village_rules/native/cpp/observation.hpp",
                "src/village_rules/native/cpp/predicates.hpp",
                "src/village_rules/native/cpp/monitors.hpp",
            ],
            define_macros=[("VILLAGE_NATIVE_SOURCES", f'"{_sources_hash()}"')],
            cxx_std=17,
            optional=True,
        )
    ]


setup(
    packages=[*find_packages("src"), *STORED_RESULTS],
    package_dir={"": "src", **STORED_RESULTS},
    ext_modules=_native_modules(),
)
