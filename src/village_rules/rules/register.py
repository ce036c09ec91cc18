"""The switchable readings of the ambiguity register (specs/ambiguities.md).

Each `Reading` is one AMB entry whose readings change play: its letters, what each letter
means, and the default per edition. The default is the literal reading of that edition's
own text (issue 9); a `Variant` (`village_rules.rules.variant`) holds only the choices that differ
from it, so `Variant()` plays every edition by its own text.

A data file with an edition name that is not a shipped edition takes the 2023 defaults
(the 2023 Big Box rulebook is the first authority).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from village_rules.errors import ReadingError

BIG_BOX = "big-box-2023"
ORIGINAL = "original-2011"


@dataclass(frozen=True, slots=True)
class Reading:
    """One selectable AMB entry: `letters` maps each letter to what it means."""

    amb: str
    title: str
    option: str
    letters: tuple[tuple[str, str], ...]
    defaults: tuple[tuple[str, str], ...]
    """(edition, letter) for the shipped editions; see `default`."""
    why_default: str

    def default(self, edition: str) -> str:
        """The default reading letter of this entry in an edition."""
        table = dict(self.defaults)
        return table.get(edition, table[BIG_BOX])

    @property
    def letter_names(self) -> tuple[str, ...]:
        """The entry's reading letters, in order."""
        return tuple(letter for letter, _ in self.letters)

    def meaning(self, letter: str) -> str:
        """What a reading letter of this entry means."""
        return dict(self.letters)[letter]


def _both(letter: str) -> tuple[tuple[str, str], ...]:
    return ((BIG_BOX, letter), (ORIGINAL, letter))


