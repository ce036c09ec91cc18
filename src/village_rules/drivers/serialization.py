"""`to_json` / `from_json`: a whole game state as versioned JSON.

`from_json(to_json(s)) == s` for every state. Malformed input raises `StateFormatError`
naming the JSON path; no half-built state is ever returned. A state on a shipped edition
names it by id and fingerprint; a state on a user's data embeds that data.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable
from enum import StrEnum
from typing import TypeVar, cast

from village_rules.checks.invariants import phase_violations, state_violations
from village_rules.checks.state_checks import phase_problems
from village_rules.data.components import (
    ActionSpace,
    Building,
    Cube,
    Good,
    Location,
    OnChurch,
    OnCouncil,
    Travelling,
    format_location,
    parse_location,
)
from village_rules.data.edition import EditionData, Row
from village_rules.data.jsonio import MAX_STATE_CHARS, JsonInputError, is_version, read_json
from village_rules.data.loader import EDITIONS, builtin_edition, parse_edition
from village_rules.data.solo_data import FateTile
from village_rules.data.tally import Tally
from village_rules.drivers.artefacts import artefact_kind
from village_rules.engine.core import chance_outcomes, legal_actions
from village_rules.errors import DataError, StateFormatError, VillageError
from village_rules.model import pending as pending_mod
from village_rules.model.actions import PAYABLE, ActionSyntaxError, format_action, parse_action
from village_rules.model.carla_board import CarlaBoard
from village_rules.model.pending import (
    ChoosePayment,
    ChoosePrivilege,
    ChooseSupplyCube,
    ChooseSupplyGood,
    MassDraw,
    Pending,
    RefillDraw,
    SeedDraw,
)
from village_rules.model.state import GameState, MarketDay, Mass, PlayerState, Supply, Turn
from village_rules.rules.register import LEGACY_WELL_FLAG, legacy_well_choice, readings_from_json
from village_rules.rules.variant import Rules, Variant

STATE_FORMAT = "village-rules-state"
STATE_FORMAT_VERSION = 1

Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]
E = TypeVar("E", bound=StrEnum)
T = TypeVar("T")

_PENDING_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        pending_mod.ChooseCompensationCube,
        pending_mod.ChooseTurn,
        pending_mod.ChooseAction,
        pending_mod.ChoosePrivilege,
        pending_mod.ChooseSupplyCube,
        pending_mod.ChooseSupplyGood,
        pending_mod.ChoosePayment,
        pending_mod.ChooseDying,
        pending_mod.MarketChoice,
        pending_mod.MassBuy,
        pending_mod.MassAdvance,
        pending_mod.SeedDraw,
        pending_mod.RefillDraw,
        pending_mod.MassDraw,
        pending_mod.ChooseCarlaCube,
        pending_mod.FateReveal,
        pending_mod.GameOver,
    )
}


# --- encoding -----------------------------------------------------------------------------


def to_json(state: GameState) -> str:
    """The state as compact, deterministic JSON text."""
    return json.dumps(state_to_dict(state), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state_to_dict(state: GameState) -> dict[str, Json]:
    """The state as a JSON-ready dictionary (what `to_json` writes)."""
    data = state.rules.data
    rules: dict[str, Json] = {
        "edition": data.edition,
        "fingerprint": data.fingerprint,
        "variant": {
            "starting_compensation": state.rules.variant.starting_compensation,
            "readings": dict(state.rules.variant.choices),
        },
    }
    if not _is_builtin(data):
        rules["data"] = json.loads(data.canonical_json)
        rules["source"] = data.source
    return {
        "format": STATE_FORMAT,
        "format_version": STATE_FORMAT_VERSION,
        "rules": rules,
        "round": state.round,
        "start_player": state.start_player,
        "next_start_holder": state.next_start_holder,
        "supply": {
            "cubes": _tally(state.supply.cubes),
            "coins": state.supply.coins,
            "grain": state.supply.grain,
            "goods": _tally(state.supply.goods),
        },
        "green_bag": _tally(state.green_bag),
        "spaces": {s.value: _tally(t) for s, t in zip(ActionSpace, state.spaces, strict=True)},
        "market_available": list(state.market_available),
        "market_waiting": list(state.market_waiting),
        "customer_pile": list(state.customer_pile),
        "bag_monks": state.bag_monks,
        "monks_aside": state.monks_aside,
        "players": [_player(p) for p in state.players],
        "pending": _pending(state.pending),
        "turn": None if state.turn is None else _turn_json(state.turn),
        "market_day": None
        if state.market_day is None
        else {
            "trigger": state.market_day.trigger,
            "current": state.market_day.current,
            "passed": list(state.market_day.passed),
            "trigger_sold": state.market_day.trigger_sold,
            "held_deaths": state.market_day.held_deaths,
            "closed": state.market_day.closed,
            # AMB-06 b only; absent otherwise, so default states keep their form.
            **({"first_pass_waived": True} if state.market_day.first_pass_waived else {}),
        },
        "mass": None if state.mass is None else _mass_json(state.mass),
        "deaths_owed": list(state.deaths_owed),
        "end_triggered_by": state.end_triggered_by,
        "final_turns": None if state.final_turns is None else list(state.final_turns),
        # Solo only (SOLO-01); absent in a game of 2 or more, so those keep their form.
        **({"carla": _carla_json(state.carla)} if state.carla is not None else {}),
    }


def _carla_json(c: CarlaBoard) -> dict[str, Json]:
    """Carla's board (solo): her cube space, last cube, fate tiles and owed steps."""
    return {
        "space": c.space,
        "last_cube": None if c.last_cube is None else c.last_cube.value,
        "fate": [None if t is None else t.value for t in c.fate],
        "look_for": None if c.look_for is None else c.look_for.value,
        "look_from": None if c.look_from is None else c.look_from.value,
        "took_from": None if c.took_from is None else c.took_from.value,
        "reacted": c.reacted,
        "quill": c.quill,
        # Written only when set, so solo states stored before these fields still load.
        **({"well_turn": True} if c.well_turn else {}),
        **({"end_in_market_of": c.end_in_market_of} if c.end_in_market_of is not None else {}),
        # AMB-36 b only: the key is left out while no action is held, so states stay as before
        **({"action_waits": c.action_waits.value} if c.action_waits is not None else {}),
    }


