"""The `replay` command: replay a game log and print where it ends, the final scores or the
state it stops in; a witness says which query it shows instead of "INCOMPLETE".

Two kinds of witness are told by their file names: the proof catalogue's
(`{number}-{name}-{edition}-{players}p.json`, `village-rules prove --out`) and the
exhaustive explorer's (`{configuration}-{players}p-{query}.json`, `village-rules explore
--witnesses`). A proof witness is checked as `prove --check` checks it (its query holds
at its last step and not before); an explorer witness along its whole path (the query's
concrete predicate after every action). Either kind whose query does not hold at its last
step is an error (`WitnessError`, exit 2), since its name claims what its game does not
show.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_text_file
from village_rules.drivers.play import GameLog, replay_log
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.errors import LogFormatError, SetupError, VillageError
from village_rules.explore.configs import configuration, shipped_names
from village_rules.explore.witnesses import WitnessName, holds_after, parse_witness_name
from village_rules.model.render import render
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import Query
from village_rules.proofs.catalogue.query import CATALOGUE_SOURCE
from village_rules.proofs.catalogue.user_queries import load_queries, shown_query
from village_rules.proofs.errors import WitnessError
from village_rules.proofs.table.stored import check_witness


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `replay` subcommand to the command line's subparsers."""
    p = sub.add_parser("replay", help="replay a logged game and print the final scores")
    p.add_argument(
        "log", type=Path, help="a game log written by `play --log`, the fuzzer, `prove` or `explore`"
    )
    p.add_argument(
        "--complete", action="store_true", help="fail (exit 2) if the log stops before the end of the game"
    )
    add_queries_option(p)
    p.set_defaults(func=replay_command)


def add_queries_option(p: argparse.ArgumentParser) -> None:
    """`--queries FILE`: the user's module of queries a witness may show (`prove --queries`)."""
    p.add_argument(
        "--queries",
        dest="query_file",
        type=Path,
        metavar="FILE",
        help="the Python module of your own queries the witness was proved with (prove --queries FILE)",
    )


def replay_command(args: argparse.Namespace) -> int:
    """`village-rules replay LOG`: replay it and say what it shows."""
    path = Path(args.log)
    user = None if args.query_file is None else load_queries(args.query_file)  # before any work
    try:
        text = read_text_file(path, MAX_LOG_CHARS, "game log")
    except JsonInputError as exc:
        raise LogFormatError(f"{path}: {exc.problem}") from None
    try:
        log = GameLog.from_json(text)
    except LogFormatError as exc:
        raise LogFormatError(f"{path}: {exc}") from None
    try:
        result = replay_log(log, complete=args.complete)
    except SetupError as exc:
        raise LogFormatError(f"{path}: the game the log sets up cannot be made: {exc}") from None
    except VillageError as exc:  # an action that does not parse or apply, an incomplete game
        raise LogFormatError(f"{path}: {exc}") from None
    query = shown_query(path, log.query, user)
    explored = parse_witness_name(path.name) if query is None else None
    # an explorer witness is checked first (an error prints nothing else); a game it ends
    # is still described as complete, with its scores
    witnessed = explorer_witnessed(path, log, explored) if explored is not None else None
    if query is not None:
        witnessed = _proof_witnessed(path, query)
    print(f"replayed {len(log.actions)} actions of {log.edition}, {log.players} players, seed {log.seed}")
    if witnessed is not None:
        print(witnessed)
    if result.complete:
        print(result.describe())
        print(scores_table(result.state))
    else:
        if witnessed is None:
            print(result.describe())
        print(render(result.state))
    return 0


def _proof_witnessed(path: Path, query: Query) -> str:
    """What a proof witness shows: its query, which holds at its last step and not before.
    Raises `WitnessError` naming the file and what fails otherwise."""
    checked = check_witness(path, query)
    if not checked.passed:
        raise WitnessError(
            f"{path}: named as a witness of query {query.number} ({query.name}), but {checked.detail}"
        )
    where = "" if query.source == CATALOGUE_SOURCE else f" (from {query.source})"
    return (
        f"this is a witness of query {query.number} ({query.name}){where}: {query.title}\n"
        f"the query holds at its last step, where the witness stops on purpose ({checked.detail})"
    )


def explorer_witnessed(path: Path, log: GameLog, named: WitnessName) -> str:
    """What an explorer witness shows: its query, its configuration, and that the query's
    predicate holds after its last action (checked along the replayed path). Raises
    `WitnessError` naming the file when the log is not what its name says: another
    player count, other data than the shipped configuration it names, or a game after
    whose last action the query does not hold."""
    q = named.query
    if log.players != named.players:
        raise WitnessError(
            f"{path}: named as an explorer witness for {named.players} players, "
            f"but the log seats {log.players}"
        )
    if named.configuration in shipped_names():
        shipped = configuration(named.configuration).data.fingerprint
        if log.data_fingerprint != shipped:
            raise WitnessError(
                f"{path}: named as an explorer witness on the shipped configuration {named.configuration}, "
                f"but the log is played on other data ({log.data_file or f'the shipped {log.edition}'})"
            )
    held = holds_after(log.initial_state(), log.actions, q)
    total = len(log.actions)
    if total not in held:
        when = f"it holds after action(s) {', '.join(map(str, held))} only" if held else "it holds after none"
        raise WitnessError(
            f"{path}: named as an explorer witness of query {q.number} ({q.name}), but the query does not "
            f"hold after its last action ({total}): {when}"
        )
    readings = ", ".join(f"{amb}={letter}" for amb, letter in log.variant.choices) or "the edition's defaults"
    earlier = [k for k in held if k < total]
    first = (
        "and after no earlier action (the shortest witness the explorer found)"
        if not earlier
        else f"and already after action(s) {', '.join(map(str, earlier))}"
    )
    return (
        f"this is an explorer witness of query {q.number} ({q.name}): {q.title}\n"
        f"configuration {named.configuration} ({log.data_file or log.edition}), {log.players} players, "
        f"readings: {readings}\n"
        f"the query's predicate holds after its last action ({total} of {total}), where the witness "
        f"stops on purpose, {first}"
    )


def scores_table(state: GameState) -> str:
    """The final scores, seat by seat and category by category, and the winner."""
    columns = ("seat", "play", "travel", "council", "church", "chron.", "cust.", "coins", "total")
    widths = (4, 5, 6, 7, 6, 6, 5, 5, 6)
    rows = [" ".join(f"{c:>{w}}" for c, w in zip(columns, widths, strict=True))]
    for b in score_breakdown(state):
        rows.append(
            f"{b.seat:>4} {b.during_play:>5} {b.travel:>6} {b.council_chamber:>7} {b.church:>6} "
            f"{b.chronicle:>6} {b.customers:>5} {b.coins:>5} {b.total:>6}"
        )
    if state.is_solo:  # SOLO-30: a solo game's result is the player's rank (Carla scores 0)
        rows.append(f"solo rank: {score_breakdown(state)[0].rank} (seat 1 is Carla)")
        return "\n".join(rows)
    won = ", ".join(f"seat {s}" for s in winners(state))
    rows.append(f"winner: {won}")
    return "\n".join(rows)