_READINGS: tuple[Reading, ...] = (
    Reading(
        "AMB-01",
        "How far coin substitution reaches (the well)",
        "coins_at_well",
        (
            ("a", "coins may stand in for the well's cubes, but at least one real cube of the colour"),
            ("b", "coins may not stand in for the well's cubes"),
            ("c", "coins may stand in for any of the well's cubes, all three included"),
        ),
        _both("c"),
        "2023 p. 12 / 2011 'The coins': a coin replaces 'any one influence cube', no exception",
    ),
    Reading(
        "AMB-02",
        "A harvest that would go over 5 grain",
        "harvest_over_capacity",
        (
            ("a", "the harvest is allowed; grain beyond the farmyard's 5 stays in the supply"),
            ("b", "the harvest is illegal unless all its grain fits on the farmyard"),
        ),
        _both("a"),
        "2023 p. 3 / 2011 'Grain harvest' cap storage, they set no condition on harvesting",
    ),
    Reading(
        "AMB-03",
        "The supply runs out",
        "supply_runs_out",
        (
            ("a", "the action is allowed and pays out what the supply still holds"),
            ("b", "an action whose payout the supply cannot make in full is illegal"),
        ),
        _both("a"),
        "no text forbids an action for an empty supply; the texts that cover a short supply "
        "(2011 'Seeding' Note 'add only the available cubes', 2011 'Market' Note 'the market "
        "stalls remain empty') hand out what is left",
    ),
    Reading(
        "AMB-33",
        "The end is triggered on the turn that takes the last cube",
        "last_cube_end",
        (
            ("a", "no round mass and no reseeding: the final actions follow on the empty board"),
            ("b", "the round mass and the reseeding are held, then the final actions"),
            ("c", "the round mass is held, no reseeding: the final actions follow on the empty board"),
        ),
        ((BIG_BOX, "c"), (ORIGINAL, "a")),
        "both texts: 'should the final cube be taken … the action spaces are not reseeded' and the "
        "final actions are free; 2011 'End of the game' Note: 'the usual mass at the end of a round is "
        "skipped'; 2023 has no such note and p. 5: 'The current round is then finished and a mass is held'",
    ),
    Reading(
        "AMB-45",
        "The last cube is taken during the final actions",
        "last_cube_in_final_actions",
        (
            ("a", "no round mass: the remaining final actions follow on the empty board, then the last mass"),
            ("b", "the round mass (no reseeding), then the remaining final actions, then the last mass"),
        ),
        ((BIG_BOX, "b"), (ORIGINAL, "a")),
        "2023 p. 5: when the last cube is taken 'The current round is then finished and a mass is held'; "
        "p. 13 lifts only the reseeding ('the action spaces are not reseeded'); only the 2011 'End of "
        "the game' Note says 'the usual mass at the end of a round is skipped'",
    ),
    Reading(
        "AMB-46",
        "The lowest-numbered member is in the black bag when a member dies",
        "dying_lowest_in_bag",
        (
            ("a", "the lowest number among all living members dies; if none of them is visible, nobody dies"),
            ("b", "the lowest number among the visible members dies (the bag's are passed over)"),
        ),
        _both("a"),
        "2023 p. 12 / 2011 'A family member passes away': 'it is always the one with the lowest number "
        "that has to die … must be visible', 2023 adds 'otherwise you do not lose a family member'; no "
        "text passes the death on to a higher number",
    ),
    Reading(
        "AMB-06",
        "The market-day trigger player's first chance to sell",
        "trigger_first_chance",
        (
            ("a", "the market-day player may pass at once and is then out of this market day"),
            ("b", "a pass at the market-day player's first chance does not count: they are asked again"),
            ("c", "the market-day player must serve a customer at their first chance if they can pay"),
        ),
        _both("a"),
        "2023 p. 8 / 2011 'Market': 'you are the first player allowed to serve', a permission",
    ),
    Reading(
        "AMB-08",
        "Several quill passes before the deaths are resolved",
        "deaths_per_turn",
        (
            ("a", "each pass kills one member"),
            ("b", "passes not yet resolved kill one member: a seat never owes more than one death"),
        ),
        _both("a"),
        "2023 p. 5 / 2011 'The currency time': 'As soon as your marker passes the quill, one … passes away'",
    ),
    Reading(
        "AMB-16",
        "Church majority tie on the furthest member",
        "church_tie_break",
        (
            ("a", "only each tied player's furthest member counts; still tied, each gets the prestige"),
            ("b", "then the next members in order break the tie"),
        ),
        _both("a"),
        "2023 p. 11 step 3 'Only the one furthest to the right is decisive'; 2011 step 3: 'If there is "
        "still a tie, then each of the tied players gains 2'",
    ),
    Reading(
        "AMB-15",
        "The buying round at mass",
        "mass_buying_round",
        (
            ("a", "each player in turn from the start player has one chance to buy any number"),
            ("b", "players buy one member at a time, going round until every player has stopped"),
        ),
        _both("a"),
        "2023 p. 11 step 1 / 2011 'End of a round': 'Beginning with the starting player and then "
        "continuing in clockwise order, each player may pick one or more', one pass round the table",
    ),
    Reading(
        "AMB-09",
        "The end is triggered during a market day by another player",
        "final_actions_start",
        (
            ("a", "the final actions start left of the market-day player, who acts last"),
            ("b", "they start left of the player who triggered the end, who acts last"),
            ("c", "they start with the start player"),
        ),
        _both("a"),
        "2011 'End of the game': 'The final turn of the game is then taken by the player who "
        "triggered the market day'; 2023 p. 13 says only 'in clockwise order' (it continues that turn)",
    ),
    Reading(
        "AMB-10",
        "Deaths during the end phase",
        "end_phase_deaths",
        (
            ("a", "chronicle, then graveyard; removed only when neither has room"),
            ("b", "every death after the end trigger removes the member from the game"),
        ),
        _both("a"),
        "2011 'End of the game' Note removes members only with no space or grave left",
    ),
    Reading(
        "AMB-12",
        "When the chronicle counts as fully occupied",
        "chronicle_full",
        (
            ("a", "every open space of every category is taken"),
            ("b", "one category is full"),
        ),
        _both("a"),
        "2023 p. 13 a) / 2011 'End of the game': 'the last empty space in the village chronicle'",
    ),
    Reading(
        "AMB-17",
        "Travelling with no member on the map but markers on cities",
        "start_from_marker",
        (
            ("a", "only members count: with none on the map, a trip starts from the village"),
            (
                "b",
                "markers count: with no member on the map, a farmyard member may set out from a marked city",
            ),
        ),
        _both("a"),
        "2023 p. 10 / 2011 'Travel': 'If you do not have any family members on the travel map'",
    ),
    Reading(
        "AMB-18",
        "A trip with no travel marker left",
        "trip_without_marker",
        (
            ("a", "the trip is allowed; it places no marker and gives no reward"),
            ("b", "the trip is illegal"),
        ),
        _both("a"),
        "no text forbids the trip; 2011 'Travel' treats a city already visited the same way",
    ),
    Reading(
        "AMB-19",
        "One marker and reward per city",
        "reward_per_city",
        (
            ("a", "one marker and one reward per city and player (2011 'Travel')"),
            ("b", "a reward on every arrival; a marker only on a city without one of yours"),
            ("c", "a marker and the reward on every arrival while markers last; scoring counts markers"),
        ),
        _both("a"),
        "2011 'Travel' states the limit; 2023 p. 10 ties the reward to placing a marker ('Take one "
        "of your markers and place it … This gets you the reward'), allows 'different colored markers' "
        "on a city, and p. 14 counts markers as cities",
    ),
    Reading(
        "AMB-23",
        "A quill pass with no visible member",
        "death_without_visible_member",
        (
            ("a", "no member dies and the death lapses"),
            ("b", "the death stays owed until a member is visible at the end of a turn"),
        ),
        _both("a"),
        "2023 p. 12 'otherwise you do not lose a family member'; 2011 'A family member passes away' "
        "times the death (the end of the turn, or at once in a market day) and needs a visible member "
        "then; no text keeps a death owed for a later turn",
    ),
    Reading(
        "AMB-24",
        "Which members the family action may return",
        "call_home_from",
        (
            ("a", "any living member on the board (crafts, council, church track, travel map)"),
            ("b", "only 'employed' members: crafts and council chamber"),
        ),
        _both("a"),
        "2023 p. 6 'from the game board'; 2011 'employed' is nowhere defined",
    ),
    Reading(
        "AMB-34",
        "Market day during the final actions",
        "final_market_day",
        (
            ("a", "all players take part, including those who have had their final action"),
            ("b", "only the trigger player and the players whose final action is still to come"),
        ),
        _both("a"),
        "2023 p. 8: a market day 'in which all players participate'",
    ),
    Reading(
        "AMB-44",
        "The chronicle and the graveyard both filled in one market day",
        "both_filled_in_market_day",
        (
            ("a", "the player who filled the first of the two triggered the end"),
            ("b", "the player who occupied the later last space triggered the end"),
        ),
        _both("a"),
        "2023 p. 13 'The end of the game is triggered when a family member is put onto either' last "
        "space: the first fill triggers it, a later one triggers nothing; the Special case only says "
        "when to 'determine who has triggered the end' (after the market day)",
    ),
    Reading(
        "AMB-26",
        "Training at a craft building without producing",
        "train_without_producing",
        (
            ("a", "training must be followed by production for time in the same action"),
            ("b", "training alone is allowed; producing at once is optional"),
        ),
        _both("b"),
        "2023 p. 7 / 2011 'Crafts': 'You may then immediately produce'",
    ),
)

