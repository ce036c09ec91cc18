"""Load and validate an edition data file (format: docs/data-format.md).

Every problem raises `DataError(file, key, problem)`; a file either loads completely and
consistently or not at all. The shipped editions are read with `importlib.resources`, so a
plain (non-editable) install works.
"""

from __future__ import annotations

import copyreg
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import cast

import networkx as nx

from village_rules.data.components import (
    INFLUENCE,
    ActionSpace,
    Building,
    Category,
    Compensation,
    Cube,
    Good,
    TieBreaker,
)
from village_rules.data.edition import (
    City,
    Cost,
    CraftBuilding,
    CustomerTile,
    EditionData,
    MarketSpace,
    RewardKind,
    Row,
    SetupCard,
    TravelPath,
    loaded_edition,
)
from village_rules.data.jsonio import MAX_DATA_CHARS, JsonInputError, is_version, read_json, read_text_file
from village_rules.data.reader import Json, Reader
from village_rules.data.reader import join_key as _join
from village_rules.data.solo_data import parse_solo
from village_rules.errors import DataError

FORMAT = "village-rules-edition"
FORMAT_VERSION = 1
EDITIONS: tuple[str, ...] = ("big-box-2023", "original-2011")
"""The editions whose component data ships with the library (`builtin_edition`)."""
_IDENT = re.compile(r"[A-Za-z0-9_-]+")
COUNCIL_STAGES = 4
CUSTOMER_TILES = 24
"""Both editions have 24 customer tiles (2023 p. 2; 2011 "Game Components")."""



def builtin_edition(edition: str) -> EditionData:
    """The component data shipped for `edition` ("big-box-2023" or "original-2011").

    Parsed and validated once per process: the data is immutable, so the cache only saves
    time and cannot change a result."""
    if edition not in EDITIONS:
        raise DataError(
            "<shipped editions>", "edition", f"unknown edition {edition!r}; known: {', '.join(EDITIONS)}"
        )
    return _builtin_edition(edition)


@cache
def _builtin_edition(edition: str) -> EditionData:
    text = resources.files("village_rules").joinpath(f"data/{edition}.json").read_text("utf-8")
    return parse_edition(text, f"village_rules/data/{edition}.json")


def load_edition(path: str | Path) -> EditionData:
    """Load a user's data file (e.g. transcribed from their own board)."""
    p = Path(path)
    try:
        text = read_text_file(p, MAX_DATA_CHARS, "data")
    except OSError as exc:
        raise DataError(str(p), "", f"cannot read the file: {exc.strerror or exc}") from None
    except JsonInputError as exc:
        raise DataError(str(p), "", exc.problem) from None
    except ValueError as exc:  # a NUL byte in the path
        raise DataError(str(p), "", f"not a usable file path: {exc}") from None
    return parse_edition(text, str(p))


def parse_edition(text: str, source: str) -> EditionData:
    """Parse and validate the JSON text of an edition data file."""
    try:
        raw = cast(Json, read_json(text, MAX_DATA_CHARS, "data file"))
    except JsonInputError as exc:
        raise DataError(source, "", exc.problem) from None
    reader = _Reader(source)
    data = reader.edition(raw)
    _check_constraints(data, source)
    return data


def canonical_json(raw: Json) -> str:
    """The canonical JSON text of parsed data (sorted keys, no spaces), for fingerprints."""
    return json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


