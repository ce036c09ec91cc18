"""A game state drawn as SVG, the way python-chess draws a board.

`state_svg(state, last_action)` draws the whole table: the action spaces with their cubes
and the well, the market with its customer tiles, the craft buildings, the council chamber
and church stages, the black bag, the chronicle and graveyard, the travel map with markers
and travellers, the prestige track, and every farmyard with its life-time track. The region
the last action touched is outlined in gold. `travel_map_svg(data, state)` draws the travel
map alone, laid out from the networkx graph of `village_rules.engine.travel_map`.

The output is plain SVG 1.1 text built with the standard library (no dependency), and is a
pure function of its arguments: the same state gives the same bytes. Pieces carry
`class` and `data-*` attributes (`class="cube"`, `data-colour="brown"`,
`data-region="space:crafts"`) so tests and tools can read a picture back.
"""

# Drawing helpers take their geometry (x, y, w, h...) positionally, as SVG writes it.
# ruff: noqa: PLR0917

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import assert_never
from xml.sax.saxutils import escape, quoteattr

import networkx as nx

from village_rules.data.components import (
    ActionSpace,
    AtCraft,
    Building,
    ChurchReserve,
    Cube,
    Farmyard,
    InBlackBag,
    InChronicle,
    InGraveyard,
    OnChurch,
    OnCouncil,
    Removed,
    Travelling,
    Unborn,
)
from village_rules.data.edition import Cost, EditionData, RewardKind, Row
from village_rules.data.tally import Tally
from village_rules.data.text import for_xml
from village_rules.engine.guards import present
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.engine.travel_map import travel_graph
from village_rules.model.actions import (
    Action,
    Birth,
    Buy,
    BuyFromBag,
    CallHome,
    CarlaCube,
    ChurchEnter,
    ChurchStep,
    CouncilAdvance,
    CouncilPlace,
    Die,
    DrawCube,
    DrawCustomer,
    DrawMember,
    DrawMonk,
    FreeAction,
    Harvest,
    Mill,
    Pass,
    Pay,
    PickCube,
    PickGood,
    Privilege,
    Produce,
    RevealFate,
    Serve,
    Skip,
    TakeCube,
    Train,
    Travel,
    Well,
    format_action,
)
from village_rules.model.render import pending_words
from village_rules.model.state import GameState
from village_rules.pictures.text_fit import fit_text, text_width

CUBE_COLOURS: dict[Cube, str] = {
    Cube.BROWN: "#8b5a2b",
    Cube.PINK: "#e377c2",
    Cube.ORANGE: "#ff8c00",
    Cube.GREEN: "#2ca02c",
    Cube.PLAGUE: "#111111",
}
"""Fill colour of each cube colour (plague cubes are black)."""

PLAYER_FILLS: dict[str, str] = {
    "red": "#d62728",
    "yellow": "#f5d000",
    "blue": "#1f5fbf",
    "white": "#fafafa",
    "purple": "#8e44ad",
}
"""Fill colour of each player colour's pieces."""

HIGHLIGHT = "#ffb000"
"""Outline of the region the last action touched."""

WIDTH = 1280
_SPACE_TITLES: dict[ActionSpace, str] = {
    ActionSpace.GRAIN_HARVEST: "grain harvest",
    ActionSpace.FAMILY: "family",
    ActionSpace.CRAFTS: "crafts",
    ActionSpace.MARKET: "market",
    ActionSpace.TRAVEL: "travel",
    ActionSpace.COUNCIL_CHAMBER: "council chamber",
    ActionSpace.CHURCH: "church",
}


