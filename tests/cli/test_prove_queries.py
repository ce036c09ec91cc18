"""`prove --queries FILE`: a user's own queries from the command line (issue 41), their
witnesses recording where the query comes from, `replay` and `view` saying which query a
witness shows (and refusing it clearly without the file), and one specific refusal, exit 2
and no traceback, for each way the file can be unusable."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

from village_rules.cli.main import main

EXAMPLE = ROOT / "examples" / "my_queries.py"
STEM = "X1-full-barn-harvest-big-box-2023-2p"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed `village-rules` command (beside this interpreter), run in `cwd`."""
    script = Path(sys.executable).with_name("village-rules")
    return subprocess.run([str(script), *args], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def proved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`prove --queries examples/my_queries.py --out DIR`, run by the installed command from
    another folder (so the example needs nothing of the source tree but its own file)."""
    where = tmp_path_factory.mktemp("user")
    module = where / "my_queries.py"
    shutil.copy(EXAMPLE, module)
    done = _cli("prove", "--queries", "my_queries.py", "--out", "out", "--quiet", cwd=where)
    assert done.returncode == 0, done.stderr
    assert "full-barn-harvest" in done.stdout and "reachable" in done.stdout
    return where


def test_prove_queries_writes_a_witness_that_records_its_query(proved: Path) -> None:
    raw = json.loads((proved / "out" / f"{STEM}.json").read_text(encoding="utf-8"))
    assert raw["query"] == {"name": "full-barn-harvest", "source": "my_queries.py"}
    note = (proved / "out" / f"{STEM}.md").read_text(encoding="utf-8")
    assert "shrunk by delta debugging" in note and "--queries my_queries.py" in note
    table = json.loads((proved / "out" / "results.json").read_text(encoding="utf-8"))
    assert [r["query"] for r in table["rows"]] == ["full-barn-harvest"]


def test_replay_and_view_say_which_user_query_a_witness_shows(proved: Path) -> None:
    witness = f"out/{STEM}.json"
    done = _cli("replay", witness, "--queries", "my_queries.py", cwd=proved)
    assert done.returncode == 0, done.stderr
    assert "witness of query X1 (full-barn-harvest) (from my_queries.py)" in done.stdout
    done = _cli("view", witness, "--queries", "my_queries.py", "--out", "page.html", cwd=proved)
    assert done.returncode == 0, done.stderr
    assert "query X1 holds here" in done.stdout


def test_replay_and_view_refuse_a_user_witness_without_its_queries(proved: Path) -> None:
    witness = f"out/{STEM}.json"
    for command in (["replay", witness], ["view", witness, "--out", "page2.html"]):
        done = _cli(*command, cwd=proved)
        assert done.returncode == 2
        assert "give `--queries my_queries.py`" in done.stderr
        assert "Traceback" not in done.stderr
    other = proved / "other.py"
    other.write_text(EXAMPLE.read_text(encoding="utf-8").replace('"full-barn-harvest"', '"barn"'), "utf-8")
    done = _cli("replay", witness, "--queries", "other.py", cwd=proved)
    assert done.returncode == 2
    assert "which other.py does not define (it defines: barn)" in done.stderr


BAD = {
    "missing.py": (None, "no such file"),
    "notes.txt": ("FULL = 1\n", "not a Python file"),
    "syntax.py": ("def (:\n", "not valid Python: invalid syntax (line 1)"),
    "raises.py": ("x = 1\nraise ValueError('no grain')\n", "raised ValueError when imported (line 2)"),
    "empty.py": ("from village_rules.proofs.catalogue.catalogue import Query\nX = 3\n", "defines no queries"),
    "clash.py": (None, "clashes with the catalogue's query 12 (lasso)"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_unusable_queries_file_has_its_own_refusal(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, message = BAD[name]
    if name == "clash.py":
        text = EXAMPLE.read_text(encoding="utf-8").replace('"full-barn-harvest"', '"lasso"')
    if text is not None:
        (tmp_path / name).write_text(text, encoding="utf-8")
    for command in (["prove"], ["replay", str(ROOT / "README.md")], ["view", str(ROOT / "README.md")]):
        if command[0] != "prove" and name != "missing.py":
            continue  # the loader is the same; the file is checked once per command below
        assert main([*command, "--queries", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert message in err, err
        assert "Traceback" not in err