@dataclass
class _Reader(Reader):
    """The edition file's own parts: costs, the whole file, crafts, market, map and customers."""

    def cost(self, raw: Json, key: str) -> Cost:
        node = self.obj(raw, key)
        self.exact_keys(node, key, set(), {"time", "grain", "coins", "cubes", "goods"})
        cubes = self.counts(Cube, node.get("cubes", {}), _join(key, "cubes"))
        if cubes[Cube.PLAGUE]:
            raise self.fail(_join(key, "cubes.plague"), "a cost cannot ask for plague cubes")
        return Cost(
            time=self.int_(node.get("time", 0), _join(key, "time"), 0, 20),
            grain=self.int_(node.get("grain", 0), _join(key, "grain"), 0, 20),
            coins=self.int_(node.get("coins", 0), _join(key, "coins"), 0, 20),
            cubes=cubes,
            goods=self.counts(Good, node.get("goods", {}), _join(key, "goods")),
        )

    def costs(self, raw: Json, key: str) -> tuple[Cost, ...]:
        return self.list_(raw, key, self.cost, min_len=1)


    def edition(self, raw: Json) -> EditionData:
        top = self.obj(raw, "")
        required = {
            "format",
            "format_version",
            "edition",
            "name",
            "players",
            "family_numbers",
            "first_generation_number",
            "starting_coins",
            "travel_markers",
            "supply",
            "farmyard_grain_capacity",
            "lifetime_track_length",
            "plague_time",
            "well_cubes",
            "setup_cards",
            "harvest",
            "crafts",
            "mill",
            "council_chamber",
            "church",
            "market",
            "travel",
            "chronicle",
            "graveyard",
            "customers",
            "scoring",
            "tie_breakers",
            "starting_compensation",
        }
        self.exact_keys(top, "", required, {"solo", "reduced"})
        if top["format"] != FORMAT:
            raise self.fail("format", f"expected {FORMAT!r}")
        version = top["format_version"]
        if not is_version(version, FORMAT_VERSION):
            raise self.fail(
                "format_version",
                f"unsupported version {top['format_version']!r}; this library reads {FORMAT_VERSION}",
            )
        edition_id = self.str_(top["edition"], "edition")
        name = self.str_(top["name"], "name")
        reduced = self.str_(top["reduced"], "reduced") if "reduced" in top else None

        players = self.obj(self.sourced(top["players"], "players"), "players")
        self.exact_keys(players, "players", {"min", "max"})
        min_p = self.int_(players["min"], "players.min", 2, 5)
        max_p = self.int_(players["max"], "players.max", min_p, 5)

        family = self.ints(
            self.sourced(top["family_numbers"], "family_numbers"), "family_numbers", lo=1, hi=9
        )
        if not family:
            raise self.fail("family_numbers", "a family needs at least one member")
        if list(family) != sorted(family):
            raise self.fail("family_numbers", "numbers must be listed in ascending order")
        first = self.int_(
            self.sourced(top["first_generation_number"], "first_generation_number"),
            "first_generation_number",
            1,
            9,
        )
        if first not in family:
            raise self.fail("first_generation_number", f"no member has the number {first}")

        supply = self.obj(top["supply"], "supply")
        self.exact_keys(
            supply,
            "supply",
            {"coins", "grain", "goods_each", "influence_cubes_each", "plague_cubes", "monks"},
        )

        setup_raw = self.obj(top["setup_cards"], "setup_cards")
        cards: list[tuple[int, SetupCard]] = []
        for n in range(min_p, max_p + 1):
            key = f"setup_cards.{n}"
            card = self.obj(self.sourced(self.member(setup_raw, str(n), "setup_cards"), key), key)
            self.exact_keys(card, key, {"cubes_added", "cubes_per_space"})
            added = self.counts(Cube, card["cubes_added"], f"{key}.cubes_added")
            if added[Cube.PLAGUE]:
                raise self.fail(
                    f"{key}.cubes_added.plague", "plague cubes are always all added; do not list them"
                )
            per_space = self.counts(ActionSpace, card["cubes_per_space"], f"{key}.cubes_per_space")
            missing = [s.value for s in ActionSpace if per_space[s] == 0]
            if per_space.total() == 0:
                raise self.fail(f"{key}.cubes_per_space", "a round needs at least one cube")
            if missing and reduced is None:  # a reduced configuration may leave spaces empty
                raise self.fail(
                    f"{key}.cubes_per_space.{missing[0]}", "every action space needs at least one cube"
                )
            cards.append((n, SetupCard(added, tuple((s, per_space[s]) for s in ActionSpace))))
        extra_cards = sorted(set(setup_raw) - {str(n) for n in range(min_p, max_p + 1)})
        if extra_cards:
            raise self.fail(f"setup_cards.{extra_cards[0]}", f"no such player count ({min_p}..{max_p})")

        harvest = self.obj(top["harvest"], "harvest")
        self.exact_keys(harvest, "harvest", {"base", "horse_plow", "ox_plow"})

        crafts_raw = self.obj(top["crafts"], "crafts")
        self.exact_keys(crafts_raw, "crafts", {b.value for b in Building})
        crafts = tuple(self.craft(b, crafts_raw[b.value]) for b in Building)

        mill = self.obj(top["mill"], "mill")
        self.exact_keys(mill, "mill", {"cost", "coins"})

        council = self.obj(top["council_chamber"], "council_chamber")
        self.exact_keys(
            council,
            "council_chamber",
            {
                "stages",
                "place",
                "advance",
                "advance_time",
                "privilege_cubes",
                "privilege_goods",
                "privilege_coin_price",
                "privilege_prestige",
            },
        )
        council_stages = self.sourced_int(council, "stages", "council_chamber", 2, 9)
        if council_stages != COUNCIL_STAGES:
            raise self.fail(
                "council_chamber.stages",
                f"the privileges are those of {COUNCIL_STAGES} stages (2023 p. 9); "
                f"{council_stages} is not supported",
            )

        church = self.obj(top["church"], "church")
        self.exact_keys(
            church,
            "church",
            {"stages", "enter", "step_grain", "mass_pieces", "mass_coin_price", "majority_prestige"},
        )
        church_stages = self.sourced_int(church, "stages", "church", 2, 9)

        market = self.obj(top["market"], "market")
        self.exact_keys(market, "market", {"spaces", "later_sale"})
        spaces = self.list_(market["spaces"], "market.spaces", self.market_space, min_len=1)

        travel = self.obj(top["travel"], "travel")
        self.exact_keys(travel, "travel", {"village", "cities", "paths"})
        village = self.ident(travel["village"], "travel.village")
        cities = self.list_(travel["cities"], "travel.cities", self.city, min_len=1)
        paths = self.list_(travel["paths"], "travel.paths", self.path, min_len=1)

        chronicle = self.obj(top["chronicle"], "chronicle")
        self.exact_keys(chronicle, "chronicle", {"spaces", "marriage_spaces"})
        chron_spaces_raw = self.obj(chronicle["spaces"], "chronicle.spaces")
        self.exact_keys(chron_spaces_raw, "chronicle.spaces", {c.value for c in Category})
        chron_spaces = tuple(
            (
                c,
                self.ints(
                    self.sourced(chron_spaces_raw[c.value], f"chronicle.spaces.{c.value}"),
                    f"chronicle.spaces.{c.value}",
                    lo=2,
                    hi=5,
                ),
            )
            for c in Category
        )
        graves = self.ints(self.sourced(top["graveyard"], "graveyard"), "graveyard", lo=2, hi=5)

        customers = self.list_(top["customers"], "customers", self.customer, min_len=1)

        scoring = self.obj(top["scoring"], "scoring")
        self.exact_keys(scoring, "scoring", {"travel", "church", "council_chamber", "chronicle", "coin"})
        markers = self.int_(self.sourced(top["travel_markers"], "travel_markers"), "travel_markers", 1, 20)

        ties = self.list_(
            self.sourced(top["tie_breakers"], "tie_breakers"),
            "tie_breakers",
            lambda x, k: self.enum(TieBreaker, x, k),
        )
        comp = self.list_(
            self.sourced(top["starting_compensation"], "starting_compensation"),
            "starting_compensation",
            lambda x, k: self.enum(Compensation, x, k),
        )
        if comp.count(Compensation.CHOSEN_CUBE) > 1:
            raise self.fail("starting_compensation", "at most one seat may choose a cube")
        if len(comp) not in (0, max_p):
            raise self.fail(
                "starting_compensation", f"expected no entries or one per seat up to {max_p}, got {len(comp)}"
            )

        data = EditionData(
            edition=edition_id,
            name=name,
            source=self.file,
            fingerprint=hashlib.sha256(canonical_json(raw).encode()).hexdigest(),
            canonical_json=canonical_json(raw),
            min_players=min_p,
            max_players=max_p,
            family_numbers=family,
            first_generation_number=first,
            starting_coins=self.sourced_int(top, "starting_coins", "", 0, 10),
            travel_markers=markers,
            supply_coins=self.sourced_int(supply, "coins", "supply", 1, 500),
            supply_grain=self.sourced_int(supply, "grain", "supply", 1, 500),
            goods_each=self.sourced_int(supply, "goods_each", "supply", 1, 500),
            influence_cubes_each=self.sourced_int(supply, "influence_cubes_each", "supply", 1, 500),
            plague_cubes=self.sourced_int(supply, "plague_cubes", "supply", 0, 100),
            monks=self.sourced_int(supply, "monks", "supply", 0, 20),
            grain_capacity=self.sourced_int(top, "farmyard_grain_capacity", "", 1, 50),
            lifetime_track_length=self.sourced_int(top, "lifetime_track_length", "", 2, 100),
            plague_time=self.sourced_int(top, "plague_time", "", 0, 20),
            well_cubes=self.sourced_int(top, "well_cubes", "", 1, 20),
            setup_cards=tuple(cards),
            harvest_base=self.sourced_int(harvest, "base", "harvest", 0, 20),
            harvest_horse_plow=self.sourced_int(harvest, "horse_plow", "harvest", 0, 20),
            harvest_ox_plow=self.sourced_int(harvest, "ox_plow", "harvest", 0, 20),
            crafts=crafts,
            mill_cost=self.cost(self.sourced(mill["cost"], "mill.cost"), "mill.cost"),
            mill_coins=self.sourced_int(mill, "coins", "mill", 0, 20),
            council_stages=council_stages,
            council_place=self.costs(
                self.sourced(council["place"], "council_chamber.place"), "council_chamber.place"
            ),
            council_advance=self.costs(
                self.sourced(council["advance"], "council_chamber.advance"), "council_chamber.advance"
            ),
            council_advance_time=self.ints(
                self.sourced(council["advance_time"], "council_chamber.advance_time"),
                "council_chamber.advance_time",
                council_stages - 1,
                0,
                20,
            ),
            privilege_cubes=self.sourced_int(council, "privilege_cubes", "council_chamber", 0, 20),
            privilege_goods=self.sourced_int(council, "privilege_goods", "council_chamber", 0, 20),
            privilege_coin_price=self.sourced_int(council, "privilege_coin_price", "council_chamber", 0, 20),
            privilege_prestige=self.sourced_int(council, "privilege_prestige", "council_chamber", 0, 50),
            church_stages=church_stages,
            church_enter=self.costs(self.sourced(church["enter"], "church.enter"), "church.enter"),
            church_step_grain=self.ints(
                self.sourced(church["step_grain"], "church.step_grain"),
                "church.step_grain",
                church_stages - 1,
                0,
                20,
            ),
            mass_pieces=self.sourced_int(church, "mass_pieces", "church", 1, 20),
            mass_coin_price=self.sourced_int(church, "mass_coin_price", "church", 0, 20),
            majority_prestige=self.sourced_int(church, "majority_prestige", "church", 0, 50),
            market_spaces=spaces,
            later_sale=self.cost(
                self.sourced(market["later_sale"], "market.later_sale"), "market.later_sale"
            ),
            village=village,
            cities=cities,
            paths=paths,
            chronicle_spaces=chron_spaces,
            marriage_spaces=self.sourced_int(chronicle, "marriage_spaces", "chronicle", 0, 20),
            graveyard=graves,
            customers=customers,
            score_travel=self.ints(
                self.sourced(scoring["travel"], "scoring.travel"), "scoring.travel", markers + 1, 0, 500
            ),
            score_church=self.ints(
                self.sourced(scoring["church"], "scoring.church"), "scoring.church", church_stages, 0, 500
            ),
            score_council=self.ints(
                self.sourced(scoring["council_chamber"], "scoring.council_chamber"),
                "scoring.council_chamber",
                council_stages,
                0,
                500,
            ),
            score_chronicle=self.ints(
                self.sourced(scoring["chronicle"], "scoring.chronicle"), "scoring.chronicle", None, 0, 500
            ),
            score_coin=self.sourced_int(scoring, "coin", "scoring", 0, 10),
            tie_breakers=ties,
            starting_compensation=comp,
            solo=(
                parse_solo(  # SOLO-01: the solo mode's data
                    self, top["solo"], family, church_stages, {n: c.cubes_per_round for n, c in cards}
                )
                if "solo" in top
                else None
            ),
            provenance=tuple(self.provenance),
            reduced=reduced,
        )
        return data

    def craft(self, building: Building, raw: Json) -> CraftBuilding:
        key = f"crafts.{building.value}"
        node = self.obj(raw, key)
        self.exact_keys(node, key, {"training_time", "production_time", "purchase", "goods"})
        goods = self.list_(
            self.sourced(node["goods"], f"{key}.goods"),
            f"{key}.goods",
            lambda x, k: self.enum(Good, x, k),
            min_len=1,
        )
        return CraftBuilding(
            building=building,
            training_time=self.sourced_int(node, "training_time", key, 0, 20),
            production_time=self.sourced_int(node, "production_time", key, 0, 20),
            purchase=self.cost(self.sourced(node["purchase"], f"{key}.purchase"), f"{key}.purchase"),
            goods=goods,
        )

    def market_space(self, raw: Json, key: str) -> MarketSpace:
        node = self.obj(self.sourced(raw, key), key)
        self.exact_keys(node, key, {"row", "position", "min_players", "label"})
        return MarketSpace(
            row=self.enum(Row, node["row"], f"{key}.row"),
            position=self.int_(node["position"], f"{key}.position", 1, 20),
            min_players=self.int_(node["min_players"], f"{key}.min_players", 2, 5),
            label=self.str_(node["label"], f"{key}.label"),
        )

    def ident(self, raw: Json, key: str) -> str:
        """A city or village id: it appears in the action notation, so no spaces."""
        text = self.str_(raw, key)
        if not _IDENT.fullmatch(text):
            raise self.fail(key, f"{text!r} is not an id: use letters, digits, '_' and '-' only")
        return text

    def city(self, raw: Json, key: str) -> City:
        node = self.obj(self.sourced(raw, key), key)
        self.exact_keys(node, key, {"id", "name", "reward"})
        reward = self.obj(node["reward"], f"{key}.reward")
        if len(reward) != 1:
            raise self.fail(f"{key}.reward", "expected exactly one reward kind")
        ((kind, amount),) = reward.items()
        return City(
            id=self.ident(node["id"], f"{key}.id"),
            name=self.str_(node["name"], f"{key}.name"),
            reward=self.enum(RewardKind, kind, f"{key}.reward"),
            amount=self.int_(amount, f"{key}.reward.{kind}", 1, 20),
        )

    def path(self, raw: Json, key: str) -> TravelPath:
        node = self.obj(self.sourced(raw, key), key)
        self.exact_keys(node, key, {"from", "to", "cost"})
        return TravelPath(
            a=self.ident(node["from"], f"{key}.from"),
            b=self.ident(node["to"], f"{key}.to"),
            cost=self.cost(node["cost"], f"{key}.cost"),
        )

    def customer(self, raw: Json, key: str) -> CustomerTile:
        node = self.obj(self.sourced(raw, key), key)
        self.exact_keys(node, key, {"id", "goods", "grain", "points"})
        tile = CustomerTile(
            id=self.int_(node["id"], f"{key}.id", 1, 999),
            goods=self.counts(Good, node["goods"], f"{key}.goods"),
            grain=self.int_(node["grain"], f"{key}.grain", 0, 50),
            points=self.int_(node["points"], f"{key}.points", 0, 100),
        )
        if tile.goods.total() + tile.grain == 0:
            raise self.fail(key, "a customer must demand at least one good or grain")
        return tile


