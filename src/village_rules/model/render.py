"""A plain-text picture of a game state, for the command line and for logs."""

from __future__ import annotations

from village_rules.data.components import ActionSpace, Category, format_location
from village_rules.model.actions import format_action
from village_rules.model.state import GameState


def render(state: GameState) -> str:
    """The state as text: the board, the supply and each farmyard."""
    d = state.rules.data
    n = state.num_players
    who = "1 player against Carla (solo; Carla is seat 1)" if state.is_solo else f"{n} players"
    lines = [
        f"{d.name} ({d.edition}), {who}, round {state.round}",
        f"start player: seat {state.start_player}; next starting player marker: "
        + (
            "on the council chamber" if state.next_start_holder is None else f"seat {state.next_start_holder}"
        ),
        f"waiting for: {pending_text(state)}",
        "",
        f"green bag: {state.green_bag}",
        "action spaces:",
    ]
    for space in ActionSpace:
        lines.append(f"  {space.value:16} {state.space(space)}")
    lines += [
        "market:",
        f"  available: {_row(state.market_available)}",
        f"  waiting:   {_row(state.market_waiting)}",
        f"  face-down pile: {len(state.customer_pile)} tiles",
        f"black bag: {state.bag_monks} monks, {len(state.bag_members())} family members",
        "chronicle: "
        + ", ".join(f"{c.value} {state.chronicle_count(c)}/{d.chronicle_open(c, n)}" for c in Category)
        + f"; graveyard {state.graveyard_count()}/{d.graveyard_open(n)}",
        f"supply: {state.supply.cubes}; {state.supply.coins} coins; {state.supply.grain} grain; "
        f"goods {state.supply.goods}",
        "",
    ]
    for seat, p in enumerate(state.players):
        members = ", ".join(f"{state.number_of(i)}@{format_location(loc)}" for i, loc in enumerate(p.members))
        lines += [
            f"seat {seat} ({p.colour}): prestige {p.prestige}, coins {p.coins}, grain {p.grain}, "
            f"life-time {p.lifetime}/{d.lifetime_track_length}",
            f"  cubes: {p.cubes}; goods: {p.goods}; customers: {list(p.customers)}; "
            f"markers: {list(p.markers)}",
            f"  members: {members}",
        ]
    carla = state.carla
    if carla is not None:
        fate = " ".join("?" if t is None else t.value for t in carla.fate)
        last = "-" if carla.last_cube is None else carla.last_cube.value
        lines.append(f"Carla's board: last cube {last} on space {carla.space}; fate tiles: {fate}")
    return "\n".join(lines)


def _row(row: tuple[int | None, ...]) -> str:
    return " ".join("--" if t is None else f"{t:>2}" for t in row)


def pending_text(state: GameState) -> str:
    """The pending step in one line, e.g. `ChooseTurn(seat=0)`."""
    p = state.pending
    parts = []
    for name in getattr(p, "__slots__", ()):
        value = getattr(p, name)
        parts.append(f"{name}={value if isinstance(value, int | str) else format_action(value)}")
    return f"{type(p).__name__}({', '.join(parts)})"