_SOLO_READINGS: tuple[Reading, ...] = (
    # The solo mode against Carla (2023 pp. 15-19, issue 10); inert in 2011, which has no
    # solo mode (NEVER_PART below).
    Reading(
        "AMB-36",
        "When Carla takes her cube (solo)",
        "carla_take_time",
        (
            ("a", "after the player's whole action (and its deaths)"),
            ("b", "at once after the player's cube, before the action: her take, reaction and death first"),
        ),
        _both("a"),
        "2023 p. 17 example: Chris serves, the market day ends, 'Now it's Carla's \'turn\''; "
        "p. 17 Tip: cubes placed 'in the order you took them'",
    ),
    Reading(
        "AMB-37",
        "A face-up fate tile passed again (solo)",
        "fate_tile_passed_again",
        (
            ("a", "a face-up tile stays up and counts again whenever a cube passes it (a quill kills again)"),
            ("b", "a tile counts only when it is turned up; passed again face up it does nothing"),
            ("c", "once all tiles of a set are up, the set is shuffled face down again"),
        ),
        _both("a"),
        "2023 p. 16 step 6 shuffles the tiles face down once; nothing in pp. 15-19 turns a tile back "
        "or reshuffles it, and p. 17 'a quill is now visible' stays visible",
    ),
    Reading(
        "AMB-38",
        "Carla's death before or after her reaction (solo)",
        "carla_death_order",
        (
            ("a", "her reaction (market day, church) first, then the death"),
            ("b", "the death as soon as the quill shows, then her reaction"),
        ),
        _both("a"),
        "2023 p. 12 / p. 5 for every player: 'First finish your chosen action', then the member dies",
    ),
    Reading(
        "AMB-39",
        "Carla's market day (solo)",
        "carla_market_day",
        (
            ("a", "her market cube holds a market day she triggered: she serves, then the player may sell"),
            ("b", "she only takes the frontmost customer; no market day is held"),
        ),
        _both("a"),
        "2023 p. 18 'or Carla has triggered the market day'; p. 15 'All the rules of the base game apply'",
    ),
    Reading(
        "AMB-41",
        "Carla's owed cube when the player's own action ends the game (solo)",
        "carla_take_at_end",
        (
            ("a", "she still takes the cube owed for the player's, with reaction and death; then the end"),
            ("b", "the final mass follows at once; her owed take is dropped"),
        ),
        _both("a"),
        "2023 p. 17 'Each time after you have taken an influence or plague cube …, Carla takes a cube'; "
        "p. 13 denies the player only another turn",
    ),
    Reading(
        "AMB-42",
        "Carla's frontmost customer after the market is refilled (solo)",
        "carla_frontmost_after_refill",
        (
            ("a", "the blue bordered spaces are fixed: the customers left stay, the empty spaces are filled"),
            ("b", "the customers left on the blue spaces move up first; the waiting ones fill in behind"),
        ),
        _both("a"),
        "2023 p. 8 'The waiting customers are moved forward in order' (only the waiting line moves); "
        "p. 16 step 6 her disc 'next to the frontmost customer', a fixed spot",
    ),
    Reading(
        "AMB-43",
        "A market day held through the well (solo)",
        "carla_at_well_market_day",
        (
            ("a", "Carla serves nobody in it: after a well action she does not react"),
            ("b", "she serves as in any market day the player triggers (the frontmost left)"),
        ),
        _both("a"),
        "2023 p. 18 'Carla does not take a cube from the game board (or \'react\') right after you "
        "performed a \'well\' action'; her serving in the player's market day is listed among her reactions",
    ),
)