def _check_constraints(d: EditionData, file: str) -> None:
    """Cross-constraints between values (docs/data-format.md, last section)."""

    def fail(key: str, problem: str) -> DataError:
        return DataError(file, key, problem)

    if d.first_generation_number != min(d.family_numbers):
        raise fail("first_generation_number", "the first generation must have the lowest number")
    for n, card in d.setup_cards:
        key = f"setup_cards.{n}"
        if card.cubes_per_round % n:
            raise fail(
                f"{key}.cubes_per_space",
                f"{card.cubes_per_round} cubes per round is not divisible by {n} players (2023 p. 13 Hint 2)",
            )
        for colour in INFLUENCE:
            if card.cubes_added[colour] > d.influence_cubes_each:
                raise fail(
                    f"{key}.cubes_added.{colour.value}",
                    f"adds {card.cubes_added[colour]} but the supply has only {d.influence_cubes_each}",
                )
        first_bag = card.cubes_added.total() + d.plague_cubes
        if first_bag < card.cubes_per_round:
            raise fail(
                key,
                f"the first round cannot be seeded: {first_bag} cubes in the bag "
                f"for {card.cubes_per_round} places",
            )

    _check_supply(d, fail)

    # customers
    if d.reduced is None and len(d.customers) != CUSTOMER_TILES:
        raise fail(
            "customers", f"the game has {CUSTOMER_TILES} customer tiles (2023 p. 2), got {len(d.customers)}"
        )
    ids = [t.id for t in d.customers]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise fail("customers", f"customer id {dup[0]} appears more than once")
    for i, tile in enumerate(d.customers):
        for good, n in tile.goods.items:
            if n > d.goods_each:
                raise fail(
                    f"customers[{i}].goods.{good.value}",
                    f"demands {n} but the supply has only {d.goods_each}",
                )
        if tile.grain > d.grain_capacity:
            raise fail(
                f"customers[{i}].grain",
                f"demands {tile.grain} grain but a farmyard holds at most {d.grain_capacity}",
            )
        if tile.grain > d.supply_grain:
            raise fail(
                f"customers[{i}].grain",
                f"demands {tile.grain} grain but the supply has only {d.supply_grain} (supply.grain)",
            )

    # market layout
    seen: set[tuple[Row, int]] = set()
    for i, space in enumerate(d.market_spaces):
        if (space.row, space.position) in seen:
            raise fail(f"market.spaces[{i}]", f"two spaces at {space.row.value} position {space.position}")
        seen.add((space.row, space.position))
    for n in d.player_counts:
        layout = d.market_layout(n)
        if not any(s.row is Row.AVAILABLE for s in layout):
            raise fail("market.spaces", f"no available (blue) space with {n} players")
        if len(layout) > len(d.customers):
            raise fail(
                "market.spaces",
                f"{len(layout)} spaces to fill with {n} players but only {len(d.customers)} customer tiles",
            )

    # travel map
    _check_travel(d, fail)

    # chronicle and graveyard
    members = len(d.family_numbers)
    colours = 5 if d.max_players == 5 else 4  # 2023: five colours (p. 2); 2011: four farmyards
    for n in d.player_counts:
        if d.chronicle_open_total(n) == 0:
            raise fail("chronicle.spaces", f"no open chronicle space with {n} players")
        if d.graveyard_open(n) == 0:
            raise fail("graveyard", f"no open grave with {n} players")
        open_spaces = d.chronicle_open_total(n) + d.graveyard_open(n)
        if open_spaces > n * members:
            raise fail(
                "chronicle.spaces",
                f"{open_spaces} open chronicle spaces and graves with {n} players "
                f"but only {n * members} family members to fill them",
            )
        blockers = (colours - n) * members
        if d.blocked_spaces(n) > blockers + d.marriage_spaces:
            raise fail(
                "chronicle.spaces",
                f"{d.blocked_spaces(n)} spaces to cover with {n} players "
                f"but the unused colours have only {blockers} members",
            )

    if len(d.score_chronicle) < 2:
        raise fail("scoring.chronicle", "expected at least 2 entries (points for 0 and 1 member)")
    if len(d.tie_breakers) == 0:
        raise fail("tie_breakers", "expected at least one tie-breaker")