def _tally(t: Tally[E]) -> dict[str, Json]:
    return {k.value: n for k, n in t.items}


def _turn_json(turn: Turn) -> dict[str, Json]:
    """The turn in progress; "took_last_cube" (AMB-45) only when set, so every other
    state keeps the form it had before the field existed."""
    out: dict[str, Json] = {"seat": turn.seat}
    if turn.took_last_cube:
        out["took_last_cube"] = True
    return out


def _mass_json(mass: Mass) -> dict[str, Json]:
    """The mass in progress; "stopped" (AMB-15 b) only when a seat has stopped buying and
    "in_final_actions" (AMB-45 b) only when set, so states under the default readings keep
    the form they had before the fields existed."""
    out: dict[str, Json] = {"bought": mass.bought, "final": mass.final}
    if mass.stopped:
        out["stopped"] = list(mass.stopped)
    if mass.in_final_actions:
        out["in_final_actions"] = True
    return out


def _keys(raw: Json) -> set[str]:
    return set(raw) if isinstance(raw, dict) else set()


def _player(p: PlayerState) -> dict[str, Json]:
    return {
        "colour": p.colour,
        "members": [format_location(loc) for loc in p.members],
        "grain": p.grain,
        "coins": p.coins,
        "cubes": _tally(p.cubes),
        "goods": _tally(p.goods),
        "lifetime": p.lifetime,
        "prestige": p.prestige,
        "customers": list(p.customers),
        "markers": list(p.markers),
    }


def _pending(p: Pending) -> dict[str, Json]:
    out: dict[str, Json] = {"kind": type(p).__name__}
    for f in dataclasses.fields(p):
        value = getattr(p, f.name)
        if isinstance(value, StrEnum):
            out[f.name] = value.value
        elif isinstance(value, int):
            out[f.name] = value
        else:
            out[f.name] = format_action(value)
    return out


