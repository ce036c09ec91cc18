"""The JSON-lines protocol (version 1) over stdin/stdout, and a server for any `Engine`.

One request per line, one response per line, both single JSON objects, in order. A
request names its operation in `"op"`; a response has `"ok": true` and the answer's
fields, or `"ok": false` and an `"error"` text. Probabilities are exact fractions as text
(`"5/26"`, `"1/1"`); a state is the reference's canonical state object (`to_json`'s). The
first request is always `hello`, which both sides use to agree on the version.
docs/conformance.md has every message with an example.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import IO

from village_rules.conform.protocol import CHANCE, TERMINAL, Engine, GameSetup

PROTOCOL = "village-rules-conform"
VERSION = 1
OPS = (
    "hello",
    "new_game",
    "load",
    "current_player",
    "legal_actions",
    "chance_outcomes",
    "apply",
    "state",
    "scores",
    "winners",
    "quit",
)
"""Every operation of version 1, in the order docs/conformance.md lists them."""

Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]


def fraction_text(p: Fraction) -> str:
    """`Fraction(5, 26)` as `"5/26"` (a whole number as `"1/1"`)."""
    return f"{p.numerator}/{p.denominator}"


def parse_fraction(text: object) -> Fraction:
    """`"5/26"` as a Fraction; `ValueError` for anything else (a float, `"0.19"`, `"5/0"`)."""
    if not isinstance(text, str):
        raise ValueError(f'a probability is a fraction text such as "5/26", not {text!r}')
    num, sep, den = text.partition("/")
    if not sep or not num.strip().lstrip("-").isdigit() or not den.strip().isdigit() or int(den) == 0:
        raise ValueError(f'a probability is a fraction text such as "5/26", not {text!r}')
    return Fraction(int(num), int(den))


def player_text(player: int) -> int | str:
    """A seat as itself, `CHANCE` as `"chance"`, `TERMINAL` as `"terminal"`."""
    return "chance" if player == CHANCE else "terminal" if player == TERMINAL else player


def parse_player(value: object) -> int:
    """The inverse of `player_text`; `ValueError` for anything else."""
    if value == "chance":
        return CHANCE
    if value == "terminal":
        return TERMINAL
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise ValueError(f'a player is a seat (0 or more), "chance" or "terminal", not {value!r}')


def setup_from_message(msg: dict[str, object]) -> GameSetup:
    """A `new_game` request's set-up; `ValueError` naming the field at fault."""
    players = msg.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        raise ValueError("new_game: 'players' must be an integer")
    edition, data_file, seed, deal = (msg.get(k) for k in ("edition", "data_file", "seed", "deal"))
    if edition is not None and not isinstance(edition, str):
        raise ValueError("new_game: 'edition' must be a text")
    if data_file is not None and not isinstance(data_file, str):
        raise ValueError("new_game: 'data_file' must be a text")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ValueError("new_game: 'seed' must be an integer")
    if deal is not None and not (isinstance(deal, list) and all(isinstance(i, int) for i in deal)):
        raise ValueError("new_game: 'deal' must be a list of outcome ids")
    readings = msg.get("readings", {})
    if not isinstance(readings, dict) or not all(isinstance(v, str) for v in readings.values()):
        raise ValueError("new_game: 'readings' must map AMB IDs to letters")
    compensation = msg.get("starting_compensation", True)
    if not isinstance(compensation, bool):
        raise ValueError("new_game: 'starting_compensation' must be true or false")
    return GameSetup(
        players=players,
        edition=edition,
        data_file=data_file,
        seed=seed,
        deal=None if deal is None else tuple(deal),
        readings=tuple(sorted((str(k), str(v)) for k, v in readings.items())),
        starting_compensation=compensation,
    )


def answer(engine: Engine, msg: object, name: str) -> dict[str, Json]:
    """The response to one request (`ok: false` with the reason for anything wrong)."""
    if not isinstance(msg, dict) or not isinstance(msg.get("op"), str):
        return {"ok": False, "error": "a request is a JSON object with a text field 'op'"}
    op = msg["op"]
    try:
        match op:
            case "hello":
                if msg.get("protocol") != PROTOCOL or msg.get("version") != VERSION:
                    return {
                        "ok": False,
                        "error": f"this server speaks {PROTOCOL} version {VERSION}",
                        "protocol": PROTOCOL,
                        "version": VERSION,
                    }
                return {"ok": True, "protocol": PROTOCOL, "version": VERSION, "engine": name}
            case "new_game":
                engine.new_game(setup_from_message(msg))
                return {"ok": True}
            case "load":
                engine.load(
                    json.dumps(msg.get("state"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                )
                return {"ok": True}
            case "current_player":
                return {"ok": True, "player": player_text(engine.current_player())}
            case "legal_actions":
                return {"ok": True, "actions": list(engine.legal_actions())}
            case "chance_outcomes":
                return {"ok": True, "outcomes": [[i, fraction_text(p)] for i, p in engine.chance_outcomes()]}
            case "apply":
                action = msg.get("action")
                if not isinstance(action, int) or isinstance(action, bool):
                    return {"ok": False, "error": "apply: 'action' must be an integer id"}
                engine.apply(action)
                return {"ok": True}
            case "state":
                state: Json = json.loads(engine.state_json())
                return {"ok": True, "state": state}
            case "scores":
                scores = engine.scores()
                return {"ok": True, "scores": None if scores is None else list(scores)}
            case "winners":
                seats = engine.winners()
                return {"ok": True, "winners": None if seats is None else list(seats)}
            case "quit":
                return {"ok": True}
            case _:
                return {"ok": False, "error": f"unknown op {op!r}; the ops are {', '.join(OPS)}"}
    except Exception as exc:  # the engine refused (bad action, bad set-up): an answer, not a crash
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


def serve(
    engine: Engine,
    name: str,
    stdin: IO[str] = sys.stdin,
    stdout: IO[str] = sys.stdout,
) -> int:
    """Answer requests from `stdin` on `stdout` until `quit` or the end of input; 0."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            msg: object = json.loads(line)
        except ValueError as exc:
            response: dict[str, Json] = {"ok": False, "error": f"not JSON: {exc}"}
            msg = None
        else:
            response = answer(engine, msg, name)
        stdout.write(json.dumps(response, separators=(",", ":"), ensure_ascii=False) + "\n")
        stdout.flush()
        if isinstance(msg, dict) and msg.get("op") == "quit":
            break
    return 0
