"""Reading untrusted JSON text: one strict parser for states, data files and game logs.

`json.loads` alone lets three kinds of bad input through or out: text of any size (a 17 MB
state took tens of seconds to refuse), duplicate keys (silently last-one-wins), and it
raises `RecursionError` for deep nesting and a bare `ValueError` for an integer beyond
Python's digit limit. (`NaN` and floats parse, and every reader refuses them where it
wants an integer.) `read_json` refuses all of them
with one `JsonInputError` whose message says what and where; each caller turns it into its
own library error (`StateFormatError`, `DataError`, `LogFormatError`).

The limits are documented in docs/input-guarantees.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

MAX_STATE_CHARS = 2_000_000
"""A saved state: about 2 kB on the shipped data; a state on a user's data embeds that data
(at most `MAX_DATA_CHARS`), so twice that limit leaves room for everything else."""
MAX_DATA_CHARS = 1_000_000
"""An edition data file: the shipped files are about 43 kB."""
MAX_LOG_CHARS = 4_000_000
"""A game log: a whole 5-player game is about 30 kB (some 1,300 actions)."""
MAX_INT_DIGITS = 100
"""No count, seed or id needs more digits; longer integers are refused before conversion."""
MAX_SEED = 10**MAX_INT_DIGITS
"""Seeds are below this (at most `MAX_INT_DIGITS` digits), so every log written can be read."""


class JsonInputError(ValueError):
    """Why a text is not acceptable JSON (the message says what and where)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise JsonInputError(f"not valid JSON: duplicate key {key!r} in one object")
        out[key] = value
    return out


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonInputError(
            f"not valid JSON: an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})"
        )
    return int(text)


_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
"""A surrogate, raw or escaped: the text may hold a lone one (`_refuse_surrogates` looks)."""


def _refuse_surrogates(value: object) -> None:
    """`JsonInputError` if a string (or key) of the parsed value holds a lone surrogate: it is
    not Unicode text, and would fail later when written, printed or fingerprinted."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            texts: list[str] = [node]
        elif isinstance(node, dict):
            texts = list(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
            continue
        else:
            continue
        for s in texts:
            if _SURROGATE.search(s):
                bad = next(c for c in s if "\ud800" <= c <= "\udfff")
                raise JsonInputError(
                    f"not valid JSON text: the string {s[:40]!r} holds a lone surrogate \\u{ord(bad):04x},"
                    " which is not a Unicode character"
                )


def read_json(text: object, limit: int, what: str) -> object:
    """Parse `text` (a str) as strict JSON of at most `limit` characters; `what` names the
    kind of document in messages ("state", "data file", "game log")."""
    if not isinstance(text, str):
        raise JsonInputError(f"a {what} must be given as text (str), not {type(text).__name__}")
    if len(text) > limit:
        raise JsonInputError(f"the {what} is {len(text):,} characters; the limit is {limit:,}")
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_int)
        if _SURROGATE.search(text):
            _refuse_surrogates(value)
        return value
    except JsonInputError:
        raise
    except json.JSONDecodeError as exc:
        # Some of the parser's messages end in "at" ("Unterminated string starting at"): the
        # position completes that phrase instead of following it ("at at line …").
        where = f"line {exc.lineno} column {exc.colno}"
        msg = exc.msg.removesuffix(" at")
        raise JsonInputError(f"not valid JSON: {msg} at {where}") from None
    except RecursionError:
        raise JsonInputError("not valid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. a float literal Python cannot convert
        raise JsonInputError(f"not valid JSON: {exc}") from None


def read_text_file(path: str | Path, limit: int, what: str) -> str:
    """The UTF-8 text of a file of at most `limit` bytes, read no further than the limit.
    Raises `JsonInputError` for a file too large or not UTF-8, `OSError` if it cannot be read."""
    with open(path, "rb") as f:
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise JsonInputError(f"the {what} file is larger than the limit of {limit:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonInputError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
