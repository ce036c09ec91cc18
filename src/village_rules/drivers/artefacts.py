"""The JSON files village-rules writes, told apart by their fields, so that reading one as a
game log (or a log as a state) says what it is and which command reads it, instead of
listing its "unknown field(s)".

The format names are those the writers use (`fuzz.report.REPORT_FORMAT`,
`adapters.golden.GOLDEN_FORMAT`, `drivers.serialization.STATE_FORMAT`,
`proofs.table.table.FORMAT`, `fuzz.guided_report.GUIDED_FORMAT`, the readings' witness and the
edition data); tests/cli/test_cli_messages.py keeps them in step.
"""

from __future__ import annotations

from collections.abc import Mapping

KNOWN_FORMATS: dict[str, str] = {
    "village-rules-log": "a game log (replay it with `village-rules replay`)",
    "village-rules-fuzz-report": "a fuzz report (read it with `village-rules fuzz-merge`)",
    "village-rules-witness": (
        "a readings witness, the record of where two readings part"
        " (the game log of each reading is beside it, named after it and ending in"
        " .<reading>.log.json: replay those; `village-rules diverge` makes them)"
    ),
    "village-rules-state": (
        "a saved game state (draw it with `village-rules show`; in Python `village_rules.from_json` reads it)"
    ),
    "village-rules-edition": "an edition data file (give it to a command with `--data`)",
    "village-rules-golden": "the adapters' golden trajectories (tests/adapters read them)",
    "village-rules-prove-table": (
        "the proof catalogue's table of results (`village-rules prove` writes it; results.md is its reading)"
    ),
    "village-rules-guided-report": (
        "a guided fuzz report (`village-rules fuzz --guided --json` writes it; read it with"
        " `village-rules fuzz-merge`)"
    ),
}
"""Each known `format`, with what the file is and what reads it."""


def artefact_kind(raw: Mapping[str, object], expected: str) -> str | None:
    """What kind of village-rules file the parsed JSON object `raw` is, in words, when it is
    a known one other than the `expected` format; None otherwise (then it is read as that)."""
    fmt = raw.get("format")
    if isinstance(fmt, str) and fmt != expected and fmt in KNOWN_FORMATS:
        return KNOWN_FORMATS[fmt]
    if "format" not in raw and {"query", "verdict", "invariant"} <= raw.keys():
        return (
            f"a stored unreachability proof of query {raw['query']!r}"
            " (`village-rules check` re-proves it)"
        )
    return None
