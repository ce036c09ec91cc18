"""The code examples of the README and of docs/ run as doctests, so the outputs they show
are true; the shell examples name real commands and options; the committed pictures and
the site's navigation match the repository."""

from __future__ import annotations

import ast
import doctest
import importlib
import importlib.util
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest
from support import ROOT

from village_rules.cli.main import _parser
from village_rules.data.loader import builtin_edition
from village_rules.model.actions import action_universe, format_action

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(text: str, language: str) -> list[tuple[int, str]]:
    """(line number, body) of every fenced block of `language`."""
    return [
        (text[: m.start()].count("\n") + 1, m.group(2))
        for m in _FENCE.finditer(text)
        if m.group(1) == language
    ]


def run_examples(text: str, name: str) -> doctest.TestResults:
    """Run every ```pycon block of a page in order, sharing one namespace (as a reader
    typing them into one session would)."""
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    globs: dict[str, object] = {}
    for line, body in blocks(text, "pycon"):
        test = parser.get_doctest(body, globs, f"{name}:{line}", name, line)
        runner.run(test, clear_globs=False)
        globs = test.globs  # DocTest works on a copy: carry the names to the next block
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_examples_of_a_page_are_true(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    result = run_examples(text, page.name)
    assert result.failed == 0, f"{page.name}: {result.failed} of {result.attempted} examples failed"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_python_fragments_compile_and_import_real_names(page: Path) -> None:
    """```python blocks are fragments (they may use a `state` the text defines): they must
    be valid Python, and every name they import from village_rules must exist. A module of
    an optional extra (the adapters) is skipped without its extra; CI runs this test again
    with every extra installed and VILLAGE_REQUIRE_EXTRAS=1."""
    for line, body in blocks(page.read_text(encoding="utf-8"), "python"):
        tree = ast.parse(body, f"{page.name}:{line}")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("village_rules"):
                try:
                    module = importlib.import_module(node.module or "")
                except ModuleNotFoundError as exc:  # a module of an optional extra
                    if (exc.name or "").startswith("village_rules"):
                        raise
                    # worded as pytest.importorskip words it, so VILLAGE_REQUIRE_EXTRAS=1 fails it
                    where = f"{page.name}:{line}"
                    pytest.skip(f"{where}: could not import {node.module}: No module named {exc.name}")
                missing = [a.name for a in node.names if not hasattr(module, a.name)]
                assert not missing, f"{page.name}:{line}: {node.module} has no {missing}"


def test_a_stale_import_in_a_fragment_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python\nfrom village_rules.pictures.svg import no_such_thing\n```\n")
    with pytest.raises(AssertionError, match="no_such_thing"):
        test_python_fragments_compile_and_import_real_names(page)


def test_the_readme_and_getting_started_have_examples() -> None:
    for page in (ROOT / "README.md", ROOT / "docs" / "index.md"):
        assert blocks(page.read_text(encoding="utf-8"), "pycon"), page
    assert not blocks((ROOT / "README.md").read_text(encoding="utf-8"), "python"), (
        "write README examples as ```pycon so they run"
    )


def test_a_wrong_output_comment_is_caught(capsys: pytest.CaptureFixture[str]) -> None:
    page = "```pycon\n>>> 1 + 1\n3\n\n```\n"
    assert run_examples(page, "synthetic").failed == 1
    capsys.readouterr()


def shell_commands(text: str) -> list[list[str]]:
    """The `village-rules ...` command lines of the ```sh blocks (comments dropped)."""
    found = []
    for _, body in blocks(text, "sh"):
        for raw in body.replace("\\\n", " ").splitlines():  # a line continued by "\" is one
            for part in raw.split("&&"):
                words = shlex.split(part, comments=True)
                for i, word in enumerate(words):
                    if word.endswith("village-rules"):
                        found.append(words[i + 1 :])
                        break
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_shell_examples_are_real_commands(page: Path) -> None:
    parser = _parser()
    for argv in shell_commands(page.read_text(encoding="utf-8")):
        try:
            parser.parse_args(argv)
        except SystemExit as exc:  # argparse's way to reject
            pytest.fail(f"{page.name}: `village-rules {' '.join(argv)}` does not parse ({exc})")