@dataclass
class _Canvas:
    """SVG elements appended in drawing order."""

    parts: list[str] = field(default_factory=list)

    def rect(
        self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "#444", **attrs: str
    ) -> None:
        self.parts.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" stroke="{stroke}"'
            f"{_attrs(attrs)}/>"
        )

    def circle(self, x: float, y: float, r: float, fill: str, stroke: str = "#222", **attrs: str) -> None:
        self.parts.append(
            f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{fill}" stroke="{stroke}"{_attrs(attrs)}/>'
        )

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#666", **attrs: str) -> None:
        self.parts.append(
            f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}"{_attrs(attrs)}/>'
        )

    def text(self, x: float, y: float, content: str, size: float = 12, **attrs: str) -> None:
        attrs.setdefault("fill", "#222")
        self.parts.append(
            f'<text x="{x:g}" y="{y:g}" font-size="{size:g}"{_attrs(attrs)}>{_xml(content)}</text>'
        )

    def label(
        self,
        x: float,
        y: float,
        content: str,
        size: float,
        box: tuple[float, float],
        *,
        max_lines: int = 1,
        line_height: float | None = None,
        bold: bool = False,
        anchor: str = "start",
        fill: str = "#222",
        attrs: dict[str, str] | None = None,
    ) -> None:
        """Text that fits between `box` (its left and right edge): shrunk, wrapped onto up to
        `max_lines` lines centred on `y`, or cut short (`text_fit.fit_text`). Each line is a
        `<text>` carrying `data-box="left right"`, so a test can measure it with a real font."""
        left, right = box
        if anchor == "middle":
            width = 2 * min(x - left, right - x)
        elif anchor == "end":
            width = x - left
        else:
            width = right - x
        fitted = fit_text(content, max(width, 0.0), size, bold=bold, max_lines=max_lines)
        step = line_height if line_height is not None else fitted.size * 1.15
        top = y - step * (len(fitted.lines) - 1) / 2
        extra = {"fill": fill, **({"font-weight": "bold"} if bold else {}), **(attrs or {})}
        if anchor != "start":
            extra["text-anchor"] = anchor
        extra["data-box"] = f"{left:g} {right:g}"
        for k, line in enumerate(fitted.lines):
            self.text(x, top + k * step, line, fitted.size, **extra)

    def panel(self, x: float, y: float, w: float, h: float, title: str, region: str, lit: bool) -> None:
        """A labelled box; outlined in gold when `lit`."""
        self.rect(
            x,
            y,
            w,
            h,
            "#fffdf5",
            HIGHLIGHT if lit else "#8a7f66",
            **{"stroke-width": "4" if lit else "1", "data-region": region, "class": "region"},
        )
        self.label(x + 6, y + 15, title, 12, (x + 2, x + w - 2), bold=True, attrs={"class": "title"})

    def cube(self, x: float, y: float, colour: Cube, where: str, size: float = 13) -> None:
        self.rect(
            x,
            y,
            size,
            size,
            CUBE_COLOURS[colour],
            "#000",
            **{"class": "cube", "data-colour": colour.value, "data-where": where},
        )

    def member(self, x: float, y: float, fill: str, number: int, seat: int, where: str) -> None:
        self.circle(x, y, 9, fill, "#000", **{"class": "member", "data-seat": str(seat), "data-where": where})
        ink = "#000" if fill in (PLAYER_FILLS["yellow"], PLAYER_FILLS["white"]) else "#fff"
        self.text(x, y + 4, str(number), 11, fill=ink, **{"text-anchor": "middle"})

    def svg(self, width: float, height: float, title: str) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:g}" height="{height:g}"'
            f' viewBox="0 0 {width:g} {height:g}" font-family="DejaVu Sans, Verdana, sans-serif">'
        )
        return "\n".join([head, f"<title>{_xml(title)}</title>", *self.parts, "</svg>"]) + "\n"


def _attrs(attrs: dict[str, str]) -> str:
    return "".join(_attr(k, v) for k, v in attrs.items())


@lru_cache(maxsize=8192)
def _attr(key: str, value: str) -> str:
    """One attribute as SVG text (the same few thousand recur in every picture: cached)."""
    return f" {key.replace('_', '-')}={quoteattr(for_xml(value))}"


def _xml(text: str) -> str:
    """Text for an SVG element: characters XML forbids made visible, then `<` and `&` escaped
    (names in a user's data file or a log may hold anything)."""
    return escape(for_xml(text))


# --- what the last action touched ---------------------------------------------------------