@functools.lru_cache(maxsize=16)
def _parsed_edition(text: str, source: str) -> EditionData:
    """`parse_edition`, remembered: a state saved on a data file carries the whole file, and
    walking a configuration's states (`conform`) loads thousands of states on one file.
    EditionData is immutable, so sharing one parse is safe; a bad file raises every time."""
    return parse_edition(text, source)


def _is_builtin(data: EditionData) -> bool:
    return data.edition in EDITIONS and builtin_edition(data.edition) == data


# --- decoding -----------------------------------------------------------------------------


def from_json(text: str) -> GameState:
    """Parse a state written by `to_json`; raises `StateFormatError` on anything else."""
    try:
        raw = cast(Json, read_json(text, MAX_STATE_CHARS, "state"))
    except JsonInputError as exc:
        raise StateFormatError("$", exc.problem) from None
    kind = artefact_kind(raw, STATE_FORMAT) if isinstance(raw, dict) else None
    if kind is not None:
        raise StateFormatError("$.format", f"expected {STATE_FORMAT!r}; not a saved state: this is {kind}")
    return _Decoder().state(raw)


class _Decoder:
    def fail(self, path: str, problem: str) -> StateFormatError:
        return StateFormatError(path, problem)

    def obj(self, raw: Json, path: str, keys: set[str]) -> dict[str, Json]:
        if not isinstance(raw, dict):
            raise self.fail(path, "expected an object")
        missing = sorted(keys - raw.keys())
        if missing:
            raise self.fail(f"{path}.{missing[0]}", "missing key")
        extra = sorted(raw.keys() - keys)
        if extra:
            raise self.fail(f"{path}.{extra[0]}", "unknown key")
        return raw

    def int_(self, raw: Json, path: str, lo: int = 0, hi: int = 1_000_000) -> int:
        if not isinstance(raw, int) or isinstance(raw, bool):
            raise self.fail(path, "expected an integer")
        if not lo <= raw <= hi:
            raise self.fail(path, f"{raw} is out of range {lo}..{hi}")
        return raw

    def opt_int(self, raw: Json, path: str, lo: int = 0, hi: int = 1_000_000) -> int | None:
        return None if raw is None else self.int_(raw, path, lo, hi)

    def bool_(self, raw: Json, path: str) -> bool:
        if not isinstance(raw, bool):
            raise self.fail(path, "expected true or false")
        return raw

    def str_(self, raw: Json, path: str) -> str:
        if not isinstance(raw, str):
            raise self.fail(path, "expected a string")
        return raw

    def list_(self, raw: Json, path: str, item: Callable[[Json, str], T]) -> tuple[T, ...]:
        if not isinstance(raw, list):
            raise self.fail(path, "expected a list")
        return tuple(item(x, f"{path}[{i}]") for i, x in enumerate(raw))

    def enum(self, cls: type[E], raw: Json, path: str) -> E:
        try:
            return cls(self.str_(raw, path))
        except ValueError:
            raise self.fail(path, f"unknown {cls.__name__} {raw!r}") from None

    def tally(self, cls: type[E], raw: Json, path: str) -> Tally[E]:
        if not isinstance(raw, dict):
            raise self.fail(path, "expected an object of counts")
        return Tally.of(
            {self.enum(cls, k, f"{path}.{k}"): self.int_(v, f"{path}.{k}", 1) for k, v in raw.items()}
        )

    def location(self, raw: Json, path: str) -> Location:
        text = self.str_(raw, path)
        try:
            loc = parse_location(text)
        except ValueError as exc:
            raise self.fail(path, str(exc)) from None
        if format_location(loc) != text:
            raise self.fail(path, f"{text!r} is not canonical: write {format_location(loc)!r}")
        return loc

    def rules(self, raw: Json, path: str) -> Rules:
        node = raw if isinstance(raw, dict) else {}
        keys = {"edition", "fingerprint", "variant"} | ({"data", "source"} if "data" in node else set())
        r = self.obj(raw, path, keys)
        edition = self.str_(r["edition"], f"{path}.edition")
        fingerprint = self.str_(r["fingerprint"], f"{path}.fingerprint")
        if "data" in r:
            source = self.str_(r["source"], f"{path}.source")
            try:
                data = _parsed_edition(json.dumps(r["data"], ensure_ascii=False), source)
            except DataError as exc:
                raise self.fail(f"{path}.data", str(exc)) from None
        else:
            try:
                data = builtin_edition(edition)
            except DataError:
                raise self.fail(f"{path}.edition", f"unknown edition {edition!r}") from None
        if data.fingerprint != fingerprint:
            raise self.fail(
                f"{path}.fingerprint", "the edition data differs from the data this state was saved with"
            )
        return Rules(data, self.variant(r["variant"], f"{path}.variant"))

    def variant(self, raw: Json, path: str) -> Variant:
        """`{"starting_compensation": bool, "readings": {AMB: letter}}` (issue 9); the
        version-1 flag `coin_substitution_at_well` is read as AMB-01 a / b."""
        node = raw if isinstance(raw, dict) else {}
        keys = {"starting_compensation", LEGACY_WELL_FLAG if LEGACY_WELL_FLAG in node else "readings"}
        v = self.obj(raw, path, keys)
        compensation = self.bool_(v["starting_compensation"], f"{path}.starting_compensation")
        if LEGACY_WELL_FLAG in v:
            choices: tuple[tuple[str, str], ...] = (
                legacy_well_choice(v[LEGACY_WELL_FLAG], f"{path}.{LEGACY_WELL_FLAG}", self.fail),
            )
        else:
            choices = readings_from_json(v["readings"], f"{path}.readings", self.fail)
        return Variant(compensation, choices)

    def player(self, raw: Json, path: str, members: int) -> PlayerState:
        p = self.obj(
            raw,
            path,
            {
                "colour",
                "members",
                "grain",
                "coins",
                "cubes",
                "goods",
                "lifetime",
                "prestige",
                "customers",
                "markers",
            },
        )
        locs = self.list_(p["members"], f"{path}.members", self.location)
        if len(locs) != members:
            raise self.fail(f"{path}.members", f"expected {members} members, got {len(locs)}")
        return PlayerState(
            colour=self.str_(p["colour"], f"{path}.colour"),
            members=locs,
            grain=self.int_(p["grain"], f"{path}.grain"),
            coins=self.int_(p["coins"], f"{path}.coins"),
            cubes=self.tally(Cube, p["cubes"], f"{path}.cubes"),
            goods=self.tally(Good, p["goods"], f"{path}.goods"),
            lifetime=self.int_(p["lifetime"], f"{path}.lifetime"),
            prestige=self.int_(p["prestige"], f"{path}.prestige"),
            customers=self.list_(p["customers"], f"{path}.customers", self.int_),
            markers=self.list_(p["markers"], f"{path}.markers", self.str_),
        )

    def pending(self, raw: Json, path: str) -> Pending:
        if not isinstance(raw, dict) or "kind" not in raw:
            raise self.fail(path, "expected an object with a 'kind'")
        kind = self.str_(raw["kind"], f"{path}.kind")
        cls = _PENDING_TYPES.get(kind)
        if cls is None:
            raise self.fail(f"{path}.kind", f"unknown pending step {kind!r}")
        fields = dataclasses.fields(cls)
        node = self.obj(raw, path, {"kind"} | {f.name for f in fields})
        kwargs: dict[str, object] = {}
        for f in fields:
            fpath = f"{path}.{f.name}"
            value = node[f.name]
            if f.type == "int":
                kwargs[f.name] = self.int_(value, fpath)
            elif f.type == "ActionSpace":
                kwargs[f.name] = self.enum(ActionSpace, value, fpath)
            elif f.type == "Building":
                kwargs[f.name] = self.enum(Building, value, fpath)
            else:
                try:
                    kwargs[f.name] = parse_action(self.str_(value, fpath))
                except ActionSyntaxError as exc:
                    raise self.fail(fpath, str(exc)) from None
        result: Pending = cls(**kwargs)
        return result

    def state(self, raw: Json) -> GameState:
        keys = {
            "format",
            "format_version",
            "rules",
            "round",
            "start_player",
            "next_start_holder",
            "supply",
            "green_bag",
            "spaces",
            "market_available",
            "market_waiting",
            "customer_pile",
            "bag_monks",
            "monks_aside",
            "players",
            "pending",
            "turn",
            "market_day",
            "mass",
            "deaths_owed",
            "end_triggered_by",
            "final_turns",
        }
        s = self.obj(raw, "$", keys | ({"carla"} & _keys(raw)))  # "carla": solo games only
        if s["format"] != STATE_FORMAT:
            raise self.fail("$.format", f"expected {STATE_FORMAT!r}")
        version = s["format_version"]
        if not is_version(version, STATE_FORMAT_VERSION):
            raise self.fail(
                "$.format_version",
                f"unsupported version {s['format_version']!r}; this library reads {STATE_FORMAT_VERSION}",
            )
        rules = self.rules(s["rules"], "$.rules")
        members = len(rules.data.family_numbers)
        players = self.list_(s["players"], "$.players", lambda x, p: self.player(x, p, members))
        n = len(players)
        carla = None if "carla" not in s else self.carla(s["carla"], rules)
        if carla is not None and n != 2:
            raise self.fail("$.players", f"a solo game has 2 seats (the player's and Carla's), not {n}")
        if carla is None and n not in rules.data.player_counts:
            raise self.fail("$.players", f"{n} players is not a player count of {rules.data.edition}")
        seat_hi = n - 1
        sup = self.obj(s["supply"], "$.supply", {"cubes", "coins", "grain", "goods"})
        sp = self.obj(s["spaces"], "$.spaces", {a.value for a in ActionSpace})
        turn_raw = s["turn"]
        md_raw = s["market_day"]
        mass_raw = s["mass"]
        turn = None
        if turn_raw is not None:
            # "took_last_cube" (AMB-45) may be absent: it is written only when set.
            t = self.obj(turn_raw, "$.turn", {"seat"} | ({"took_last_cube"} & _keys(turn_raw)))
            turn = Turn(
                self.int_(t["seat"], "$.turn.seat", 0, seat_hi),
                self.bool_(t.get("took_last_cube", False), "$.turn.took_last_cube"),
            )
        market_day = None
        if md_raw is not None:
            m = self.obj(
                md_raw,
                "$.market_day",
                {"trigger", "current", "passed", "trigger_sold", "held_deaths", "closed"}
                | ({"first_pass_waived"} & _keys(md_raw)),  # AMB-06 b; may be absent
            )
            market_day = MarketDay(
                trigger=self.int_(m["trigger"], "$.market_day.trigger", 0, seat_hi),
                current=self.int_(m["current"], "$.market_day.current", 0, seat_hi),
                passed=self.list_(
                    m["passed"], "$.market_day.passed", lambda x, p: self.int_(x, p, 0, seat_hi)
                ),
                trigger_sold=self.bool_(m["trigger_sold"], "$.market_day.trigger_sold"),
                held_deaths=self.int_(m["held_deaths"], "$.market_day.held_deaths"),
                closed=self.bool_(m["closed"], "$.market_day.closed"),
                first_pass_waived=self.bool_(
                    m.get("first_pass_waived", False), "$.market_day.first_pass_waived"
                ),
            )
        mass = None
        if mass_raw is not None:
            # "stopped" (AMB-15 b) may be absent: states written before it existed load.
            m = self.obj(
                mass_raw,
                "$.mass",
                {"bought", "final"} | ({"stopped", "in_final_actions"} & _keys(mass_raw)),
            )
            stopped = self.list_(
                m.get("stopped", []), "$.mass.stopped", lambda x, p: self.int_(x, p, 0, seat_hi)
            )
            if list(stopped) != sorted(set(stopped)):
                raise self.fail("$.mass.stopped", "each seat stops buying once; the list is kept sorted")
            mass = Mass(
                self.int_(m["bought"], "$.mass.bought"),
                self.bool_(m["final"], "$.mass.final"),
                stopped,
                self.bool_(m.get("in_final_actions", False), "$.mass.in_final_actions"),
            )
        final_turns = None
        if s["final_turns"] is not None:
            final_turns = self.list_(
                s["final_turns"], "$.final_turns", lambda x, p: self.int_(x, p, 0, seat_hi)
            )
        deaths = self.list_(s["deaths_owed"], "$.deaths_owed", self.int_)
        if len(deaths) != n:
            raise self.fail("$.deaths_owed", f"expected {n} entries, got {len(deaths)}")
        state = GameState(
            rules=rules,
            round=self.int_(s["round"], "$.round", 1),
            start_player=self.int_(s["start_player"], "$.start_player", 0, seat_hi),
            next_start_holder=self.opt_int(s["next_start_holder"], "$.next_start_holder", 0, seat_hi),
            supply=Supply(
                cubes=self.tally(Cube, sup["cubes"], "$.supply.cubes"),
                coins=self.int_(sup["coins"], "$.supply.coins"),
                grain=self.int_(sup["grain"], "$.supply.grain"),
                goods=self.tally(Good, sup["goods"], "$.supply.goods"),
            ),
            green_bag=self.tally(Cube, s["green_bag"], "$.green_bag"),
            spaces=tuple(self.tally(Cube, sp[a.value], f"$.spaces.{a.value}") for a in ActionSpace),
            market_available=self.list_(s["market_available"], "$.market_available", self.opt_int),
            market_waiting=self.list_(s["market_waiting"], "$.market_waiting", self.opt_int),
            customer_pile=self.list_(s["customer_pile"], "$.customer_pile", self.int_),
            bag_monks=self.int_(s["bag_monks"], "$.bag_monks"),
            monks_aside=self.int_(s["monks_aside"], "$.monks_aside"),
            players=players,
            pending=self.pending(s["pending"], "$.pending"),
            turn=turn,
            market_day=market_day,
            mass=mass,
            deaths_owed=deaths,
            end_triggered_by=self.opt_int(s["end_triggered_by"], "$.end_triggered_by", 0, seat_hi),
            final_turns=final_turns,
            carla=carla,
        )
        self.references(state)
        self.consistency(state)
        return state

    def carla(self, raw: Json, rules: Rules) -> CarlaBoard:
        """Carla's board of a solo game (only with edition data that has a solo mode)."""
        solo = rules.data.solo
        if solo is None:
            raise self.fail("$.carla", f"{rules.data.edition} has no solo mode (SOLO-01)")
        keys = {"space", "last_cube", "fate", "look_for", "look_from", "took_from", "reacted", "quill"}
        c = self.obj(raw, "$.carla", keys | ({"well_turn", "end_in_market_of", "action_waits"} & _keys(raw)))

        def opt(cls: type[E], key: str) -> E | None:
            return None if c[key] is None else self.enum(cls, c[key], f"$.carla.{key}")

        fate = self.list_(
            c["fate"], "$.carla.fate", lambda x, p: None if x is None else self.enum(FateTile, x, p)
        )
        if len(fate) != len(solo.fate_slots):
            raise self.fail("$.carla.fate", f"expected {len(solo.fate_slots)} fate slots, got {len(fate)}")
        return CarlaBoard(
            space=self.int_(c["space"], "$.carla.space", -1, solo.track_spaces - 1),
            last_cube=opt(Cube, "last_cube"),
            fate=fate,
            look_for=opt(Cube, "look_for"),
            look_from=opt(ActionSpace, "look_from"),
            took_from=opt(ActionSpace, "took_from"),
            reacted=self.bool_(c["reacted"], "$.carla.reacted"),
            quill=self.bool_(c["quill"], "$.carla.quill"),
            well_turn="well_turn" in c and self.bool_(c["well_turn"], "$.carla.well_turn"),
            end_in_market_of=(
                None
                if c.get("end_in_market_of") is None
                else self.int_(c["end_in_market_of"], "$.carla.end_in_market_of", 0, 1)
            ),
            action_waits=opt(ActionSpace, "action_waits") if "action_waits" in c else None,
        )

    def consistency(self, state: GameState) -> None:
        """The pending step must fit the rest of the state, and every invariant must hold:
        a state that loads can always be played on."""
        d = state.rules.data
        day = state.market_day
        if day is not None and len(set(day.passed)) != len(day.passed):
            raise self.fail("$.market_day.passed", "a seat can pass only once")
        pending = state.pending
        match pending:
            case RefillDraw(position) if not 0 <= position < len(state.market_waiting):
                raise self.fail(
                    "$.pending.position", f"the waiting line has {len(state.market_waiting)} spaces"
                )
            case ChoosePrivilege(_, top) if not 1 <= top <= d.council_stages:
                raise self.fail(
                    "$.pending.max_stage", f"the council chamber has stages 1..{d.council_stages}"
                )
            case ChooseSupplyCube(_, n) | ChooseSupplyGood(_, n) | SeedDraw(_, n) | MassDraw(n) if n < 1:
                raise self.fail("$.pending.remaining", "at least 1")
            case ChoosePayment(_, action) if not isinstance(action, PAYABLE):
                raise self.fail("$.pending.action", f"{format_action(action)!r} has nothing to pay")
        problems = phase_violations(state)
        if problems:
            raise self.fail("$.pending", str(problems[0]))
        for path, problem in phase_problems(state):
            raise self.fail(path, problem)
        try:
            legal = None if state.is_chance or state.is_terminal else legal_actions(state)
            chance_outcomes(state)
        except (VillageError, IndexError, KeyError, ValueError) as exc:
            raise self.fail(
                "$.pending", f"the pending step cannot be played: {type(exc).__name__}: {exc}"
            ) from None
        problems = state_violations(state, legal)
        if problems:
            raise self.fail("$", str(problems[0]))

    def references(self, state: GameState) -> None:
        """Everything the state names must exist in its edition at its player count."""
        d = state.rules.data
        n = state.num_players
        seat = getattr(state.pending, "seat", None)
        if isinstance(seat, int) and not 0 <= seat < n:
            raise self.fail("$.pending.seat", f"seat {seat} is out of range 0..{n - 1} ({n} players)")
        cities = {c.id for c in d.cities}
        for i, p in enumerate(state.players):
            for j, loc in enumerate(p.members):
                path = f"$.players[{i}].members[{j}]"
                match loc:
                    case OnCouncil(stage) if not 1 <= stage <= d.council_stages:
                        raise self.fail(path, f"council stage {stage}: the chamber has 1..{d.council_stages}")
                    case OnChurch(stage) if not 1 <= stage <= d.church_stages:
                        raise self.fail(path, f"church stage {stage}: the church has 1..{d.church_stages}")
                    case Travelling(city) if city not in cities:
                        raise self.fail(path, f"{city!r} is not a city of the travel map")
            for j, city in enumerate(p.markers):
                if city not in cities:
                    raise self.fail(
                        f"$.players[{i}].markers[{j}]", f"{city!r} is not a city of the travel map"
                    )
            for j, served in enumerate(p.customers):
                if served not in self.tiles(d):
                    raise self.fail(f"$.players[{i}].customers[{j}]", f"no customer tile {served}")
        layout = d.market_layout(n)
        for name, row, want in (
            ("market_available", state.market_available, Row.AVAILABLE),
            ("market_waiting", state.market_waiting, Row.WAITING),
        ):
            size = sum(1 for sp in layout if sp.row is want)
            if len(row) != size:
                raise self.fail(f"$.{name}", f"expected {size} spaces with {n} players, got {len(row)}")
            for j, tile in enumerate(row):
                if tile is not None and tile not in self.tiles(d):
                    raise self.fail(f"$.{name}[{j}]", f"no customer tile {tile}")
        for j, face_down in enumerate(state.customer_pile):
            if face_down not in self.tiles(d):
                raise self.fail(f"$.customer_pile[{j}]", f"no customer tile {face_down}")

    @staticmethod
    def tiles(d: EditionData) -> set[int]:
        return {t.id for t in d.customers}
