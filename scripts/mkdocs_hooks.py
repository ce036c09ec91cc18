"""MkDocs hook: the spec and the register from specs/, and repository links that work on
the site.

- A page whose line is `--8<-- "specs/rules.md"` gets that file's text there (the
  pymdownx.snippets syntax, expanded here so the next step sees the included links too):
  the spec and the ambiguity register live in specs/ and are never copied into docs/.
- The pages are written for the repository, where `../specs/rules.md` or
  `../docs/actions.md` are files. On the site the spec and the register are the pages
  `rules.md` and `ambiguities.md`, a `docs/x.md` is the page `x.md`, and a file outside the
  repository (`../shared/rules/...`) is no page at all: such a link becomes its text with
  the path in code, so `mkdocs build --strict` stays clean.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SITE_PAGES = {
    "specs/rules.md": "rules.md",
    "specs/ambiguities.md": "ambiguities.md",
}
_INCLUDE = re.compile(r'^--8<-- "([^"]+)"\s*$', re.MULTILINE)
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def include(markdown: str, root: Path = ROOT) -> str:
    """Replace each `--8<-- "path"` line by the text of `root/path` (must exist)."""

    def text_of(match: re.Match[str]) -> str:
        path = root / match.group(1)
        if not path.is_file():
            raise FileNotFoundError(f"mkdocs include: {match.group(1)} does not exist")
        return path.read_text(encoding="utf-8")

    return _INCLUDE.sub(text_of, markdown)


def rewrite_links(markdown: str) -> str:
    """Links to specs/ and docs/ become site links; links that leave the repository text."""

    def fix(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        path, _, anchor = target.partition("#")
        suffix = f"#{anchor}" if anchor else ""
        if path.startswith(("http://", "https://", "mailto:")) or not path:
            return match.group(0)
        bare = path
        while bare.startswith(("../", "./")):
            bare = bare.split("/", 1)[1]
        if bare in SITE_PAGES:
            return f"[{text}]({SITE_PAGES[bare]}{suffix})"
        if bare.startswith("docs/") and (ROOT / bare).exists():
            return f"[{text}]({bare.removeprefix('docs/')}{suffix})"
        if path.startswith("../") and not (ROOT / "docs" / path).resolve().is_relative_to(ROOT / "docs"):
            return f"{text} (`{path}`)"
        return match.group(0)

    return _LINK.sub(fix, markdown)


_ITEM = re.compile(r"^(\s*)[-*+] ")
_FENCE = re.compile(r"^\s*(```|~~~)")


def separate_list_items(markdown: str) -> str:
    """Put a blank line before a list item that comes back out of an indented paragraph.

    GitHub (CommonMark) starts a new item at `- ` right after an item's indented
    continuation paragraph; Python-Markdown reads it as more text of that paragraph. A
    blank line means the same to both. Fenced code is left alone."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        item = None if fenced else _ITEM.match(line)
        if item and out and out[-1].strip() and not _ITEM.match(out[-1]):
            previous_indent = len(out[-1]) - len(out[-1].lstrip())
            if previous_indent > len(item.group(1)):
                out.append("")
        out.append(line)
    return "\n".join(out)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return separate_list_items(rewrite_links(include(markdown)))
