"""The generated mutants (issue 25): `generated.json` is what cosmic-ray draws from today's
engine, the draw is seeded and survives edits elsewhere, and no site sits in a type
annotation (never evaluated, so equivalent by construction). Needs the extra `mutation`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray", reason="the extra `mutation` (cosmic-ray) is not installed")

from village_rules.mutation.generate import (
    GENERATED,
    PACKAGE,
    document,
    draw,
    realise,
    sites,
    text_of,
)


def test_the_stored_generated_mutants_are_what_cosmic_ray_draws_today() -> None:
    stored = GENERATED.read_text(encoding="utf-8")
    raw = json.loads(stored)
    assert text_of(document(raw["size"], raw["seed"], GENERATED)) == stored


def _package(tmp_path: Path, body: str) -> Path:
    (tmp_path / "engine").mkdir(parents=True)
    (tmp_path / "engine" / "m.py").write_text(body, encoding="utf-8")
    return tmp_path


BODY = (
    "from __future__ import annotations\n\n\n"
    "def cost(x: int | None, n: int) -> int | None:\n"
    "    if x is None:\n"
    "        return None\n"
    "    return x + n if n > 1 else x - 1\n"
)


def test_no_site_is_in_a_type_annotation_and_each_realises_as_a_unique_patch(tmp_path: Path) -> None:
    pkg = _package(tmp_path, BODY)
    found = sites(pkg, ("engine/m.py",))
    assert found
    assert all(s.line != 4 for s in found), [s for s in found if s.line == 4]
    for s in found:
        g = realise(s, pkg)
        if g is None:
            continue
        assert BODY.count(g.find) == 1
        compile(BODY.replace(g.find, g.replace), "m.py", "exec")
        assert BODY.replace(g.find, g.replace) != BODY


def test_the_draw_is_seeded_and_an_edit_elsewhere_keeps_the_other_sites(tmp_path: Path) -> None:
    pkg = _package(tmp_path / "a", BODY)
    found = sites(pkg, ("engine/m.py",))
    one = [g.id for g in draw(found, 4, 1, pkg)]
    assert one == [g.id for g in draw(found, 4, 1, pkg)]
    assert len(one) == 4
    assert {g.id for g in draw(found, 4, 2, pkg)} != set(one) or len(found) <= 4
    edited = BODY + "\n\ndef other(y: int) -> int:\n    return y * 3\n"
    pkg2 = _package(tmp_path / "b", edited)
    again = sites(pkg2, ("engine/m.py",))
    assert {s.id for s in found} < {s.id for s in again}


def test_the_real_population_covers_every_engine_module() -> None:
    found = sites()
    files = {s.file for s in found}
    assert "engine/scoring.py" in files and "engine/turn.py" in files
    assert len({s.id for s in found}) == len(found)
    assert (PACKAGE / "engine" / "scoring.py").is_file()
