"""Every decision and chance outcome as a small immutable value, with a stable text notation
(docs/actions.md) and a stable integer id per edition data (for OpenSpiel-style wrappers).

`parse_action(format_action(a)) == a` for every action; a malformed text raises
`ActionSyntaxError`, which is distinct from `IllegalActionError` (well-formed but not allowed).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import assert_never, get_args

from village_rules.data.components import (
    FARMYARD,
    INFLUENCE,
    ActionSpace,
    AtCraft,
    Building,
    Category,
    ChurchReserve,
    Cube,
    Farmyard,
    Good,
    InBlackBag,
    InChronicle,
    InGraveyard,
    Location,
    OnChurch,
    OnCouncil,
    Removed,
    Travelling,
    Unborn,
    format_location,
    parse_location,
)
from village_rules.data.edition import EditionData
from village_rules.data.solo_data import FateTile
from village_rules.data.tally import Tally
from village_rules.data.typed_hash import typed_hash
from village_rules.errors import ActionTypeError, InternalError, VillageError


class ActionSyntaxError(VillageError, ValueError):
    """An action text that is not in the notation of docs/actions.md."""


# --- decisions ----------------------------------------------------------------------------


@typed_hash
@dataclass(frozen=True, slots=True)
class TakeCube:
    """Take one cube of colour `cube` from action space `space` (p. 5)."""

    space: ActionSpace
    cube: Cube


@typed_hash
@dataclass(frozen=True, slots=True)
class Well:
    """Return `well_cubes` influence cubes of `colour` to perform the action of `space` (p. 10)."""

    space: ActionSpace
    colour: Cube


@typed_hash
@dataclass(frozen=True, slots=True)
class FreeAction:
    """A final action with no cube left on the board: any action, no well payment (p. 13)."""

    space: ActionSpace


@typed_hash
@dataclass(frozen=True, slots=True)
class Skip:
    """Do not perform (any more of) the offered step: no action, no privilege, stop buying."""


@typed_hash
@dataclass(frozen=True, slots=True)
class PickCube:
    """Choose an influence cube from the supply (compensation, privilege 2, travel reward)."""

    colour: Cube


@typed_hash
@dataclass(frozen=True, slots=True)
class PickGood:
    """Choose a goods tile from the supply (council privilege 3)."""

    good: Good


@typed_hash
@dataclass(frozen=True, slots=True)
class Harvest:
    """Grain harvest (p. 6)."""


@typed_hash
@dataclass(frozen=True, slots=True)
class Birth:
    """Family: the lowest-numbered unborn member comes to the farmyard (p. 6)."""


@typed_hash
@dataclass(frozen=True, slots=True)
class CallHome:
    """Family: a member numbered `number` at `location` on the board returns home (p. 6)."""

    location: Location
    number: int


@typed_hash
@dataclass(frozen=True, slots=True)
class Train:
    """Crafts: train a farmyard member numbered `number` below `building` and produce
    `good` with it at once, or (`good` None, AMB-26 b) train only (p. 7)."""

    building: Building
    number: int
    good: Good | None


@typed_hash
@dataclass(frozen=True, slots=True)
class Produce:
    """Crafts: a trained member at `building` produces `good` for time (p. 7)."""

    building: Building
    good: Good


@typed_hash
@dataclass(frozen=True, slots=True)
class Buy:
    """Crafts: buy `good` from `building` with cubes (or grain at the stables) (p. 7)."""

    building: Building
    good: Good


@typed_hash
@dataclass(frozen=True, slots=True)
class Mill:
    """Crafts: the mill turns time and grain into coins (p. 7)."""


@typed_hash
@dataclass(frozen=True, slots=True)
class Travel:
    """Travel from `origin` (the village: a farmyard member; a city: a member there) to
    the adjacent `destination`, moving a member numbered `number` (p. 10)."""

    origin: str
    destination: str
    number: int


@typed_hash
@dataclass(frozen=True, slots=True)
class CouncilPlace:
    """Council chamber way a): a farmyard member numbered `number` onto stage 1 (p. 9)."""

    number: int


@typed_hash
@dataclass(frozen=True, slots=True)
class CouncilAdvance:
    """Council chamber way b): a member numbered `number` from `stage` to `stage + 1`."""

    stage: int
    number: int


@typed_hash
@dataclass(frozen=True, slots=True)
class Privilege:
    """Use the privilege of council `stage` (after a) or b), or as way c)) (p. 9)."""

    stage: int


@typed_hash
@dataclass(frozen=True, slots=True)
class ChurchEnter:
    """Church: a farmyard member numbered `number` into the black bag (p. 10)."""

    number: int


@typed_hash
@dataclass(frozen=True, slots=True)
class Pay:
    """Pay cost alternative `alternative` (0-based), with `coins` standing in for the cubes
    counted there (p. 12: a coin substitutes for any one influence cube)."""

    alternative: int
    coins: Tally[Cube]


@typed_hash
@dataclass(frozen=True, slots=True)
class Die:
    """The member at `location` dies (one of the owner's lowest-numbered visible members)."""

    location: Location


@typed_hash
@dataclass(frozen=True, slots=True)
class Serve:
    """Market day: serve customer tile `tile` from an available space (p. 8)."""

    tile: int


@typed_hash
@dataclass(frozen=True, slots=True)
class Pass:
    """Market day: pass; final for this market day (p. 8)."""


@typed_hash
@dataclass(frozen=True, slots=True)
class BuyFromBag:
    """Mass step 1: pay 1 coin to take an own member numbered `number` out of the bag."""

    number: int


@typed_hash
@dataclass(frozen=True, slots=True)
class ChurchStep:
    """Mass step 2: move an own member numbered `number` from `stage` to `stage + 1`."""

    stage: int
    number: int


# --- chance outcomes ----------------------------------------------------------------------


@typed_hash
@dataclass(frozen=True, slots=True)
class DrawCube:
    """A cube of colour `cube` is drawn from the green bag."""

    cube: Cube


@typed_hash
@dataclass(frozen=True, slots=True)
class DrawCustomer:
    """Customer tile `tile` is turned up from the face-down pile."""

    tile: int


@typed_hash
@dataclass(frozen=True, slots=True)
class DrawMonk:
    """A monk is drawn from the black bag."""


@typed_hash
@dataclass(frozen=True, slots=True)
class DrawMember:
    """A member of `seat` numbered `number` is drawn from the black bag."""

    seat: int
    number: int


@typed_hash
@dataclass(frozen=True, slots=True)
class CarlaCube:
    """Solo: the player chooses the cube of colour `cube` for Carla (SOLO-12, SOLO-13)."""

    cube: Cube


@typed_hash
@dataclass(frozen=True, slots=True)
class RevealFate:
    """Solo: the fate tile turned up on Carla's board shows `tile` (SOLO-14)."""

    tile: FateTile


Action = (
    TakeCube
    | Well
    | FreeAction
    | Skip
    | PickCube
    | PickGood
    | Harvest
    | Birth
    | CallHome
    | Train
    | Produce
    | Buy
    | Mill
    | Travel
    | CouncilPlace
    | CouncilAdvance
    | Privilege
    | ChurchEnter
    | Pay
    | Die
    | Serve
    | Pass
    | BuyFromBag
    | ChurchStep
    | DrawCube
    | DrawCustomer
    | DrawMonk
    | DrawMember
    | CarlaCube
    | RevealFate
)
"""Any action of the game: a player's decision or a chance outcome (docs/actions.md)."""


_ACTION_FIELDS: dict[type, tuple[tuple[str, tuple[str, Callable[[object], bool]]], ...]] = {}
"""Each action class and its fields' checks; filled below once the checks exist."""

PAYABLE = (Well, Train, Produce, Buy, Mill, Travel, CouncilPlace, CouncilAdvance, ChurchEnter, Serve)
"""The decisions that can have a cost to pay (and so a `ChoosePayment` step)."""


# --- text notation ------------------------------------------------------------------------


def format_action(action: Action) -> str:
    """The stable text form of an action (docs/actions.md)."""
    match action:
        case TakeCube(space, cube):
            return f"take {space.value} {cube.value}"
        case Well(space, colour):
            return f"well {space.value} {colour.value}"
        case FreeAction(space):
            return f"free {space.value}"
        case Skip():
            return "skip"
        case PickCube(colour):
            return f"cube {colour.value}"
        case PickGood(good):
            return f"good {good.value}"
        case Harvest():
            return "harvest"
        case Birth():
            return "birth"
        case CallHome(location, number):
            return f"call-home {format_location(location)} {number}"
        case Train(building, number, None):
            return f"train {building.value} {number}"
        case Train(building, number, good):
            if good is None:  # matched by the case above
                raise InternalError("actions.format_action", "a Train with no good fell through")
            return f"train {building.value} {number} {good.value}"
        case Produce(building, good):
            return f"produce {building.value} {good.value}"
        case Buy(building, good):
            return f"buy {building.value} {good.value}"
        case Mill():
            return "mill"
        case Travel(origin, destination, number):
            return f"travel {origin} {destination} {number}"
        case CouncilPlace(number):
            return f"council-place {number}"
        case CouncilAdvance(stage, number):
            return f"council-advance {stage} {number}"
        case Privilege(stage):
            return f"privilege {stage}"
        case ChurchEnter(number):
            return f"church {number}"
        case Pay(alternative, coins):
            if coins.total() == 0:
                return f"pay {alternative}"
            spec = ",".join(f"{k.value}:{n}" for k, n in coins.items)
            return f"pay {alternative} coins={spec}"
        case Die(location):
            return f"die {format_location(location)}"
        case Serve(tile):
            return f"serve {tile}"
        case Pass():
            return "pass"
        case BuyFromBag(number):
            return f"buy-from-bag {number}"
        case ChurchStep(stage, number):
            return f"church-step {stage} {number}"
        case DrawCube(cube):
            return f"draw-cube {cube.value}"
        case DrawCustomer(tile):
            return f"draw-customer {tile}"
        case DrawMonk():
            return "draw-monk"
        case DrawMember(seat, number):
            return f"draw-member {seat} {number}"
        case CarlaCube(cube):
            return f"carla-cube {cube.value}"
        case RevealFate(tile):
            return f"reveal-fate {tile.value}"
        case _:
            assert_never(action)


def _action_str(action: Action) -> str:
    return format_action(action)


for _kind in get_args(Action):
    _kind.__str__ = _action_str  # str(action) is its text notation, e.g. "take crafts plague"


_NULLARY: dict[str, Action] = {
    "skip": Skip(),
    "harvest": Harvest(),
    "birth": Birth(),
    "mill": Mill(),
    "pass": Pass(),
    "draw-monk": DrawMonk(),
}


MAX_ACTION_CHARS = 200
"""No action text is longer (the longest are payments with coins of several colours)."""


def parse_action(text: str) -> Action:
    """Inverse of `format_action`. Raises `ActionSyntaxError` naming what is wrong.

    Only the canonical text is accepted (single spaces, ASCII digits without leading
    zeros, each colour once and in order in a payment…), so every accepted text `t` has
    `format_action(parse_action(t)) == t`; the error for a near miss names the canonical
    form."""
    if not isinstance(text, str):
        raise ActionSyntaxError(f"an action text must be a str, not {type(text).__name__}")
    if len(text) > MAX_ACTION_CHARS:
        raise ActionSyntaxError(f"action text of {len(text)} characters (at most {MAX_ACTION_CHARS})")
    words = text.split()
    if not words:
        raise ActionSyntaxError("empty action text")
    verb, args = words[0], words[1:]
    try:
        action = _parse(verb, args, text)
    except ActionSyntaxError:
        raise
    except ValueError as exc:
        raise ActionSyntaxError(f"{text!r}: {_in_words(exc)}") from None
    canonical = format_action(action)
    if canonical != text:
        raise ActionSyntaxError(f"{text!r} is not in the canonical notation: write {canonical!r}")
    return action


_NAMED = {
    e.__name__: (words, e)
    for words, e in (
        ("action space", ActionSpace),
        ("building", Building),
        ("cube colour", Cube),
        ("good", Good),
        ("fate tile", FateTile),
        ("chronicle category", Category),
    )
}
_NOT_VALID = re.compile(r"'(.*)' is not a valid (\w+)")


def _in_words(exc: ValueError) -> str:
    """A `ValueError` of a piece's name in words: Python's "'nowhere' is not a valid
    ActionSpace" becomes "unknown action space 'nowhere' (one of: church, crafts, …)"."""
    found = _NOT_VALID.fullmatch(str(exc))
    named = _NAMED.get(found.group(2)) if found else None
    if found is None or named is None:
        return str(exc)
    words, enum = named
    return f"unknown {words} {found.group(1)!r} (one of: {', '.join(str(m.value) for m in enum)})"


def _parse(verb: str, args: list[str], text: str) -> Action:
    def want(n: int) -> None:
        if len(args) != n:
            raise ActionSyntaxError(f"{text!r}: '{verb}' takes {n} argument(s), got {len(args)}")

    if verb in _NULLARY:
        want(0)
        return _NULLARY[verb]
    match verb:
        case "take":
            want(2)
            return TakeCube(ActionSpace(args[0]), Cube(args[1]))
        case "well":
            want(2)
            return Well(ActionSpace(args[0]), Cube(args[1]))
        case "free":
            want(1)
            return FreeAction(ActionSpace(args[0]))
        case "cube":
            want(1)
            return PickCube(Cube(args[0]))
        case "good":
            want(1)
            return PickGood(Good(args[0]))
        case "call-home":
            want(2)
            return CallHome(parse_location(args[0]), _int(args[1]))
        case "train" if len(args) == 2:  # AMB-26 b: train only
            return Train(Building(args[0]), _int(args[1]), None)
        case "train":
            want(3)
            return Train(Building(args[0]), _int(args[1]), Good(args[2]))
        case "produce":
            want(2)
            return Produce(Building(args[0]), Good(args[1]))
        case "buy":
            want(2)
            return Buy(Building(args[0]), Good(args[1]))
        case "travel":
            want(3)
            return Travel(args[0], args[1], _int(args[2]))
        case "council-place":
            want(1)
            return CouncilPlace(_int(args[0]))
        case "council-advance":
            want(2)
            return CouncilAdvance(_int(args[0]), _int(args[1]))
        case "privilege":
            want(1)
            return Privilege(_int(args[0]))
        case "church":
            want(1)
            return ChurchEnter(_int(args[0]))
        case "pay":
            if len(args) not in (1, 2):
                raise ActionSyntaxError(f"{text!r}: 'pay' takes an alternative and optional coins=…")
            coins: Tally[Cube] = Tally()
            if len(args) == 2:
                if not args[1].startswith("coins="):
                    raise ActionSyntaxError(f"{text!r}: expected coins=<colour>:<n>,…")
                pairs = []
                for part in args[1][len("coins=") :].split(","):
                    colour, sep, n = part.partition(":")
                    if not sep:
                        raise ActionSyntaxError(f"{text!r}: expected <colour>:<n> in {part!r}")
                    pairs.append((Cube(colour), _int(n)))
                coins = Tally.of(pairs)
            return Pay(_int(args[0]), coins)
        case "die":
            want(1)
            return Die(parse_location(args[0]))
        case "serve":
            want(1)
            return Serve(_int(args[0]))
        case "buy-from-bag":
            want(1)
            return BuyFromBag(_int(args[0]))
        case "church-step":
            want(2)
            return ChurchStep(_int(args[0]), _int(args[1]))
        case "draw-cube":
            want(1)
            return DrawCube(Cube(args[0]))
        case "draw-customer":
            want(1)
            return DrawCustomer(_int(args[0]))
        case "draw-member":
            want(2)
            return DrawMember(_int(args[0]), _int(args[1]))
        case "carla-cube":
            want(1)
            return CarlaCube(Cube(args[0]))
        case "reveal-fate":
            want(1)
            return RevealFate(FateTile(args[0]))
    raise ActionSyntaxError(f"{text!r}: unknown verb {verb!r}")


_NUMBER = re.compile(r"[0-9]{1,9}")


def _int(text: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise ActionSyntaxError(f"expected a whole number in ASCII digits (at most 9), got {text!r}")
    return int(text)


# --- checking an action value built in code -----------------------------------------------

_MAX_INT = 10**9


def _is_int(value: object) -> bool:
    return type(value) is int and -_MAX_INT < value < _MAX_INT


_PLAIN_PLACES = (Unborn, Farmyard, ChurchReserve, InBlackBag, InGraveyard, Removed)


def _is_location(value: object) -> bool:
    kind = type(value)
    if kind in _PLAIN_PLACES:
        return True
    if kind is OnCouncil or kind is OnChurch:
        return _is_int(value.stage)  # type: ignore[attr-defined]
    if kind is AtCraft:
        return isinstance(value.building, Building)  # type: ignore[attr-defined]
    if kind is Travelling:
        return type(value.city) is str  # type: ignore[attr-defined]
    if kind is InChronicle:
        return isinstance(value.category, Category)  # type: ignore[attr-defined]
    return False


def _is_coins(value: object) -> bool:
    """A `Tally[Cube]` as `Tally.of` builds it: positive counts, colours sorted, once each."""
    if not isinstance(value, Tally):
        return False
    last = ""
    for pair in value.items:
        if type(pair) is not tuple or len(pair) != 2:
            return False
        colour, n = pair
        if not isinstance(colour, Cube) or not _is_int(n) or n <= 0 or colour.value <= last:
            return False
        last = colour.value
    return True


_FIELD_CHECKS: dict[str, tuple[str, Callable[[object], bool]]] = {
    "ActionSpace": ("an ActionSpace", lambda v: isinstance(v, ActionSpace)),
    "Cube": ("a Cube", lambda v: isinstance(v, Cube)),
    "FateTile": ("a FateTile", lambda v: isinstance(v, FateTile)),
    "Good": ("a Good", lambda v: isinstance(v, Good)),
    "Good | None": ("a Good or None", lambda v: v is None or isinstance(v, Good)),
    "Building": ("a Building", lambda v: isinstance(v, Building)),
    "Location": ("a Location", _is_location),
    "Tally[Cube]": ("a Tally of positive counts per Cube", _is_coins),
    "int": ("an int", _is_int),
    "str": ("a str", lambda v: type(v) is str),
}


def check_action(action: object) -> None:
    """Raise `ActionTypeError` unless `action` is an action value whose fields have the
    declared types (`apply` calls this; a value from `parse_action` always passes)."""
    fields = _ACTION_FIELDS.get(type(action))
    if fields is None:
        hint = ": use parse_action(text)" if isinstance(action, str) else ""
        raise ActionTypeError(f"apply takes an action value, not {type(action).__name__}{hint}")
    for name, (kind, ok) in fields:
        value = getattr(action, name)
        if not ok(value):
            raise ActionTypeError(f"{type(action).__name__}.{name} must be {kind}, got {_show(value)}")


def _show(value: object) -> str:
    """`repr`, except for an int too long to print (repr would raise ValueError)."""
    if type(value) is int and not _is_int(value):
        return f"an int of {value.bit_length()} bits (out of range)"
    return repr(value)[:80]


for _cls in get_args(Action):
    _ACTION_FIELDS[_cls] = tuple((f.name, _FIELD_CHECKS[str(f.type)]) for f in dataclasses.fields(_cls))


# --- the finite action set and stable ids -------------------------------------------------


def action_universe(data: EditionData) -> tuple[Action, ...]:
    """Every distinct action and chance outcome possible with this data, in a fixed order.

    The index of an action in this tuple is its stable id for `data`.
    """
    return _universe(data)


@lru_cache(maxsize=16)
def _universe(data: EditionData) -> tuple[Action, ...]:
    numbers = sorted(set(data.family_numbers))
    spaces = list(ActionSpace)
    cubes = list(Cube)
    out: list[Action] = []
    out += [TakeCube(s, c) for s in spaces for c in cubes]
    out += [Well(s, c) for s in spaces for c in INFLUENCE]
    out += [FreeAction(s) for s in spaces]
    out += [Skip(), Harvest(), Birth(), Mill(), Pass(), DrawMonk()]
    out += [PickCube(c) for c in INFLUENCE]
    out += [PickGood(g) for g in Good]
    board: list[Location] = [AtCraft(b) for b in Building]
    board += [OnCouncil(s) for s in range(1, data.council_stages + 1)]
    board += [OnChurch(s) for s in range(1, data.church_stages + 1)]
    board += [Travelling(c.id) for c in data.cities]
    out += [CallHome(loc, n) for loc in board for n in numbers]
    out += [Train(c.building, n, g) for c in data.crafts for n in numbers for g in c.goods]
    out += [Produce(c.building, g) for c in data.crafts for g in c.goods]
    out += [Buy(c.building, g) for c in data.crafts for g in c.goods]
    for path in data.paths:
        for origin, dest in ((path.a, path.b), (path.b, path.a)):
            if dest != data.village:
                out += [Travel(origin, dest, n) for n in numbers]
    out += [CouncilPlace(n) for n in numbers]
    out += [CouncilAdvance(s, n) for s in range(1, data.council_stages) for n in numbers]
    out += [Privilege(s) for s in range(1, data.council_stages + 1)]
    out += [ChurchEnter(n) for n in numbers]
    max_alts = max(len(data.council_place), len(data.council_advance), len(data.church_enter), 1)
    for alt in range(max_alts):
        for coins in _coin_vectors(_most_cubes_in_a_cost(data)):
            out.append(Pay(alt, coins))
    out += [Die(loc) for loc in [FARMYARD, *board]]
    out += [Serve(t.id) for t in data.customers]
    out += [BuyFromBag(n) for n in numbers]
    out += [ChurchStep(s, n) for s in range(1, data.church_stages) for n in numbers]
    out += [DrawCube(c) for c in cubes]
    out += [DrawCustomer(t.id) for t in data.customers]
    out += [DrawMember(seat, n) for seat in range(data.max_players) for n in numbers]
    out += [Train(c.building, n, None) for c in data.crafts for n in numbers]  # AMB-26 b, last: ids stay
    if data.solo is not None:  # the solo mode's decisions and outcomes, last: ids stay
        out += [CarlaCube(c) for c in cubes]
        out += [RevealFate(t) for t in FateTile]
    return tuple(out)


def _most_cubes_in_a_cost(data: EditionData) -> int:
    """The most influence cubes any one payment can ask for: coins never exceed it."""
    costs = [
        *data.council_place,
        *data.council_advance,
        *data.church_enter,
        data.mill_cost,
        data.later_sale,
        *(c.purchase for c in data.crafts),
        *(p.cost for p in data.paths),
    ]
    most_in_cost = max(c.cubes.total() for c in costs)
    most_at_market = data.later_sale.cubes.total()
    return max(data.well_cubes, most_in_cost, most_at_market)


def _coin_vectors(max_total: int) -> list[Tally[Cube]]:
    """Coins per influence colour, at most `max_total` coins in all (any real cost is less)."""
    result: list[Tally[Cube]] = []

    def rec(i: int, left: int, acc: list[tuple[Cube, int]]) -> None:
        if i == len(INFLUENCE):
            result.append(Tally.of(acc))
            return
        for n in range(left + 1):
            rec(i + 1, left - n, [*acc, (INFLUENCE[i], n)])

    rec(0, max_total, [])
    return result


@lru_cache(maxsize=16)
def _ids(data: EditionData) -> dict[Action, int]:
    return {a: i for i, a in enumerate(action_universe(data))}


def action_id(data: EditionData, action: Action) -> int:
    """The stable integer id of `action` for this data (its index in `action_universe`)."""
    try:
        return _ids(data)[action]
    except KeyError:
        raise ActionSyntaxError(f"{format_action(action)!r} is not an action of {data.edition}") from None


def action_from_id(data: EditionData, index: int) -> Action:
    """The action with id `index` in the edition's action universe (the inverse of `action_id`)."""
    universe = action_universe(data)
    if not 0 <= index < len(universe):
        raise ActionSyntaxError(f"action id {index} is out of range 0..{len(universe) - 1}")
    return universe[index]