READINGS: tuple[Reading, ...] = tuple(sorted((*_READINGS, *_SOLO_READINGS), key=lambda r: r.amb))

SOLO_READINGS: frozenset[str] = frozenset(r.amb for r in _SOLO_READINGS)
"""The entries that act only in a solo game (`village-rules diverge` searches them with 1 player)."""

_NO_SOLO_2011 = "the 2011 edition has no solo mode (1 player is refused, SET-01): a solo reading never acts"

NEVER_PART: Mapping[tuple[str, str, str], str] = {
    ("AMB-08", BIG_BOX, "b"): (
        "with the shipped 2023 data the readings never part: AMB-23 a lets no death wait and two "
        "quill passes in one action need at least 11 time while the dearest action costs 8 "
        "(specs/ambiguities.md AMB-08)"
    ),
    ("AMB-08", ORIGINAL, "b"): (
        "with the shipped 2011 data the readings never part: since issue 29 AMB-23 a (the default) "
        "lets no death wait, and the 2011 data has the same 10-space track and the same dearest "
        "action (8 time) as 2023, so two quill passes in one action cannot happen "
        "(specs/ambiguities.md AMB-08)"
    ),
    ("AMB-36", ORIGINAL, "b"): _NO_SOLO_2011,
    ("AMB-37", ORIGINAL, "b"): _NO_SOLO_2011,
    ("AMB-37", ORIGINAL, "c"): _NO_SOLO_2011,
    ("AMB-38", ORIGINAL, "b"): _NO_SOLO_2011,
    ("AMB-39", ORIGINAL, "b"): _NO_SOLO_2011,
    ("AMB-41", ORIGINAL, "b"): _NO_SOLO_2011,
    ("AMB-42", ORIGINAL, "b"): _NO_SOLO_2011,
    ("AMB-43", ORIGINAL, "b"): _NO_SOLO_2011,
}
"""(AMB, edition, other letter) → why the default and that letter never part there: the
argument that stands in for a stored witness (issue 9)."""