def touched_regions(action: Action | None) -> frozenset[str]:
    """The `data-region` names outlined for `action` (empty for none)."""
    if action is None:
        return frozenset()
    match action:
        case TakeCube(space=s) | Well(space=s) | FreeAction(space=s):
            return frozenset({f"space:{s.value}"} | ({"well"} if isinstance(action, Well) else set()))
        case Harvest() | PickCube() | PickGood():
            return frozenset({"farmyards"})
        case Birth() | CallHome():
            return frozenset({"farmyards"})
        case Train(building=b) | Produce(building=b) | Buy(building=b):
            return frozenset({f"craft:{b.value}"})
        case Mill():
            return frozenset({"craft:mill"})
        case Travel():
            return frozenset({"travel-map"})
        case CouncilPlace() | CouncilAdvance() | Privilege():
            return frozenset({"council"})
        case ChurchEnter() | DrawMonk() | DrawMember():
            return frozenset({"black-bag"})
        case BuyFromBag() | ChurchStep():
            return frozenset({"church"})
        case Serve() | Pass() | DrawCustomer():
            return frozenset({"market"})
        case Die():
            return frozenset({"chronicle"})
        case DrawCube():
            return frozenset({"green-bag"})
        case CarlaCube() | RevealFate():
            return frozenset({"farmyards"})  # solo: Carla's board is drawn with the farmyards
        case Skip() | Pay():
            return frozenset()
        case _:
            assert_never(action)


# --- the whole table ----------------------------------------------------------------------


def actor_of(before: GameState) -> int | None:
    """The seat that takes the next action of `before` (None for chance or the end)."""
    seat = before.current_player()
    return seat if seat >= 0 else None


def state_svg(state: GameState, last_action: Action | None = None, actor: int | None = None) -> str:
    """The state as an SVG document; `last_action` (the action that led here, taken by
    seat `actor` if known, see `actor_of`) is named in the caption and the region it
    touched is outlined (of the farmyards, only the actor's)."""
    d = state.rules.data
    n = state.num_players
    lit = touched_regions(last_action)
    if "farmyards" in lit and actor is not None:
        lit = (lit - {"farmyards"}) | {f"farmyard:{actor}"}
    c = _Canvas()
    fills = [PLAYER_FILLS.get(p.colour, "#999") for p in state.players]
    c.rect(0, 0, WIDTH, 10_000, "#f3ecd8", "none")  # background; cut by the viewBox

    line = (12.0, WIDTH - 12.0)
    c.label(12, 24, f"{d.name} ({d.edition}) - {n} players - round {state.round}", 18, line, bold=True)
    if state.is_terminal:
        totals = ", ".join(f"seat {b.seat} {b.total}" for b in score_breakdown(state))
        won = ", ".join(str(seat) for seat in winners(state))
        words = f"{pending_words(state.pending)}: {totals}; winner: seat {won}"
        c.label(12, 44, words, 12, line, fill="#a00000", attrs={"class": "pending"})
    else:
        c.label(12, 44, f"waiting for: {pending_words(state.pending)}", 12, line, attrs={"class": "pending"})
    if last_action is not None:
        by = f" (seat {actor})" if actor is not None else ""
        c.label(12, 62, f"last action: {format_action(last_action)}{by}", 12, line, fill="#a05a00")
    else:
        c.text(12, 62, "last action: -", 12, fill="#777")

    _action_spaces(c, state, lit, y=74)
    _market(c, state, lit, x=10, y=226)
    _crafts(c, state, fills, lit, x=600, y=226)
    _council_and_church(c, state, fills, lit, y=376)
    _chronicle(c, state, fills, lit, x=10, y=496)
    map_h = _travel_map(c, d, state, fills, "travel-map" in lit, x=640, y=496, w=630, h=300)
    y = 496 + max(map_h, 300) + 10
    y = _prestige_track(c, state, fills, y)
    y = _farmyards(c, state, fills, lit, y + 10)
    title = f"{d.edition}, {n} players, round {state.round}"
    return c.svg(WIDTH, y + 10, title)


