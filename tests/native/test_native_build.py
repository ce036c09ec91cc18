"""The native core in use is the build of the C++ sources beside it: `_core.build_id()` is
the SHA-256 setup.py computes over them (`_sources_hash`), so an extension left over from
older sources (an in-place build not redone after an edit, or one copied in, as CI copies
the README install's) is named here instead of being tested as if it were current."""

from __future__ import annotations

import hashlib

from support import ROOT

from village_rules.native import _core

SOURCES = ROOT / "src" / "village_rules" / "native" / "cpp"


def sources_hash() -> str:
    """setup.py's `_sources_hash`, computed the same way: every .cpp and .hpp by name and content."""
    digest = hashlib.sha256()
    for path in sorted(SOURCES.glob("*.[ch]pp")):
        content = path.read_bytes()
        digest.update(f"{path.name}\0{len(content)}\0".encode() + content)
    return digest.hexdigest()


def test_the_native_core_in_use_is_the_build_of_these_sources() -> None:
    assert _core.build_id() == sources_hash(), (
        "the native core is not the build of src/village_rules/native/cpp: rebuild it "
        "(.venv/bin/python setup.py build_ext --inplace)"
    )


def test_setup_computes_the_build_id_the_same_way() -> None:
    # the test's copy of the hash must be setup.py's: the same lines, not a second rule
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert 'folder.glob("*.[ch]pp")' in setup
    assert 'digest.update(f"{path.name}\\0{len(content)}\\0".encode() + content)' in setup