WITNESS_WANTED: Mapping[tuple[str, str, str], str] = {
    ("AMB-44", ORIGINAL, "b"): (
        "the planned 2011 witness stopped parting under AMB-46 a (issue 43) and the beam of "
        "readings/last_spaces.py found none on setup seeds 0, 1 and 2 since; "
        "tests/engine/test_end_of_game.py plays both readings from a constructed position"
    ),
}
"""(AMB, edition, other letter) → why the pair has neither a stored witness nor an
argument: the readings do part (a test constructs the position) but no seeded game that
reaches it has been found. Open work, listed by `village-rules ambiguities`: AMB-44 in 2011
since issue 43 (empty from issue 29, when AMB-44's witnesses were planned, until then)."""
BY_ID: Mapping[str, Reading] = {r.amb: r for r in READINGS}


def reading(amb: str) -> Reading:
    """The register entry `amb`; `ReadingError` names the known ones otherwise."""
    try:
        return BY_ID[amb]
    except KeyError:
        known = ", ".join(BY_ID)
        raise ReadingError(f"{amb!r} is not a switchable ambiguity (switchable: {known})") from None


def check_choice(amb: str, letter: str) -> None:
    """Raise ReadingError unless `letter` is a reading of the entry `amb`."""
    entry = reading(amb)
    if letter not in entry.letter_names:
        raise ReadingError(
            f"{amb} has no reading {letter!r} (readings: "
            + "; ".join(f"{k} = {v}" for k, v in entry.letters)
            + ")"
        )


def parse_choice(text: str) -> tuple[str, str]:
    """`AMB-26=b` → ("AMB-26", "b"), checked against the register."""
    amb, sep, letter = text.partition("=")
    amb, letter = amb.strip().upper(), letter.strip().lower()
    if not sep or not amb or not letter:
        raise ReadingError(f"--reading {text!r}: expected AMB-xx=letter, e.g. AMB-26=a")
    check_choice(amb, letter)
    return amb, letter