def _check_supply(d: EditionData, fail: Callable[[str, str], DataError]) -> None:
    """SET-04 / SET-08 / SET-10: what setup hands out of the general supply must be there,
    at every player count (setup takes coins without a check; a short supply would leave
    it negative)."""
    n = d.max_players
    handed = n * d.starting_coins
    if handed > d.supply_coins:
        raise fail(
            "supply.coins",
            f"setup hands out {d.starting_coins} coin(s) to each of {n} players ({handed} in all) "
            f"but the supply has only {d.supply_coins}",
        )
    for kind, key, have in (
        (Compensation.COIN, "supply.coins", d.supply_coins - handed),
        (Compensation.GRAIN, "supply.grain", d.supply_grain),
    ):
        wanted = d.starting_compensation[:n].count(kind)
        if wanted > have:
            raise fail(
                key,
                f"the starting compensation hands out {wanted} {kind.value} but only {have} are left "
                "in the supply after setup",
            )


def _check_travel(d: EditionData, fail: Callable[[str, str], DataError]) -> None:
    ids = [c.id for c in d.cities]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise fail("travel.cities", f"city id {dup[0]!r} appears more than once")
    if d.village in ids:
        raise fail("travel.village", f"the village id {d.village!r} is also a city id")
    nodes = {d.village, *ids}
    seen: set[frozenset[str]] = set()
    for i, p in enumerate(d.paths):
        for end in (p.a, p.b):
            if end not in nodes:
                raise fail(f"travel.paths[{i}]", f"path to nowhere: {end!r} is not the village or a city")
        if p.a == p.b:
            raise fail(f"travel.paths[{i}]", f"path from {p.a!r} to itself")
        pair = frozenset((p.a, p.b))
        if pair in seen:
            raise fail(f"travel.paths[{i}]", f"a second path between {p.a!r} and {p.b!r}")
        seen.add(pair)
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((p.a, p.b) for p in d.paths)
    if not nx.is_connected(graph):
        parts = sorted(sorted(c) for c in nx.connected_components(graph) if d.village not in c)
        raise fail(
            "travel.paths",
            f"the travel map is disconnected: {', '.join(parts[0])} cannot be reached from the village",
        )
    if graph.degree(d.village) == 0:
        raise fail("travel.paths", "no path leaves the village")
    neighbours = sorted(graph.neighbors(d.village))
    if len(neighbours) > 2:
        # TRV-01 / TRV-05: 2023 p. 10 / 2011 "Travel": "one of the two neighboring cities that
        # can be reached from the village". Fewer are allowed: the explorer's reduced maps
        # (explore/configs) keep one.
        third = [i for i, p in enumerate(d.paths) if d.village in (p.a, p.b)][2]
        raise fail(
            f"travel.paths[{third}]",
            f"the village {d.village!r} has {len(neighbours)} neighbouring cities "
            f"({', '.join(neighbours)}); both rulebooks give it two (2023 p. 10 / 2011 'Travel': "
            "'the two neighboring cities that can be reached from the village')",
        )



def resolve_edition(edition: str, fingerprint: str) -> EditionData:
    """The edition data with this fingerprint: one loaded in this process, or the shipped
    data of `edition` if its fingerprint matches. Unpickling a state calls this; raises
    `DataError` when the data is not available (load its data file first)."""
    found = loaded_edition(fingerprint)
    if found is not None:
        return found
    if edition in EDITIONS and builtin_edition(edition).fingerprint == fingerprint:
        return builtin_edition(edition)
    raise DataError(
        "<pickled state>",
        "rules.data",
        f"edition data {edition!r} with fingerprint {fingerprint[:12]}… is not loaded in this process"
        " (not the shipped data of that name): load its data file with load_edition() before unpickling",
    )


def _pickle_edition(data: EditionData) -> tuple[Callable[[str, str], EditionData], tuple[str, str]]:
    return (resolve_edition, (data.edition, data.fingerprint))


copyreg.pickle(EditionData, _pickle_edition)