def test_the_readme_first_command_is_check() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = blocks(text, "sh")[0][1].strip()
    assert first == "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/village-rules check"
    second = blocks(text, "sh")[1][1].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert second in ci, "`.ci/run` must run the README's test command exactly"


def test_the_readme_shows_a_committed_picture_and_links_the_site() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+\.svg)\)", text)
    assert pictures and all((ROOT / p).is_file() for p in pictures)
    for page in ("docs/index.md", "docs/pictures.md", "docs/check.md", "docs/api.md"):
        assert f"({page})" in text, page


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_pictures_are_fresh() -> None:
    make = _load(ROOT / "scripts" / "make_pictures.py", "make_pictures")
    for name, text in make.pictures().items():
        committed = (ROOT / "docs" / "images" / name).read_text(encoding="utf-8")
        assert committed == text, f"docs/images/{name} is stale: run python scripts/make_pictures.py"


def test_every_nav_page_exists_and_every_page_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config[config.index("\nnav:") :]
    listed = set(re.findall(r":\s*([\w./-]+\.md)\s*$", nav, re.MULTILINE))
    present = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert listed <= present, f"nav names missing pages: {sorted(listed - present)}"
    assert present <= listed, f"pages missing from the nav: {sorted(present - listed)}"


def test_the_hook_includes_specs_and_rewrites_links() -> None:
    hooks = _load(ROOT / "scripts" / "mkdocs_hooks.py", "mkdocs_hooks")
    included = hooks.include('--8<-- "specs/rules.md"\n')
    assert included.startswith("# Village: the numbered rules")
    with pytest.raises(FileNotFoundError):
        hooks.include('--8<-- "specs/none.md"\n')
    rewrite = hooks.rewrite_links
    assert rewrite("see [spec](../specs/rules.md#turn)") == "see [spec](rules.md#turn)"
    assert rewrite("[reg](specs/ambiguities.md)") == "[reg](ambiguities.md)"
    assert rewrite("[fmt](docs/data-format.md)") == "[fmt](data-format.md)"
    assert rewrite("[2023](../outside/rules/x.txt)") == "2023 (`../outside/rules/x.txt`)"
    assert rewrite("[a](actions.md) ![p](images/x.svg) [w](https://x.org)") == (
        "[a](actions.md) ![p](images/x.svg) [w](https://x.org)"
    )


def test_the_hook_separates_list_items_as_github_does() -> None:
    hooks = _load(ROOT / "scripts" / "mkdocs_hooks.py", "mkdocs_hooks")
    text = "- a\n\n  more of a\n- b\n  b goes on\n  - b1\n- c\n```\n  x\n- not an item\n```\n"
    assert hooks.separate_list_items(text) == (
        "- a\n\n  more of a\n\n- b\n  b goes on\n  - b1\n- c\n```\n  x\n- not an item\n```\n"
    )


def test_docs_actions_gives_the_shipped_action_counts() -> None:
    """docs/actions.md's counts of distinct actions are the shipped data's (they were once
    stale: 487 and 483 where the data gave 510 and 499)."""
    page = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    counts = {e: len(action_universe(builtin_edition(e))) for e in ("big-box-2023", "original-2011")}
    said = f"2023 data has {counts['big-box-2023']} actions, the 2011 data {counts['original-2011']})"
    assert said in " ".join(page.split()), counts


def test_docs_actions_lists_every_form_format_action_writes() -> None:
    """Every first word of the actions the shipped data allows has a row in the notation
    table of docs/actions.md, and so does training without a good (AMB-26 b)."""
    page = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    rows = {line.split("`")[1].split()[0] for line in page.splitlines() if line.startswith("| `")}
    editions = ("big-box-2023", "original-2011")
    words = {format_action(a).split()[0] for e in editions for a in action_universe(builtin_edition(e))}
    assert words <= rows, sorted(words - rows)
    assert "| `train BUILDING N` |" in page