def normalise(choices: Mapping[str, str] | tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """Checked, sorted (AMB, letter) pairs; `ReadingError` on an unknown ID or letter or a
    repeated ID."""
    if not isinstance(choices, Mapping | tuple | list):
        raise ReadingError(f"readings must be a mapping of AMB ID to letter, got {type(choices).__name__}")
    pairs = list(choices.items()) if isinstance(choices, Mapping) else list(choices)
    seen: set[str] = set()
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise ReadingError(f"a reading must be an (AMB ID, letter) pair of strings, got {pair!r}")
        amb, letter = pair
        check_choice(amb, letter)
        if amb in seen:
            raise ReadingError(f"{amb} is chosen more than once")
        seen.add(amb)
    return tuple(sorted(pairs))


def random_choices(rng: random.Random, share: float = 0.5) -> tuple[tuple[str, str], ...]:
    """For the fuzzer: each entry gets a uniformly drawn letter with probability `share`
    (else the edition default). Deterministic in `rng`."""
    out: list[tuple[str, str]] = []
    for entry in READINGS:
        pick = rng.random() < share
        letter = rng.choice(entry.letter_names)
        if pick:
            out.append((entry.amb, letter))
    return tuple(out)


def readings_from_json(
    value: object, path: str, fail: Callable[[str, str], Exception]
) -> tuple[tuple[str, str], ...]:
    """The `variant.readings` object of a state or log: {"AMB-26": "a", ...}."""
    if not isinstance(value, dict):
        raise fail(path, f"must be an object of AMB ID → reading letter, got {type(value).__name__}")
    pairs: list[tuple[str, str]] = []
    for amb, letter in value.items():
        if not isinstance(letter, str):
            raise fail(f"{path}.{amb}", f"must be a reading letter (string), got {type(letter).__name__}")
        try:
            check_choice(str(amb), letter)
        except ReadingError as exc:
            raise fail(f"{path}.{amb}", str(exc)) from None
        pairs.append((str(amb), letter))
    return tuple(sorted(pairs))


def variant_to_json(starting_compensation: bool, choices: tuple[tuple[str, str], ...]) -> dict[str, object]:
    """The JSON form of a variant in states and logs."""
    return {"starting_compensation": starting_compensation, "readings": dict(choices)}


LEGACY_WELL_FLAG = "coin_substitution_at_well"
"""The boolean of format version 1 that AMB-01 replaced: true was reading a, false b."""


def legacy_well_choice(value: object, path: str, fail: Callable[[str, str], Exception]) -> tuple[str, str]:
    """The AMB-01 choice of an old log's boolean `coin_at_well` field."""
    if not isinstance(value, bool):
        raise fail(path, f"must be a boolean, got {type(value).__name__}")
    return ("AMB-01", "a" if value else "b")


@dataclass(frozen=True, slots=True)
class Fixed:
    """A register entry that is not a `Reading`: why (`why`), and whether its other
    readings would change play (`plays_differently`) — those are open work: selected
    outside `--reading` (a flag or a data value), or, with `option_pending`, not
    selectable yet (the solo entries; the engine plays the chosen reading only)."""

    amb: str
    title: str
    why: str
    plays_differently: bool
    option_pending: bool = False


FIXED: tuple[Fixed, ...] = (
    Fixed(
        "AMB-04",
        "The green bag has too few cubes to seed",
        "cannot happen with the shipped data (the bag always holds more than a round draws); "
        "only a user's data file can reach it",
        False,
    ),
    Fixed(
        "AMB-05",
        "Where the market's '3-5' and '4-5' spaces are",
        "a data-file choice (market.spaces), not a rule; change it with --data",
        False,
    ),
    Fixed("AMB-07", "What the trigger player pays for later sales", "settled: the editions agree", False),
    Fixed(
        "AMB-11",
        "Starting compensation",
        "an option of its own: Variant.starting_compensation / --no-compensation",
        True,
    ),
    Fixed(
        "AMB-13",
        "Privilege 1 when the next-start marker is already taken",
        "reading b names no benefit, so it cannot be played",
        False,
    ),
    Fixed(
        "AMB-14",
        "Which privilege the council allows",
        "both readings allow the same privileges: you can always name your furthest member",
        False,
    ),
    Fixed("AMB-20", "Where a traveller may go", "no second reading is recorded", False),
    Fixed("AMB-21", "When the well can be used", "no second reading is recorded", False),
    Fixed("AMB-22", "The market day through the well", "no second reading is recorded", False),
    Fixed(
        "AMB-25", "The family action when no unborn member is left", "no second reading is recorded", False
    ),
    Fixed(
        "AMB-27",
        "A plague-cube pass by the market-day trigger player",
        "no second reading is recorded",
        False,
    ),
    Fixed(
        "AMB-28", "Church majority when nobody is on the church track", "no second reading is recorded", False
    ),
    Fixed("AMB-29", "A final tie after both tie-breakers", "no second reading is recorded", False),
    Fixed("AMB-30", "The green bag carries over between rounds", "no second reading is recorded", False),
    Fixed(
        "AMB-31",
        "Values printed only on the board, cards and tiles",
        "data-file values; change them with --data",
        False,
    ),
    Fixed("AMB-32", "A market day with no customer to serve", "no second reading is recorded", False),
    Fixed(
        "AMB-35",
        "Church step grain: [1, 1, 2] or [1, 2, 1]",
        "a flagged data value (church.step_grain); [1, 2, 1] is a --data change",
        True,
    ),
    # The solo mode (2023 pp. 15-19), issue 10.
    Fixed(
        "AMB-40",
        "The solo back of the mass overview card",
        "data-file values; change them with --data",
        False,
    ),
)