def _cube_grid(c: _Canvas, x: float, y: float, cubes: Tally[Cube], where: str, per_row: int = 8) -> None:
    k = 0
    for colour in Cube:
        for _ in range(cubes[colour]):
            c.cube(x + (k % per_row) * 16, y + (k // per_row) * 16, colour, where)
            k += 1


def _action_spaces(c: _Canvas, state: GameState, lit: frozenset[str], y: float) -> None:
    w = 152
    for i, space in enumerate(ActionSpace):
        x = 10 + i * (w + 5)
        region = f"space:{space.value}"
        c.panel(x, y, w, 140, _SPACE_TITLES[space], region, region in lit)
        cubes = state.space(space)
        _cube_grid(c, x + 8, y + 26, cubes, region)
        c.label(x + 6, y + 132, f"{cubes.total()} cube(s)", 10, (x + 2, x + w - 2), fill="#555")
    x = 10 + 7 * (w + 5)
    bw = WIDTH - 10 - x
    c.panel(x, y, bw, 66, "well", "well", "well" in lit)
    c.label(x + 6, y + 34, f"return {state.rules.data.well_cubes} cubes", 10, (x + 2, x + bw - 2))
    c.label(x + 6, y + 50, "of one colour", 10, (x + 2, x + bw - 2))
    c.panel(x, y + 72, bw, 68, "green bag", "green-bag", "green-bag" in lit)
    bag = state.green_bag
    c.label(x + 6, y + 100, f"{bag.total()} cubes", 10, (x + 2, x + bw - 2))
    # one column per colour: the swatch above its count, centred, so counts never touch swatches
    column = (bw - 8) / len(Cube)
    for k, colour in enumerate(Cube):
        cx = x + 4 + k * column + column / 2
        c.cube(cx - 5, y + 106, colour, "green-bag", size=10)
        c.label(
            cx,
            y + 130,
            str(bag[colour]),
            9,
            (cx - column / 2 + 1, cx + column / 2 - 1),
            anchor="middle",
            attrs={"class": "bag-count"},
        )


def _market(c: _Canvas, state: GameState, lit: frozenset[str], x: float, y: float) -> None:
    d = state.rules.data
    n = state.num_players
    day = state.market_day
    title = f"market  (face-down pile: {len(state.customer_pile)})"
    c.panel(x, y, 580, 144, title, "market", "market" in lit)
    if day is not None:  # beside the title: whose market day, who serves now, who passed
        passed = ", ".join(str(seat) for seat in day.passed) or "nobody"
        now = "refilling the waiting row" if day.closed else f"seat {day.current} serves or passes"
        after_title = x + 6 + text_width(title, 12, bold=True) + 10
        c.label(
            x + 574,
            y + 15,
            f"market day of seat {day.trigger}: {now}; passed: {passed}",
            11,
            (after_title, x + 578),
            bold=True,
            fill="#a05a00",
            anchor="end",
            attrs={
                "class": "market-day",
                "data-holder": str(day.trigger),
                "data-current": str(day.current),
                "data-passed": " ".join(map(str, day.passed)),
            },
        )
    rows = {Row.AVAILABLE: state.market_available, Row.WAITING: state.market_waiting}
    for r, row in enumerate((Row.AVAILABLE, Row.WAITING)):
        spaces = sorted((s for s in d.market_spaces if s.row is row), key=lambda s: s.position)
        c.label(x + 6, y + 42 + r * 58, row.value, 10, (x + 2, x + 64), fill="#555")
        used = [s for s in spaces if s.min_players <= n]
        tiles = rows[row]
        for k, s in enumerate(spaces):
            tx = x + 66 + k * 102
            ty = y + 22 + r * 58
            if s.min_players > n:
                c.rect(tx, ty, 96, 52, "#cfcfcf", "#888", **{"class": "market-space", "data-used": "no"})
                c.label(
                    tx + 48,
                    ty + 30,
                    f"unused ({s.label})",
                    9,
                    (tx + 2, tx + 94),
                    fill="#555",
                    anchor="middle",
                )
                continue
            index = used.index(s)
            tile = tiles[index] if index < len(tiles) else None
            fill = "#dbe8ff" if row is Row.AVAILABLE else "#ecdcc4"
            c.rect(tx, ty, 96, 52, fill, "#555", **{"class": "market-space", "data-used": "yes"})
            if tile is None:
                c.text(tx + 48, ty + 30, "empty", 10, fill="#888", **{"text-anchor": "middle"})
                continue
            t = d.customer(tile)
            c.rect(tx + 3, ty + 3, 90, 46, "#fff", "#333", **{"class": "customer", "data-tile": str(tile)})
            inner = (tx + 6, tx + 90)  # inside the tile's border, with a margin
            c.label(
                tx + 7, ty + 16, f"#{tile}", 10, (inner[0], tx + 40), bold=True, attrs={"class": "tile-text"}
            )
            c.label(
                tx + 89,
                ty + 16,
                f"{t.points} pts",
                10,
                (tx + 42, inner[1]),
                anchor="end",
                attrs={"class": "tile-text"},
            )
            demand = "+".join(f"{k if k > 1 else ''}{g.value}" for g, k in t.goods.items)
            if t.grain:
                demand = "+".join([*filter(None, [demand]), f"{t.grain} grain"])
            c.label(tx + 7, ty + 35, demand, 9, inner, max_lines=2, attrs={"class": "tile-text"})


def _crafts(c: _Canvas, state: GameState, fills: list[str], lit: frozenset[str], x: float, y: float) -> None:
    d = state.rules.data
    trained: dict[Building, list[tuple[int, int]]] = defaultdict(list)
    for seat, p in enumerate(state.players):
        for i, loc in enumerate(p.members):
            if isinstance(loc, AtCraft):
                trained[loc.building].append((seat, state.number_of(i)))
    w = 130
    for k, building in enumerate(Building):
        bx = x + k * (w + 4)
        region = f"craft:{building.value}"
        c.panel(bx, y, w, 144, building.value, region, region in lit)
        craft = d.craft(building)
        inside = (bx + 2, bx + w - 2)
        c.label(bx + 6, y + 30, "/".join(g.value for g in craft.goods), 10, inside, fill="#555")
        c.label(
            bx + 6,
            y + 44,
            f"train {craft.training_time} t, make {craft.production_time} t",
            9,
            inside,
            fill="#555",
        )
        for j, (seat, number) in enumerate(trained[building]):
            c.member(bx + 16 + (j % 6) * 20, y + 64 + (j // 6) * 20, fills[seat], number, seat, region)
    c.rect(x, y + 148, 4 * (w + 4) - 4, 0.1, "none", "none")
    if "craft:mill" in lit:
        c.text(x + 6, y + 140, "mill used", 10, fill="#a05a00")


def _council_and_church(
    c: _Canvas, state: GameState, fills: list[str], lit: frozenset[str], y: float
) -> None:
    d = state.rules.data
    council: dict[int, list[tuple[int, int]]] = defaultdict(list)
    church: dict[int, list[tuple[int, int]]] = defaultdict(list)
    bag: list[tuple[int, int]] = []
    for seat, p in enumerate(state.players):
        for i, loc in enumerate(p.members):
            if isinstance(loc, OnCouncil):
                council[loc.stage].append((seat, state.number_of(i)))
            elif isinstance(loc, OnChurch):
                church[loc.stage].append((seat, state.number_of(i)))
            elif isinstance(loc, InBlackBag):
                bag.append((seat, state.number_of(i)))
    holder = state.next_start_holder
    marker = "next start marker: on the council chamber" if holder is None else f"next start: seat {holder}"
    c.panel(10, y, 500, 110, f"council chamber  ({marker})", "council", "council" in lit)
    _stages(c, council, d.council_stages, fills, 16, y + 22, "council")
    c.panel(516, y, 500, 110, "church", "church", "church" in lit)
    _stages(c, church, d.church_stages, fills, 522, y + 22, "church")
    c.panel(1022, y, 248, 110, "black bag", "black-bag", "black-bag" in lit)
    c.label(
        1028,
        y + 34,
        f"{state.bag_monks} monk(s)" + (f", {state.monks_aside} aside" if state.monks_aside else ""),
        10,
        (1024, 1268),
    )
    for j, (seat, number) in enumerate(sorted(bag)):
        c.member(1038 + (j % 11) * 20, y + 54 + (j // 11) * 20, fills[seat], number, seat, "black-bag")


def _stages(
    c: _Canvas,
    members: dict[int, list[tuple[int, int]]],
    stages: int,
    fills: list[str],
    x: float,
    y: float,
    where: str,
) -> None:
    w = (488 - 4 * (stages - 1)) / stages
    for s in range(1, stages + 1):
        sx = x + (s - 1) * (w + 4)
        c.rect(sx, y, w, 80, "#f4efe1", "#998", **{"class": "stage", "data-stage": str(s)})
        c.text(sx + 4, y + 12, f"stage {s}", 9, fill="#555")
        for j, (seat, number) in enumerate(sorted(members[s])):
            c.member(
                sx + 14 + (j % 5) * 22, y + 30 + (j // 5) * 22, fills[seat], number, seat, f"{where}:{s}"
            )


def _chronicle(
    c: _Canvas, state: GameState, fills: list[str], lit: frozenset[str], x: float, y: float
) -> None:
    d = state.rules.data
    n = state.num_players
    dead: dict[str, list[tuple[int, int]]] = defaultdict(list)
    removed = 0
    for seat, p in enumerate(state.players):
        for i, loc in enumerate(p.members):
            if isinstance(loc, InChronicle):
                dead[loc.category.value].append((seat, state.number_of(i)))
            elif isinstance(loc, InGraveyard):
                dead["graveyard"].append((seat, state.number_of(i)))
            elif isinstance(loc, Removed):
                removed += 1
    c.panel(x, y, 620, 300, "village chronicle and graveyard", "chronicle", "chronicle" in lit)
    rows: list[tuple[str, tuple[int, ...]]] = [(cat.value, labels) for cat, labels in d.chronicle_spaces]
    rows.append(("graveyard", d.graveyard))
    for r, (name, labels) in enumerate(rows):
        ry = y + 30 + r * 40
        c.label(x + 8, ry + 20, name.replace("_", " "), 11, (x + 2, x + 128))
        pieces = sorted(dead[name])
        k = 0
        for j, label in enumerate(labels):
            sx = x + 130 + j * 34
            if label > n:
                c.rect(sx, ry + 2, 30, 30, "#bbb", "#777", **{"class": "blocked"})
                c.text(sx + 15, ry + 21, f"{label}", 9, fill="#555", **{"text-anchor": "middle"})
                continue
            c.rect(
                sx, ry + 2, 30, 30, "#fff", "#777", **{"class": "grave" if name == "graveyard" else "page"}
            )
            if k < len(pieces):
                seat, number = pieces[k]
                c.member(sx + 15, ry + 17, fills[seat], number, seat, f"dead:{name}")
                k += 1
        open_ = sum(1 for m in labels if m <= n)
        c.text(x + 130 + len(labels) * 34 + 6, ry + 21, f"{len(pieces)}/{open_}", 10, fill="#555")
    if removed:
        c.text(x + 8, y + 292, f"removed from the game: {removed}", 10, fill="#a00")


# --- the travel map -----------------------------------------------------------------------


def map_layout(data: EditionData) -> dict[str, tuple[float, float]]:
    """Node positions in the unit square: columns by path distance from the village (BFS on
    the networkx graph), nodes of a column spread evenly in id order. Deterministic."""
    graph = travel_graph(data)
    distance: dict[str, int] = dict(nx.single_source_shortest_path_length(graph, data.village))
    far = max(distance.values(), default=0) + 1
    for node in sorted(graph.nodes):
        distance.setdefault(node, far)  # a city no path reaches: a last column
    columns: dict[int, list[str]] = defaultdict(list)
    for node in sorted(distance, key=lambda v: (distance[v], v)):
        columns[distance[node]].append(node)
    width = max(columns) or 1
    pos: dict[str, tuple[float, float]] = {}
    for col, nodes in columns.items():
        for k, node in enumerate(nodes):
            pos[node] = (col / width, (k + 1) / (len(nodes) + 1))
    return pos


def _reward_text(kind: RewardKind, amount: int) -> str:
    return {
        RewardKind.PRESTIGE: f"{amount} prestige",
        RewardKind.CUBES_OF_CHOICE: f"{amount} cubes",
        RewardKind.COINS: f"{amount} coin{'s' if amount != 1 else ''}",
    }[kind]


def _travel_map(
    c: _Canvas,
    data: EditionData,
    state: GameState | None,
    fills: list[str],
    lit: bool,
    x: float,
    y: float,
    w: float,
    h: float,
) -> float:
    c.panel(x, y, w, h, "travel map", "travel-map", lit)
    graph = travel_graph(data)
    pos = map_layout(data)
    left, top, iw, ih = x + 40, y + 30, w - 80, h - 60

    def at(node: str) -> tuple[float, float]:
        px, py = pos[node]
        return left + px * iw, top + py * ih

    base = _common_path_base(data)
    for a, b in sorted(graph.edges, key=lambda e: tuple(sorted(e))):
        (x1, y1), (x2, y2) = at(a), at(b)
        c.line(x1, y1, x2, y2, "#7a6a4f", **{"stroke-width": "3", "class": "path", "data-path": f"{a}-{b}"})
        cost = graph.edges[a, b]["cost"]
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        cubes = [colour for colour, k in cost.cubes.items for _ in range(k)]
        ox = mx - len(cubes) * 5
        c.rect(ox - 2, my - 7, len(cubes) * 10 + 2, 12, "#fffdf5", "none")
        for k, colour in enumerate(cubes):
            c.rect(ox + k * 10, my - 5, 8, 8, CUBE_COLOURS[colour], "#000", **{"class": "path-cost"})
        rest = _cost_without_cubes(cost)
        if rest != base:
            c.label(mx, my + 16, rest, 8, (mx - 40, mx + 40), anchor="middle")
    c.label(
        x + 8,
        y + h - 8,
        f"every path also costs {base}; markers: small discs",
        9,
        (x + 2, x + w - 2),
        fill="#555",
    )
    travellers: dict[str, list[tuple[int, int]]] = defaultdict(list)
    markers: dict[str, list[int]] = defaultdict(list)
    if state is not None:
        for seat, p in enumerate(state.players):
            for i, loc in enumerate(p.members):
                if isinstance(loc, Travelling):
                    travellers[loc.city].append((seat, state.number_of(i)))
            for city_id in p.markers:
                markers[city_id].append(seat)
    for node in sorted(graph.nodes):
        nx_, ny = at(node)
        if node == data.village:
            c.rect(nx_ - 24, ny - 16, 48, 32, "#e8d9b0", "#553", **{"class": "village"})
            c.label(nx_, ny + 4, "village", 10, (nx_ - 22, nx_ + 22), anchor="middle")
            continue
        city = data.city(node)
        c.circle(nx_, ny, CITY_RADIUS, "#f7f1dc", "#553", **{"class": "city", "data-city": node})
        # the name on the chord 4 px above the centre, the reward on the chord 8 px below it
        c.label(
            nx_,
            ny - 1,
            city.name,
            9,
            _chord(nx_, 6),
            bold=True,
            anchor="middle",
            attrs={"class": "city-name", "data-city": node},
        )
        c.label(
            nx_,
            ny + 11,
            _reward_text(city.reward, city.amount),
            8,
            _chord(nx_, 11),
            anchor="middle",
            attrs={"class": "city-reward", "data-city": node},
        )
        for k, seat in enumerate(markers[node]):
            c.circle(
                nx_ - 14 + k * 8,
                ny - CITY_RADIUS - 7,
                4,
                fills[seat],
                "#000",
                **{"class": "marker", "data-seat": str(seat)},
            )
        # travellers to the right of the circle, two rows of three; more as a count
        crowd = sorted(travellers[node])
        for k, (seat, number) in enumerate(crowd[:TRAVELLERS_DRAWN]):
            c.member(
                nx_ + CITY_RADIUS + 12 + (k % 3) * 19,
                ny - 10 + (k // 3) * 20,
                fills[seat],
                number,
                seat,
                f"travel:{node}",
            )
        if len(crowd) > TRAVELLERS_DRAWN:
            c.label(
                nx_ + CITY_RADIUS + 3,
                ny + 32,
                f"+{len(crowd) - TRAVELLERS_DRAWN} more",
                8,
                (nx_ + CITY_RADIUS + 1, nx_ + CITY_RADIUS + 70),
                attrs={"class": "travellers-more"},
            )
    return h


CITY_RADIUS = 30
"""Radius of a city's circle on the travel map."""

TRAVELLERS_DRAWN = 6
"""Travellers drawn beside a city (two rows of three); more are shown as "+k more"."""


def _chord(centre: float, offset: float) -> tuple[float, float]:
    """The part of a horizontal line `offset` px from a city's centre inside its circle,
    2 px in from the outline on each side: the box of a label on that line."""
    half = (CITY_RADIUS**2 - offset**2) ** 0.5 - 2
    return centre - half, centre + half


def _cost_without_cubes(cost: Cost) -> str:
    return str(Cost(time=cost.time, grain=cost.grain, coins=cost.coins, goods=cost.goods))


def _common_path_base(data: EditionData) -> str:
    texts = sorted({_cost_without_cubes(p.cost) for p in data.paths})
    return texts[0] if len(texts) == 1 else "what is printed"


def travel_map_svg(data: EditionData, state: GameState | None = None) -> str:
    """The travel map alone: cities with their rewards, paths with their cube costs, and,
    given a state, the players' markers and travellers."""
    c = _Canvas()
    fills = [PLAYER_FILLS.get(p.colour, "#999") for p in state.players] if state is not None else []
    c.rect(0, 0, 660, 340, "#f3ecd8", "none")
    _travel_map(c, data, state, fills, False, 10, 10, 640, 320)
    return c.svg(660, 340, f"travel map of {data.edition}")


# --- tracks and farmyards -----------------------------------------------------------------


def _prestige_track(c: _Canvas, state: GameState, fills: list[str], y: float) -> float:
    """The prestige track; at the end of the game it shows the final scores (final scoring
    moves the markers on, 2023 p. 14), the same figures as the header."""
    if state.is_terminal:
        points = [b.total for b in score_breakdown(state)]
        title = "prestige track: final scores"
    else:
        points = [p.prestige for p in state.players]
        title = "prestige track"
    top = max([100, *points])
    top = (top + 9) // 10 * 10
    c.panel(10, y, WIDTH - 20, 70, title, "prestige", False)
    left, right = 40, WIDTH - 40
    c.line(left, y + 40, right, y + 40, "#553", **{"stroke-width": "2"})
    for v in range(0, top + 1, 10):
        tx = left + (right - left) * v / top
        c.line(tx, y + 34, tx, y + 46, "#553")
        c.text(tx, y + 62, str(v), 9, **{"text-anchor": "middle"})
    for seat, value in enumerate(points):
        tx = left + (right - left) * value / top
        c.circle(
            tx,
            y + 28 + 6 * seat,
            6,
            fills[seat],
            "#000",
            **{"class": "prestige", "data-seat": str(seat), "data-points": str(value)},
        )
    return y + 70


def _farmyards(c: _Canvas, state: GameState, fills: list[str], lit: frozenset[str], y: float) -> float:
    d = state.rules.data
    n = state.num_players
    w = (WIDTH - 20 - 6 * (n - 1)) / n
    h = 236.0
    current = state.current_player()
    for seat, p in enumerate(state.players):
        x = 10 + seat * (w + 6)
        name = f"Carla (seat {seat}, {p.colour})" if state.is_carla(seat) else f"seat {seat} ({p.colour})"
        title = name + ("  << to act" if seat == current else "")
        region = f"farmyard:{seat}"
        c.panel(x, y, w, h, title, region, "farmyards" in lit or region in lit)
        c.circle(x + w - 14, y + 12, 7, fills[seat], "#000")
        inside = (x + 2, x + w - 2)
        c.label(x + 6, y + 32, f"prestige {p.prestige}   coins {p.coins}   grain {p.grain}", 11, inside)
        _cube_grid(c, x + 6, y + 40, p.cubes, f"farmyard:{seat}", per_row=int((w - 12) // 16))
        goods = ", ".join(f"{k} {g.value}" for g, k in p.goods.items) or "no goods"
        c.label(x + 6, y + 88, goods, 10, inside)
        c.label(
            x + 6, y + 104, f"customers served: {len(p.customers)}; markers: {len(p.markers)}", 10, inside
        )
        home = [state.number_of(i) for i, loc in enumerate(p.members) if isinstance(loc, Farmyard)]
        unborn = sum(1 for loc in p.members if isinstance(loc, Unborn))
        if state.is_carla(seat):  # solo: beside her board; her "3"s and "4"s on the church
            reserve = sum(1 for loc in p.members if isinstance(loc, ChurchReserve))
            carla = present(state.carla, "svg", "Carla's board")
            fate = " ".join("?" if t is None else t.value for t in carla.fate)
            label = f"beside her board ({reserve} on the church); fate: {fate}"
            c.label(x + 6, y + 122, label, 10, inside, fill="#555")
        else:
            c.label(x + 6, y + 122, f"on the farmyard ({unborn} unborn):", 10, inside, fill="#555")
        for j, number in enumerate(sorted(home)):
            c.member(
                x + 16 + (j % 11) * 20,
                y + 138 + (j // 11) * 20,
                fills[seat],
                number,
                seat,
                f"farmyard:{seat}",
            )
        c.label(
            x + 6,
            y + 186,
            f"life-time track ({p.lifetime}/{d.lifetime_track_length})",
            10,
            inside,
            fill="#555",
        )
        cell = min(16.0, (w - 12) / d.lifetime_track_length)
        for k in range(d.lifetime_track_length):
            cx = x + 6 + k * cell
            on = k == p.lifetime
            c.rect(
                cx,
                y + 194,
                cell - 1,
                16,
                fills[seat] if on else "#fff",
                "#555",
                **({"class": "lifetime-token", "data-seat": str(seat)} if on else {"class": "lifetime"}),
            )
        c.label(x + 6, y + 226, f"plague: every {d.plague_time} time", 9, inside, fill="#777")
    return y + h


__all__ = [
    "CUBE_COLOURS",
    "PLAYER_FILLS",
    "actor_of",
    "map_layout",
    "state_svg",
    "touched_regions",
    "travel_map_svg",
]
